/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-thread latency histograms (log-linear, HdrHistogram-like): values
 * below 16 ns get a bucket each; above, every power of two is split into 8
 * buckets, so a percentile is known to within 12.5%. The maximum is kept
 * exactly. One histogram belongs to one thread; merge after the threads end.
 * Units: nanoseconds.
 */
#pragma once

#include <stdint.h>
#include <string.h>

#define LAB_HIST_BUCKETS 384

struct lab_hist {
	uint64_t count;
	uint64_t max;
	uint64_t bucket[LAB_HIST_BUCKETS];
};

static inline unsigned lab_hist_index(uint64_t v)
{
	unsigned k;

	if (v < 16)
		return (unsigned)v;
	k = 63u - (unsigned)__builtin_clzll(v);		/* floor(log2 v) >= 4 */
	return 16 + (k - 4) * 8 + (unsigned)((v >> (k - 3)) & 7);
}

static inline void lab_hist_reset(struct lab_hist *h)
{
	memset(h, 0, sizeof(*h));
}

static inline void lab_hist_add(struct lab_hist *h, uint64_t v)
{
	unsigned i = lab_hist_index(v);

	h->bucket[i < LAB_HIST_BUCKETS ? i : LAB_HIST_BUCKETS - 1]++;
	h->count++;
	if (v > h->max)
		h->max = v;
}

/* @acc += @h */
void lab_hist_merge(struct lab_hist *acc, const struct lab_hist *h);

/*
 * Value at quantile @q (0 < q <= 1): the upper edge of the bucket holding
 * the ceil(q * count)-th smallest value, capped at the exact maximum.
 * Returns 0 for an empty histogram.
 */
uint64_t lab_hist_quantile(const struct lab_hist *h, double q);
