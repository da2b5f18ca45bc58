/* Checking thunk: stands for @FN@ in a program under test, on every call the
 * program makes, and calls the candidate (renamed sc_impl_@FN@) in its place.
 * Before the call it records the callee-saved registers, %rsp, MXCSR and the
 * x87 control word in a frame of its own (a shadow stack, so recursion works);
 * after it, anything the candidate did not restore, or a direction flag left
 * set, ends the program with a line on stderr and exit status @EXIT@ (SC_EXIT_THUNK_ABI).  Only %r10
 * and %r11 are used: no argument or result register is touched. */
	.text
	.globl	@FN@
	.type	@FN@, @function
@FN@:
	movq	sc_thunk_depth(%rip), %r11
	cmpq	$4096, %r11
	jae	.Lsc_deep
	shlq	$7, %r11
	leaq	sc_thunk_frames(%rip), %r10
	addq	%r10, %r11
	movq	%rbx, 0(%r11)
	movq	%rbp, 8(%r11)
	movq	%r12, 16(%r11)
	movq	%r13, 24(%r11)
	movq	%r14, 32(%r11)
	movq	%r15, 40(%r11)
	popq	%r10
	movq	%r10, 48(%r11)		/* the caller's return address */
	movq	%rsp, 56(%r11)
	stmxcsr	64(%r11)
	fnstcw	68(%r11)
	addq	$1, sc_thunk_depth(%rip)
	call	sc_impl_@FN@
	subq	$1, sc_thunk_depth(%rip)
	movq	sc_thunk_depth(%rip), %r11
	shlq	$7, %r11
	leaq	sc_thunk_frames(%rip), %r10
	addq	%r10, %r11
	cmpq	%rsp, 56(%r11)
	jne	.Lsc_rsp
	cmpq	%rbx, 0(%r11)
	jne	.Lsc_rbx
	cmpq	%rbp, 8(%r11)
	jne	.Lsc_rbp
	cmpq	%r12, 16(%r11)
	jne	.Lsc_r12
	cmpq	%r13, 24(%r11)
	jne	.Lsc_r13
	cmpq	%r14, 32(%r11)
	jne	.Lsc_r14
	cmpq	%r15, 40(%r11)
	jne	.Lsc_r15
	stmxcsr	72(%r11)
	movl	72(%r11), %r10d
	xorl	64(%r11), %r10d
	testl	$0xffc0, %r10d		/* control bits only; the status flags may change */
	jne	.Lsc_mxcsr
	fnstcw	76(%r11)
	movzwl	76(%r11), %r10d
	cmpw	68(%r11), %r10w
	jne	.Lsc_fcw
	pushfq
	popq	%r10
	testq	$0x400, %r10
	jne	.Lsc_df
	jmp	*48(%r11)
	.irp	what, rsp, rbx, rbp, r12, r13, r14, r15, mxcsr, fcw, df, deep
.Lsc_\what:
	leaq	.Lsc_msg_\what(%rip), %rsi
	movl	$.Lsc_end_\what - .Lsc_msg_\what, %edx
	jmp	.Lsc_die
	.endr
.Lsc_die:
	movl	$2, %edi
	movl	$1, %eax		/* write(2, message, length) */
	syscall
	movl	$@EXIT@, %edi
	movl	$231, %eax		/* exit_group(86) */
	syscall
	hlt
	.size	@FN@, .-@FN@

	.section	.rodata
.Lsc_msg_rsp:	.ascii	"supercoder: abi-violation: %rsp not restored by @FN@\n"
.Lsc_end_rsp:
.Lsc_msg_rbx:	.ascii	"supercoder: abi-violation: callee-saved %rbx not preserved by @FN@\n"
.Lsc_end_rbx:
.Lsc_msg_rbp:	.ascii	"supercoder: abi-violation: callee-saved %rbp not preserved by @FN@\n"
.Lsc_end_rbp:
.Lsc_msg_r12:	.ascii	"supercoder: abi-violation: callee-saved %r12 not preserved by @FN@\n"
.Lsc_end_r12:
.Lsc_msg_r13:	.ascii	"supercoder: abi-violation: callee-saved %r13 not preserved by @FN@\n"
.Lsc_end_r13:
.Lsc_msg_r14:	.ascii	"supercoder: abi-violation: callee-saved %r14 not preserved by @FN@\n"
.Lsc_end_r14:
.Lsc_msg_r15:	.ascii	"supercoder: abi-violation: callee-saved %r15 not preserved by @FN@\n"
.Lsc_end_r15:
.Lsc_msg_mxcsr:	.ascii	"supercoder: abi-violation: MXCSR changed by @FN@\n"
.Lsc_end_mxcsr:
.Lsc_msg_fcw:	.ascii	"supercoder: abi-violation: x87 control word changed by @FN@\n"
.Lsc_end_fcw:
.Lsc_msg_df:	.ascii	"supercoder: abi-violation: direction flag left set by @FN@\n"
.Lsc_end_df:
.Lsc_msg_deep:	.ascii	"supercoder: calls of @FN@ nested over 4096 deep\n"
.Lsc_end_deep:
.Lsc_msg_align:	.ascii	"supercoder: abi-violation: @FN@ called a library function with a misaligned stack\n"
.Lsc_end_align:

	.bss
	.p2align 6
sc_thunk_depth:	.zero	8
sc_thunk_frames:	.zero	4096 * 128

	.text
/* Stack-alignment checks for the candidate's calls to library functions:
 * at a call, %rsp + 8 must be a multiple of 16. */
.Lsc_align:
	leaq	.Lsc_msg_align(%rip), %rsi
	movl	$.Lsc_end_align - .Lsc_msg_align, %edx
	jmp	.Lsc_die
@STUBS@
	.section	.note.GNU-stack,"",@progbits
