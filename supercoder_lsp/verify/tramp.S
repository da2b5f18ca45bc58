/* ABI-checking trampoline.
 *
 * sc_tramp is called with the argument registers of the function under test
 * and forwards them untouched to *sc_target.  Before the call it loads
 * sentinels into every callee-saved register and records MXCSR and the x87
 * control word; after the call it records rsp, the callee-saved registers,
 * RFLAGS (for the direction flag), MXCSR and the x87 control word, repairs
 * all of them, and returns rax/rdx/xmm0/xmm1 untouched.  The C harness then
 * compares the records with what the ABI requires.
 */
	.text
	.globl	sc_tramp
	.type	sc_tramp, @function
sc_tramp:
	pushq	%rbx
	pushq	%rbp
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	subq	$8, %rsp
	stmxcsr	sc_state(%rip)
	fnstcw	sc_state+4(%rip)
	movq	sc_sent(%rip), %rbx
	movq	sc_sent+8(%rip), %rbp
	movq	sc_sent+16(%rip), %r12
	movq	sc_sent+24(%rip), %r13
	movq	sc_sent+32(%rip), %r14
	movq	sc_sent+40(%rip), %r15
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
	stmxcsr	sc_state+8(%rip)
	fnstcw	sc_state+12(%rip)
	ldmxcsr	sc_state(%rip)
	fldcw	sc_state+4(%rip)
	addq	$8, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbp
	popq	%rbx
	ret
	.size	sc_tramp, .-sc_tramp

	.bss
	.p2align 4
	.globl	sc_sent, sc_after, sc_rsp_before, sc_rsp_after, sc_flags_after, sc_state, sc_target, sc_nonce, sc_done
sc_sent:	.zero	48
sc_after:	.zero	48
sc_rsp_before:	.zero	8
sc_rsp_after:	.zero	8
sc_flags_after:	.zero	8
sc_state:	.zero	16
sc_target:	.zero	8
sc_nonce:	.zero	8
sc_done:	.zero	8
	.section	.note.GNU-stack,"",@progbits
