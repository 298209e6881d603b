/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/events.h - lock event counters (the kernel's CONFIG_LOCK_EVENT_COUNTS).
 *
 * The list lives in events_list.h. Counters are per thread (thread-local and
 * cache-line aligned, so they never share a line with another thread's), are
 * incremented without atomics, and compile to nothing when rwlab is built with
 * -Devent_counts=false (LAB_EVENT_COUNTS == 0). The harness resets them when a
 * measurement window opens and each worker snapshots its own at the end; the
 * sum over workers becomes the CSV metrics event.<name>.
 *
 * Threading: lockevent_*() touch only the calling thread's counters.
 * Source: kernel/locking/lock_events.h (v5.3+) for the names and semantics.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include "compiler.h"
#include "config.h"

enum lab_event {
#define LAB_EVENT(name) LAB_EV_##name,
#include "events_list.h"
#undef LAB_EVENT
	LAB_EV_NR
};

struct lab_events {
	uint64_t count[LAB_EV_NR];
} __lab_cacheline_aligned;

#if LAB_SIM
#include "sim.h"
extern struct lab_events lab_events_sim[];	/* per simulated task (locks/wait.h) */
#define lab_events_tls (lab_events_sim[sim_cur_id])
#else
extern __thread struct lab_events lab_events_tls;
#endif
extern const char *const lab_event_names[LAB_EV_NR];

#if LAB_EVENT_COUNTS
#define lockevent_add(ev, n)	(lab_events_tls.count[LAB_EV_##ev] += (uint64_t)(n))
#else
#define lockevent_add(ev, n)	((void)0)
#endif
#define lockevent_inc(ev)		lockevent_add(ev, 1)
#define lockevent_cond_inc(ev, c)	do { if (c) lockevent_inc(ev); } while (0)

/*
 * Which events a lock variant or lazy-mm scheme counts: those its kernel
 * version's lock_events_list.h defines and its port fires, and the rwlab
 * events it fires (README.md, "Lock events"). Its ops declare them as
 * .events = LAB_EVENTS(LAB_EV_a, LAB_EV_b, ...) (NULL: none). `rwlab run`
 * writes rows for these alone, and readers show an event outside the set
 * as not counted, never as a 0: a 0 is a counter that stayed at 0.
 */
#define LAB_EVENTS(...) ((const enum lab_event[]){ __VA_ARGS__, LAB_EV_NR })

struct lab_event_set {
	bool has[LAB_EV_NR];
};

/* Add the LAB_EV_NR-terminated @list (NULL: none) to @set. */
static inline void lab_event_set_add(struct lab_event_set *set, const enum lab_event *list)
{
	for (; list && *list != LAB_EV_NR; list++)
		set->has[*list] = true;
}

/* The event named @name (without "event."), or -1. */
int lab_event_index(const char *name);

struct lab_rwsem_conf;
struct lab_lazy_mm_conf;
/*
 * The events a lock built from @conf counts (locks/event_sets.c): its
 * variant's, and those of a variant it wraps through a lock knob (bravo's
 * base); lab_lazy_mm_conf_events() the same for a lazy-mm scheme. @set is
 * cleared first.
 */
void lab_rwsem_conf_events(const struct lab_rwsem_conf *conf, struct lab_event_set *set);
void lab_lazy_mm_conf_events(const struct lab_lazy_mm_conf *conf, struct lab_event_set *set);
/*
 * lab_event_set_of_label() - the events of the CSV variant label @label: a
 * lock variant's ("rwsem", "bravo:base=rwsem-xadd") or a lazy-mm scheme's.
 * Returns 0, or -1 (@set cleared) when the label names neither: a reader
 * cannot tell which events such a column counts.
 */
int lab_event_set_of_label(const char *label, struct lab_event_set *set);

/* Zero the calling thread's counters. */
void lab_events_reset(void);
/* Copy the calling thread's counters to @out. */
void lab_events_snapshot(struct lab_events *out);
/* @acc += @add, element-wise. */
void lab_events_accumulate(struct lab_events *acc, const struct lab_events *add);
