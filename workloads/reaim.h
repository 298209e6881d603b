/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * workloads/reaim.h - the re-aim-7 job list arithmetic, exposed for tests.
 * Source: docs/workloads.md §2.b (davidlohr/areaim osdl-aim-7 driver.c).
 */
#pragma once

#define LAB_REAIM_WORKFILES "compute|new_dbase|shared"

struct lab_reaim_count {
	const char *test;
	int hits;
	int count;		/* entries in the job list */
};

/*
 * lab_reaim_job_counts() - the job list of workfile @wf (0 compute,
 * 1 new_dbase, 2 shared) for reaim -j @jobs: each test gets round(hits /
 * total * jobs) entries, at least 1 (tests mmtests excludes, signal_test,
 * are left out before the total is taken). Fills up to @max entries of @out
 * and returns the number of tests; *@per_child = jobs per child (their sum).
 */
int lab_reaim_job_counts(int wf, int jobs, struct lab_reaim_count *out, int max, int *per_child);

/*
 * The tasks that only compute, for rwlab-work-cost (tools/bench/work_cost.c):
 * lab_reaim_work_task() gives the @i-th one's name and units per call and
 * returns its task index (-1 past the last); lab_reaim_work_call() runs that
 * task once natively on a scratch child (0 or -errno).
 */
int lab_reaim_work_task(int i, const char **name, double *units);
int lab_reaim_work_call(int t);
