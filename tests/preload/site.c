/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A lock made in a static function of an unstripped program: the preload
 * names its creation site from the program's own .symtab ("make_lock+0x..."),
 * which dladdr() cannot see (exec.sh). Also built -static where the build
 * allows it: a program rwlab exec must refuse (LD_PRELOAD cannot reach it).
 */
#include <pthread.h>
#include <stdio.h>

static pthread_rwlock_t lock;
static volatile int made;

/* Not inlined, and not a tail call (the store after it): a frame of its own. */
__attribute__((noinline)) static void make_lock(void)
{
	pthread_rwlock_init(&lock, NULL);
	made = 1;
}

int main(void)
{
	make_lock();
	for (int i = 0; i < 100; i++) {
		pthread_rwlock_rdlock(&lock);
		pthread_rwlock_unlock(&lock);
	}
	printf("ok\n");
	return 0;
}
