/* SPDX-License-Identifier: MIT */
#include <hwloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

static hwloc_topology_t topo;
static int npus;
static pthread_once_t topo_once = PTHREAD_ONCE_INIT;

static void topo_load(void)
{
	if (hwloc_topology_init(&topo) || hwloc_topology_load(topo)) {
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

int lab_pin_parse(const char *s, enum lab_pin *pin)
{
	if (!strcmp(s, "compact"))
		*pin = LAB_PIN_COMPACT;
	else if (!strcmp(s, "scatter"))
		*pin = LAB_PIN_SCATTER;
	else if (!strcmp(s, "none"))
		*pin = LAB_PIN_NONE;
	else
		return -1;
	return 0;
}

const char *lab_pin_name(enum lab_pin pin)
{
	return pin == LAB_PIN_COMPACT ? "compact" : pin == LAB_PIN_SCATTER ? "scatter" : "none";
}

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
