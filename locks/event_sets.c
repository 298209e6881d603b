/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which lock events a lock or lazy-mm scheme counts (events.h): from the
 * ops' event lists, for the runner (the rows it writes) and for the readers
 * of a CSV (by the variant label).
 */
#include <string.h>

#include "events.h"
#include "lazy_mm.h"
#include "plugin.h"
#include "rwsem.h"

void lab_rwsem_conf_events(const struct lab_rwsem_conf *conf, struct lab_event_set *set)
{
	const struct lab_knob *k = conf->ops->knobs;

	memset(set, 0, sizeof(*set));
	lab_event_set_add(set, conf->ops->events);
	for (size_t i = 0; k && k[i].name; i++)
		if (k[i].type == LAB_KNOB_LOCK)
			lab_event_set_add(set, lab_rwsem_by_index((int)conf->knob[i])->events);
}

void lab_lazy_mm_conf_events(const struct lab_lazy_mm_conf *conf, struct lab_event_set *set)
{
	memset(set, 0, sizeof(*set));
	lab_event_set_add(set, conf->ops->events);
}

int lab_event_set_of_label(const char *label, struct lab_event_set *set)
{
	struct lab_lazy_mm_conf lazy;
	struct lab_spec s;
	char err[512];

	/* The registry's own parse: the simulated build's refusal of a variant is not the label's. */
	if (!lab_registry_parse(&lab_rwsem_registry, label, &s, err, sizeof(err))) {
		struct lab_rwsem_conf conf = { .ops = lab_rwsem_by_index(s.idx) };

		memcpy(conf.knob, s.knob, sizeof(conf.knob));
		lab_rwsem_conf_events(&conf, set);
		return 0;
	}
	if (!lab_lazy_mm_parse(label, &lazy, err, sizeof(err))) {
		lab_lazy_mm_conf_events(&lazy, set);
		return 0;
	}
	memset(set, 0, sizeof(*set));
	return -1;
}
