/* SPDX-License-Identifier: MIT */
/* One liburcu registration per thread: see rcu.h. */
#include <pthread.h>
#include <stdlib.h>
#include <urcu/urcu-memb.h>

#include "rcu.h"

__thread bool lab_rcu_registered;
static pthread_key_t lab_rcu_key;
static pthread_once_t lab_rcu_once = PTHREAD_ONCE_INIT;

static void lab_rcu_thread_exit(void *arg)
{
	(void)arg;
	if (lab_rcu_registered) {
		urcu_memb_unregister_thread();
		lab_rcu_registered = false;
	}
}

static void lab_rcu_key_init(void)
{
	if (pthread_key_create(&lab_rcu_key, lab_rcu_thread_exit))
		abort();
}

void lab_rcu_thread_register(void)
{
	pthread_once(&lab_rcu_once, lab_rcu_key_init);
	urcu_memb_register_thread();
	lab_rcu_registered = true;
	/* Any non-NULL value: the destructor unregisters the thread when it exits. */
	pthread_setspecific(lab_rcu_key, &lab_rcu_registered);
}
