/* Recording stub: stands for @FN@ in the -O3 program (verify/program_state.py),
 * lets sc_record_state(saved registers) snapshot the file's globals and record the
 * arguments (harness/recorded.py: the block holds xmm0-7, then rax, r9, r8, rcx, rdx,
 * rsi, rdi, each 8-byte aligned), then tail-calls the real
 * function (renamed sc_impl_@FN@) with every argument register and the stack
 * exactly as the caller left them. */
	.text
	.globl	@FN@
	.type	@FN@, @function
@FN@:
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%r8
	pushq	%r9
	pushq	%rax
	subq	$128, %rsp
	movdqu	%xmm0, 0(%rsp)
	movdqu	%xmm1, 16(%rsp)
	movdqu	%xmm2, 32(%rsp)
	movdqu	%xmm3, 48(%rsp)
	movdqu	%xmm4, 64(%rsp)
	movdqu	%xmm5, 80(%rsp)
	movdqu	%xmm6, 96(%rsp)
	movdqu	%xmm7, 112(%rsp)
	movq	%rsp, %rdi
	call	sc_record_state
	movdqu	0(%rsp), %xmm0
	movdqu	16(%rsp), %xmm1
	movdqu	32(%rsp), %xmm2
	movdqu	48(%rsp), %xmm3
	movdqu	64(%rsp), %xmm4
	movdqu	80(%rsp), %xmm5
	movdqu	96(%rsp), %xmm6
	movdqu	112(%rsp), %xmm7
	addq	$128, %rsp
	popq	%rax
	popq	%r9
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	jmp	sc_impl_@FN@
	.size	@FN@, .-@FN@
	.section	.note.GNU-stack,"",@progbits
