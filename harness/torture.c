/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "torture.h"
#include "wait.h"

struct torture_shared {
	struct lab_lock lock;
	int write_held;
	int read_held;
	uint32_t stop;
	uint32_t go;
	const struct lab_torture_opts *o;
};

struct torture_thread {
	struct torture_shared *sh;
	bool writer;
	uint64_t acquired, fail, downgrades, trylock_fail;
	uint64_t rng;
} __lab_cacheline_aligned;

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void check_read(struct torture_thread *t)
{
	struct torture_shared *sh = t->sh;

	atomic_fetch_add(&sh->read_held, 1);
	if (READ_ONCE(sh->write_held))
		t->fail++;
	lab_delay(sh->o->hold_loops);
	if (READ_ONCE(sh->write_held))
		t->fail++;
	atomic_fetch_sub(&sh->read_held, 1);
}

static void *torture_main(void *arg)
{
	struct torture_thread *t = arg;
	struct torture_shared *sh = t->sh;
	const struct lab_torture_opts *o = sh->o;
	const struct lab_rwsem_ops *ops = sh->lock.ops;

	lab_current();
	while (!smp_load_acquire(&sh->go))
		lab_futex_wait(&sh->go, 0, -1);
	while (!READ_ONCE(sh->stop)) {
		uint64_t r = xorshift(&t->rng);

		if (t->writer) {
			if (o->trylock && ops->down_write_trylock && (r & 7) == 0) {
				if (!lab_down_write_trylock(&sh->lock)) {
					t->trylock_fail++;
					lab_delay(o->think_loops);
					continue;
				}
			} else {
				lab_down_write(&sh->lock);
			}
			if (atomic_xchg(&sh->write_held, 1) != 0)
				t->fail++;
			if (READ_ONCE(sh->read_held) != 0)
				t->fail++;
			lab_delay(o->hold_loops);
			if (READ_ONCE(sh->read_held) != 0)
				t->fail++;
			t->acquired++;
			if (o->downgrade && ops->downgrade_write && ((r >> 3) & 3) == 0) {
				/* Clear write_held first: readers may enter once we downgrade. */
				atomic_xchg(&sh->write_held, 0);
				atomic_fetch_add(&sh->read_held, 1);
				lab_downgrade_write(&sh->lock);
				if (READ_ONCE(sh->write_held))
					t->fail++;
				lab_delay(o->hold_loops);
				if (READ_ONCE(sh->write_held))
					t->fail++;
				atomic_fetch_sub(&sh->read_held, 1);
				lab_up_read(&sh->lock);
				t->downgrades++;
			} else {
				atomic_xchg(&sh->write_held, 0);
				lab_up_write(&sh->lock);
			}
		} else {
			if (o->trylock && ops->down_read_trylock && (r & 7) == 0) {
				if (!lab_down_read_trylock(&sh->lock)) {
					t->trylock_fail++;
					lab_delay(o->think_loops);
					continue;
				}
			} else {
				lab_down_read(&sh->lock);
			}
			check_read(t);
			t->acquired++;
			lab_up_read(&sh->lock);
		}
		lab_delay(o->think_loops);
	}
	return NULL;
}

int lab_torture_run(const struct lab_torture_opts *o, struct lab_torture_result *res)
{
	int n = o->readers + o->writers, created = 0, r;
	struct torture_shared *sh = aligned_alloc(LAB_CACHELINE, LAB_CACHELINE * 2);
	struct torture_thread *th = aligned_alloc(LAB_CACHELINE, (size_t)(n ? n : 1) * sizeof(*th));
	pthread_t *tid = calloc((size_t)(n ? n : 1), sizeof(*tid));

	memset(res, 0, sizeof(*res));
	if (!sh || !th || !tid) {
		r = -ENOMEM;
		goto out;
	}
	memset(sh, 0, sizeof(*sh));
	sh->o = o;
	r = lab_lock_init(&sh->lock, o->lock);
	if (r)
		goto out;
	for (int i = 0; i < n; i++) {
		memset(&th[i], 0, sizeof(th[i]));
		th[i].sh = sh;
		th[i].writer = i < o->writers;
		th[i].rng = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
		if (pthread_create(&tid[i], NULL, torture_main, &th[i])) {
			r = -errno;
			break;
		}
		created++;
	}
	smp_store_release(&sh->go, 1);
	lab_futex_wake(&sh->go, n);
	if (!r)
		lab_sleep_ns(o->duration_ns);
	WRITE_ONCE(sh->stop, 1);
	for (int i = 0; i < created; i++)
		pthread_join(tid[i], NULL);
	lab_lock_destroy(&sh->lock);

	res->rd_min = res->wr_min = UINT64_MAX;
	for (int i = 0; i < created; i++) {
		struct torture_thread *t = &th[i];
		uint64_t *tot = t->writer ? &res->wr_total : &res->rd_total;
		uint64_t *mn = t->writer ? &res->wr_min : &res->rd_min;
		uint64_t *mx = t->writer ? &res->wr_max : &res->rd_max;

		*tot += t->acquired;
		*mn = t->acquired < *mn ? t->acquired : *mn;
		*mx = t->acquired > *mx ? t->acquired : *mx;
		*(t->writer ? &res->wr_fail : &res->rd_fail) += t->fail;
		res->downgrades += t->downgrades;
		res->trylock_fail += t->trylock_fail;
	}
	if (res->rd_min == UINT64_MAX)
		res->rd_min = 0;
	if (res->wr_min == UINT64_MAX)
		res->wr_min = 0;
out:
	free(sh);
	free(th);
	free(tid);
	return r;
}
