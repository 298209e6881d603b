/* SPDX-License-Identifier: GPL-2.0-only */
#include <hwloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler.h"
#include "topology.h"

#if LAB_SIM
/*
 * The simulated build places workers on the simulated machine's CPUs in
 * hwloc's logical order (cores in order, SMT siblings adjacent) and binds
 * them with the engine's pinning (a pinned task only ever runs there);
 * under cores, to the core's CPUs as will-it-scale binds to hwloc's core
 * cpuset (sim_pin_core: a wake-up picks an idle sibling).
 */
#include "sim.h"

static enum lab_pin planned = LAB_PIN_COMPACT;	/* the last plan's placement: how bind_self binds */

int lab_topology_init(void)
{
	return sim_machine()->ncpus;
}

void lab_topology_plan(enum lab_pin pin, int n, int *pu)
{
	const struct sim_machine *m = sim_machine();
	int np = m->ncpus, nc = np / m->smt;

	planned = pin;
	for (int i = 0; i < n; i++) {
		if (pin == LAB_PIN_NONE) {
			pu[i] = -1;
		} else if (pin == LAB_PIN_CORES) {
			pu[i] = sim_machine_logical(m, (i % nc) * m->smt + (i / nc) % m->smt);
		} else if (pin == LAB_PIN_COMPACT) {
			pu[i] = sim_machine_logical(m, i % np);
		} else {
			/* scatter: one thread per core first, round-robin over sockets then L3 domains */
			int k = i % np, thread = k / nc, j = k % nc, s = j % m->sockets, r = j / m->sockets;
			int l3 = r % m->l3_per_socket, c = r / m->l3_per_socket;
			int core = s * m->cores_per_socket + l3 * m->cores_per_l3 + c;

			if (core >= (s + 1) * m->cores_per_socket || l3 * m->cores_per_l3 + c >= m->cores_per_socket)
				core = s * m->cores_per_socket + (r % m->cores_per_socket);
			pu[i] = sim_machine_logical(m, core * m->smt + thread);
		}
	}
}

int lab_topology_bind_self(int pu)
{
	const struct sim_machine *m = sim_machine();
	struct sim_cpu_place p;

	if (pu < 0)
		return 0;
	if (planned != LAB_PIN_CORES || pu >= m->ncpus)
		return sim_pin(pu);
	sim_machine_place(m, pu, &p);
	return sim_pin_core(p.core);
}
#else

static hwloc_topology_t topo;
static int npus;
static pthread_once_t topo_once = PTHREAD_ONCE_INIT;

/*
 * The PUs this process may run on: hwloc's allowed ones (a cgroup cpuset)
 * within its CPU binding (taskset, sched_setaffinity), so that thread
 * defaults, placement and the load warning's CPU count stay inside a
 * `taskset -c 1`; binding a worker outside it would be allowed, but not
 * the machine the run was given.
 */
static void topo_load(void)
{
	if (hwloc_topology_init(&topo) ||
	    hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM |
					   HWLOC_TOPOLOGY_FLAG_RESTRICT_TO_CPUBINDING) ||
	    hwloc_topology_load(topo)) {
		npus = 0;
		return;
	}
	npus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
}

int lab_topology_init(void)
{
	pthread_once(&topo_once, topo_load);
	return npus;
}

#endif /* LAB_SIM */

int lab_pin_parse(const char *s, enum lab_pin *pin)
{
	if (!strcmp(s, "compact"))
		*pin = LAB_PIN_COMPACT;
	else if (!strcmp(s, "scatter"))
		*pin = LAB_PIN_SCATTER;
	else if (!strcmp(s, "none"))
		*pin = LAB_PIN_NONE;
#if LAB_SIM
	else if (!strcmp(s, "cores"))
		*pin = LAB_PIN_CORES;
#endif
	else
		return -1;
	return 0;
}

const char *lab_pin_name(enum lab_pin pin)
{
#if LAB_SIM
	if (pin == LAB_PIN_CORES)
		return "cores";
#endif
	return pin == LAB_PIN_COMPACT ? "compact" : pin == LAB_PIN_SCATTER ? "scatter" : "none";
}

#if !LAB_SIM

void lab_topology_plan(enum lab_pin pin, int n, int *pu)
{
	lab_topology_init();
	if (pin == LAB_PIN_NONE || npus <= 0) {
		for (int i = 0; i < n; i++)
			pu[i] = -1;
		return;
	}
	if (pin == LAB_PIN_COMPACT) {
		for (int i = 0; i < n; i++)
			pu[i] = i % npus;
		return;
	}
	/* scatter: distribute min(n, npus) sets over the whole machine, then wrap. */
	{
		int k = n < npus ? n : npus;
		hwloc_obj_t root = hwloc_get_root_obj(topo);
		hwloc_bitmap_t *sets = calloc((size_t)k, sizeof(*sets));

		if (!sets || hwloc_distrib(topo, &root, 1, sets, (unsigned)k, INT32_MAX, 0)) {
			for (int i = 0; i < n; i++)
				pu[i] = i % npus;
			free(sets);
			return;
		}
		for (int i = 0; i < n; i++) {
			hwloc_bitmap_t s = sets[i % k];
			hwloc_obj_t obj;

			hwloc_bitmap_singlify(s);
			obj = hwloc_get_pu_obj_by_os_index(topo, (unsigned)hwloc_bitmap_first(s));
			pu[i] = obj ? (int)obj->logical_index : i % npus;
		}
		for (int i = 0; i < k; i++)
			hwloc_bitmap_free(sets[i]);
		free(sets);
	}
}

int lab_topology_bind_self(int pu)
{
	hwloc_obj_t obj;

	if (pu < 0)
		return 0;
	obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)pu);
	if (!obj)
		return -1;
	return hwloc_set_cpubind(topo, obj->cpuset, HWLOC_CPUBIND_THREAD) ? -1 : 0;
}
#endif /* !LAB_SIM */
