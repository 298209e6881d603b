/* SPDX-License-Identifier: GPL-2.0-only */
#include <string.h>
#include "events.h"

#if LAB_SIM
#include "wait.h"
struct lab_events lab_events_sim[SIM_MAX_TASKS];

__attribute__((constructor)) static void lab_events_sim_init(void)
{
	lab_sim_tls_register(lab_events_sim, sizeof(lab_events_sim[0]));
}
#else
__thread struct lab_events lab_events_tls;
#endif

const char *const lab_event_names[LAB_EV_NR] = {
#define LAB_EVENT(name) #name,
#include "events_list.h"
#undef LAB_EVENT
};

int lab_event_index(const char *name)
{
	for (int i = 0; i < LAB_EV_NR; i++)
		if (!strcmp(lab_event_names[i], name))
			return i;
	return -1;
}

void lab_events_reset(void)
{
	memset(&lab_events_tls, 0, sizeof(lab_events_tls));
}

void lab_events_snapshot(struct lab_events *out)
{
	*out = lab_events_tls;
}

void lab_events_accumulate(struct lab_events *acc, const struct lab_events *add)
{
	for (int i = 0; i < LAB_EV_NR; i++)
		acc->count[i] += add->count[i];
}
