/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Thread placement through hwloc.
 *   compact: worker i on PU i (logical order), wrapping when i >= PUs;
 *   scatter: workers spread as far apart as the topology allows (packages,
 *            then cores, then SMT siblings) with hwloc_distrib;
 *   none:    no binding (results get a warning).
 */
#pragma once

/*
 * LAB_PIN_CORES (simulated build only, --pin cores): worker i on core i % ncores
 * in the machine's logical core order, started on its first SMT thread (its
 * second from ncores workers on) and bound to the core's CPUs: will-it-scale's
 * placement of task i on core i's hwloc cpuset (its threads, the partner a
 * worker creates included, may run on either sibling).
 */
enum lab_pin { LAB_PIN_COMPACT, LAB_PIN_SCATTER, LAB_PIN_NONE, LAB_PIN_CORES };

/* Parse "compact|scatter|none" (and "cores" in the simulated build). Returns 0 or -1. */
int lab_pin_parse(const char *s, enum lab_pin *pin);
const char *lab_pin_name(enum lab_pin pin);

/* Load the topology once. Returns the number of PUs the process may use. */
int lab_topology_init(void);

/*
 * lab_topology_plan() - choose the PU of each of @n workers under @pin.
 * Writes hwloc logical PU indices to @pu (-1 for none).
 */
void lab_topology_plan(enum lab_pin pin, int n, int *pu);

/* Bind the calling thread to logical PU @pu (no-op for -1). Returns 0 or -1. */
int lab_topology_bind_self(int pu);
