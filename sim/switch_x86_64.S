/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/switch_x86_64.S - the engine's coroutine switch on x86-64 (SysV):
 * transfer_t sim_jump(fcontext_t to, void *data).
 *
 * The same frame as Boost.Context's jump_fcontext (make_fcontext builds the
 * first one; boost/context/asm/jump_x86_64_sysv_elf_gas.S, Boost 1.74): 0x38
 * bytes below the return address, the MXCSR and x87 control words at 0 and 4,
 * r12, r13, r14, r15, rbx, rbp at 8..0x30. Two differences, both for speed:
 *
 * - It resumes the other context with `ret`, not `jmp *%r8`. The call into
 *   the switch pushed a return-stack-buffer entry that the ret pops, so the
 *   RSB stays balanced across the switch; a task resumed at the same call
 *   site as the one leaving (a seam's hand-over: sim_mem -> sync_point ->
 *   sched_next -> here) then has its returns predicted. Boost's jmp left the
 *   RSB one entry off, and every return after a switch was mispredicted.
 * - It neither saves nor loads the control words (their slots at 0 and 4
 *   stay in the frame, unused): nothing the engine runs changes the rounding
 *   mode or exception masks (no fesetround, no fldcw, in the engine or the
 *   simulated program), so every context has the thread's. ldmxcsr and fldcw
 *   are slow microcoded instructions; stmxcsr and fnstcw, kept until
 *   2026-12-03 with nothing to read what they stored, cost 2.4 to 3.4 ns of a
 *   12 ns switch (a ping-pong of 2 x 10^7 switches, best of 5, on this
 *   2-CPU AMD EPYC guest under load).
 *
 * Returns the context it came from in rax and @data in rdx (transfer_t), and
 * the same in rdi/rsi for a context's first entry (make_fcontext's trampoline
 * passes them to the context function).
 */
	.text
	.globl	sim_jump
	.hidden	sim_jump
	.type	sim_jump, @function
	.align	16
sim_jump:
	leaq	-0x38(%rsp), %rsp
	movq	%r12, 0x8(%rsp)
	movq	%r13, 0x10(%rsp)
	movq	%r14, 0x18(%rsp)
	movq	%r15, 0x20(%rsp)
	movq	%rbx, 0x28(%rsp)
	movq	%rbp, 0x30(%rsp)
	movq	%rsp, %rax
	movq	%rdi, %rsp
	movq	0x8(%rsp), %r12
	movq	0x10(%rsp), %r13
	movq	0x18(%rsp), %r14
	movq	0x20(%rsp), %r15
	movq	0x28(%rsp), %rbx
	movq	0x30(%rsp), %rbp
	leaq	0x38(%rsp), %rsp
	movq	%rsi, %rdx
	movq	%rax, %rdi
	ret
	.size	sim_jump, .-sim_jump

	.section .note.GNU-stack, "", @progbits
