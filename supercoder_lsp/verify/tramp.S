/* ABI-checking trampoline.
 *
 * sc_tramp is called with the argument registers of the function under test
 * and forwards them untouched to *sc_target.  Before the call it
 *   - saves the caller's callee-saved registers in sc_saved (not on the stack,
 *     where the callee could overwrite them) and loads sentinels into them;
 *   - poisons the call-clobbered registers that carry no argument
 *     (%rax, %r10, %r11; unused argument registers are poisoned by the C caller);
 *   - switches to a stack of its own (sc_stack_top, when the harness set one), whose top lies
 *     against a guard page: a callee that writes above its frame (zlib's inflate_table counts
 *     lens[] values into a local array of 16) faults there, as a crash of that input, instead
 *     of overwriting the harness's own frames;
 *   - copies the sc_nstack words of arguments the caller passed on the stack to
 *     where the callee finds them (8 slots; the unused ones get the nonce);
 *   - puts canaries in the 80 bytes of the trampoline's frame above those
 *     slots (the caller's frame, as the callee sees it);
 *   - clears the upper halves of the YMM registers (when the CPU has AVX) and
 *     records MXCSR and the x87 control word.
 * After the call it records %rsp, the callee-saved registers, RFLAGS (the
 * direction flag), MXCSR, the x87 control word and tag word, whether the upper
 * YMM state is left dirty (XGETBV 1, when the CPU has it) and the canaries,
 * repairs all of them, and returns %rax/%rdx/%xmm0/%xmm1 untouched.  The C
 * harness then compares the records with what the ABI requires.
 */
	.text
	.globl	sc_tramp
	.type	sc_tramp, @function
sc_tramp:
	movq	%rbx, sc_saved(%rip)
	movq	%rbp, sc_saved+8(%rip)
	movq	%r12, sc_saved+16(%rip)
	movq	%r13, sc_saved+24(%rip)
	movq	%r14, sc_saved+32(%rip)
	movq	%r15, sc_saved+40(%rip)
	popq	%r11
	movq	%r11, sc_saved+48(%rip)		/* the return address */
	movq	%rsp, sc_saved+56(%rip)		/* the caller's stack: its stack arguments from 0(%rsp) */
	movq	sc_stack_top(%rip), %r11
	testq	%r11, %r11
	jz	7f
	movq	%r11, %rsp			/* 16-byte aligned, as %rsp is here */
7:
	/* 64 bytes of stack arguments above the callee's return address, 80 bytes of canaries above
	 * them, and a 16-byte aligned call; only %rax, %r10 and %r11 carry no argument here */
	subq	$144, %rsp
	movq	sc_nonce(%rip), %r11
	.irp	off, 0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136
	movq	%r11, \off(%rsp)
	.endr
	xorl	%eax, %eax
3:	cmpq	sc_nstack(%rip), %rax
	jae	4f
	movq	sc_saved+56(%rip), %r10
	movq	(%r10,%rax,8), %r10		/* the caller's stack arguments, above its return address */
	movq	%r10, (%rsp,%rax,8)
	incq	%rax
	jmp	3b
4:
	stmxcsr	sc_state(%rip)
	fnstcw	sc_state+4(%rip)
	cmpb	$0, sc_has_avx(%rip)
	je	1f
	vzeroupper
1:
	movq	sc_sent(%rip), %rbx
	movq	sc_sent+8(%rip), %rbp
	movq	sc_sent+16(%rip), %r12
	movq	sc_sent+24(%rip), %r13
	movq	sc_sent+32(%rip), %r14
	movq	sc_sent+40(%rip), %r15
	movq	sc_junk(%rip), %r10
	movq	sc_junk+8(%rip), %r11
	movq	sc_junk+16(%rip), %rax
	movq	%rsp, sc_rsp_before(%rip)
	call	*sc_target(%rip)
	movq	%rsp, sc_rsp_after(%rip)
	movq	sc_rsp_before(%rip), %rsp
	movq	sc_nonce(%rip), %r11
	movq	%r11, sc_done(%rip)
	movq	%rbx, sc_after(%rip)
	movq	%rbp, sc_after+8(%rip)
	movq	%r12, sc_after+16(%rip)
	movq	%r13, sc_after+24(%rip)
	movq	%r14, sc_after+32(%rip)
	movq	%r15, sc_after+40(%rip)
	pushfq
	popq	%r11
	movq	%r11, sc_flags_after(%rip)
	cld
	/* canaries: count the ones that changed */
	xorl	%ebx, %ebx
	movq	sc_nonce(%rip), %r11
	.irp	off, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136
	cmpq	%r11, \off(%rsp)
	setne	%bpl
	movzbl	%bpl, %ebp
	addq	%rbp, %rbx
	.endr
	movq	sc_nstack(%rip), %rcx		/* and the argument slots past the callee's own */
5:	cmpq	$8, %rcx
	jae	6f
	cmpq	%r11, (%rsp,%rcx,8)
	setne	%bpl
	movzbl	%bpl, %ebp
	addq	%rbp, %rbx
	incq	%rcx
	jmp	5b
6:
	movq	%rbx, sc_canary_hits(%rip)
	stmxcsr	sc_state+8(%rip)
	fnstcw	sc_state+12(%rip)
	fnstenv	sc_fenv(%rip)		/* the tag word (offset 8): 0xffff when the x87 stack is empty */
	movq	$0, sc_upper_dirty(%rip)
	cmpb	$0, sc_has_xinuse(%rip)
	je	2f
	movq	%rax, %r12
	movq	%rdx, %r13
	movl	$1, %ecx
	xgetbv				/* XINUSE: bit 2 is the upper YMM state */
	andl	$4, %eax
	movq	%rax, sc_upper_dirty(%rip)
	movq	%r12, %rax
	movq	%r13, %rdx
	vzeroupper
2:
	fninit				/* empties the x87 stack a candidate may have left */
	ldmxcsr	sc_state(%rip)
	fldcw	sc_state+4(%rip)
	movq	sc_saved+56(%rip), %rsp	/* back on the caller's stack */
	movq	sc_saved(%rip), %rbx
	movq	sc_saved+8(%rip), %rbp
	movq	sc_saved+16(%rip), %r12
	movq	sc_saved+24(%rip), %r13
	movq	sc_saved+32(%rip), %r14
	movq	sc_saved+40(%rip), %r15
	jmp	*sc_saved+48(%rip)
	.size	sc_tramp, .-sc_tramp

	.bss
	.p2align 4
	.globl	sc_sent, sc_after, sc_rsp_before, sc_rsp_after, sc_flags_after, sc_state, sc_target, sc_nonce, sc_done
	.globl	sc_saved, sc_junk, sc_canary_hits, sc_fenv, sc_upper_dirty, sc_has_avx, sc_has_xinuse, sc_nstack
	.globl	sc_stack_top
sc_sent:	.zero	48
sc_after:	.zero	48
sc_saved:	.zero	64
sc_stack_top:	.zero	8
sc_junk:	.zero	24
sc_rsp_before:	.zero	8
sc_rsp_after:	.zero	8
sc_flags_after:	.zero	8
sc_state:	.zero	16
sc_target:	.zero	8
sc_nonce:	.zero	8
sc_done:	.zero	8
sc_canary_hits:	.zero	8
sc_nstack:	.zero	8
sc_upper_dirty:	.zero	8
sc_fenv:	.zero	32
sc_has_avx:	.zero	1
sc_has_xinuse:	.zero	1
	.section	.note.GNU-stack,"",@progbits
