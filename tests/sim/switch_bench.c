/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cost of one coroutine switch: Boost.Context's jump_fcontext (what the
 * engine uses) against glibc's swapcontext (which saves and restores the
 * signal mask with a system call). Prints ns per switch, best of 5, CPU time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <ucontext.h>

typedef void *fcontext_t;
typedef struct {
	fcontext_t fctx;
	void *data;
} transfer_t;
extern transfer_t jump_fcontext(fcontext_t const to, void *vp);
extern fcontext_t make_fcontext(void *sp, size_t size, void (*fn)(transfer_t));

#define N 2000000

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void fc_entry(transfer_t t)
{
	for (;;)
		t = jump_fcontext(t.fctx, NULL);
}

static ucontext_t uc_main, uc_co;

static void uc_entry(void)
{
	for (;;)
		swapcontext(&uc_co, &uc_main);
}

int main(void)
{
	static char st1[65536], st2[65536];
	volatile double best_fc = 1e30, best_uc = 1e30;	/* live across getcontext() */
	fcontext_t co = make_fcontext(st1 + sizeof(st1), sizeof(st1), fc_entry);

	getcontext(&uc_co);
	uc_co.uc_stack.ss_sp = st2;
	uc_co.uc_stack.ss_size = sizeof(st2);
	uc_co.uc_link = NULL;
	makecontext(&uc_co, uc_entry, 0);
	for (int rep = 0; rep < 5; rep++) {
		double t0 = cpu_ns(), d;

		for (int i = 0; i < N; i++)
			co = jump_fcontext(co, NULL).fctx;
		d = (cpu_ns() - t0) / (2.0 * N);
		best_fc = d < best_fc ? d : best_fc;
		t0 = cpu_ns();
		for (int i = 0; i < N / 10; i++)
			swapcontext(&uc_main, &uc_co);
		d = (cpu_ns() - t0) / (2.0 * N / 10);
		best_uc = d < best_uc ? d : best_uc;
	}
	printf("coroutine switch: jump_fcontext %.1f ns, swapcontext %.1f ns (CPU time per switch, best of 5)\n",
	       best_fc, best_uc);
	return 0;
}
