/* SPDX-License-Identifier: GPL-2.0-only */
#include <math.h>

#include "latency.h"

void lab_hist_merge(struct lab_hist *acc, const struct lab_hist *h)
{
	for (int i = 0; i < LAB_HIST_BUCKETS; i++)
		acc->bucket[i] += h->bucket[i];
	acc->count += h->count;
	if (h->max > acc->max)
		acc->max = h->max;
}

/* Largest value that lands in bucket @i. */
static uint64_t bucket_upper(unsigned i)
{
	unsigned k, sub;

	if (i < 16)
		return i;
	k = (i - 16) / 8 + 4;
	sub = (i - 16) % 8;
	return ((8ull + sub + 1) << (k - 3)) - 1;
}

uint64_t lab_hist_quantile(const struct lab_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < LAB_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			uint64_t u = bucket_upper(i);

			return u < h->max ? u : h->max;
		}
	}
	return h->max;
}
