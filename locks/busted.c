/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * busted - a deliberately broken rwsem: the negative control.
 *
 * Citation: the kernel's locktorture "lock_busted" ops (kernel/locking/
 * locktorture.c, v4.20..v6.18), which exist to prove the torture checks can
 * fail.
 *
 * Design summary:
 * - down_read waits while the writer flag is set, then counts itself in;
 * - down_write sets the writer flag and returns at once: it waits neither for
 *   readers already inside nor for another writer. So writers overlap each
 *   other and readers that entered before them;
 * - it claims LAB_CAP_EXCLUSION (it pretends to be a lock) and carries
 *   LAB_CAP_NOT_IN_ALL: "-l all" never runs it. Tests expect the stress
 *   checker to catch it.
 *
 * Lock word layout:
 *   readers: number of readers inside
 *   writer:  number of writers inside (it should never exceed 1, and does)
 */
#include "atomic.h"
#include "rwsem.h"

struct busted_rwsem {
	int readers;
	int writer;
};

static int busted_init(struct lab_rwsem *sem, const struct lab_rwsem_conf *conf)
{
	struct busted_rwsem *b = (struct busted_rwsem *)sem;

	(void)conf;
	b->readers = 0;
	b->writer = 0;
	return 0;
}

static void busted_down_read(struct lab_rwsem *sem)
{
	struct busted_rwsem *b = (struct busted_rwsem *)sem;

	while (smp_load_acquire(&b->writer))
		cpu_relax();
	atomic_fetch_add_acquire(&b->readers, 1);
}

static int busted_down_read_trylock(struct lab_rwsem *sem)
{
	struct busted_rwsem *b = (struct busted_rwsem *)sem;

	if (smp_load_acquire(&b->writer))
		return 0;
	atomic_fetch_add_acquire(&b->readers, 1);
	return 1;
}

static void busted_up_read(struct lab_rwsem *sem)
{
	atomic_fetch_sub_release(&((struct busted_rwsem *)sem)->readers, 1);
}

/* The bug: no wait for readers, no wait for the other writer. */
static void busted_down_write(struct lab_rwsem *sem)
{
	atomic_fetch_add_acquire(&((struct busted_rwsem *)sem)->writer, 1);
}

static int busted_down_write_trylock(struct lab_rwsem *sem)
{
	busted_down_write(sem);
	return 1;
}

static void busted_up_write(struct lab_rwsem *sem)
{
	atomic_fetch_sub_release(&((struct busted_rwsem *)sem)->writer, 1);
}

static void busted_downgrade_write(struct lab_rwsem *sem)
{
	struct busted_rwsem *b = (struct busted_rwsem *)sem;

	atomic_fetch_add_acquire(&b->readers, 1);
	atomic_fetch_sub_release(&b->writer, 1);
}

const struct lab_rwsem_ops lab_rwsem_busted_ops = {
	.name = "busted",
	.summary = "negative control: writers exclude neither readers nor each other",
	.cite = "kernel/locking/locktorture.c lock_busted (v4.20..v6.18)",
	.caps = LAB_CAP_SPINS | LAB_CAP_EXCLUSION | LAB_CAP_READ_TRYLOCK | LAB_CAP_WRITE_TRYLOCK |
		LAB_CAP_DOWNGRADE | LAB_CAP_NOT_IN_ALL,
	.size = sizeof(struct busted_rwsem),
	.align = _Alignof(struct busted_rwsem),
	.init = busted_init,
	.down_read = busted_down_read,
	.down_read_trylock = busted_down_read_trylock,
	.up_read = busted_up_read,
	.down_write = busted_down_write,
	.down_write_trylock = busted_down_write_trylock,
	.up_write = busted_up_write,
	.downgrade_write = busted_downgrade_write,
};
