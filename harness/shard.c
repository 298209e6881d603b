/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "runner.h"
#include "shard.h"

int lab_shard_parse(const char *s, struct lab_shard *sh, char *err, size_t errlen)
{
	const char *arg = s;
	char *end;
	long i, n;

	errno = 0;
	i = strtol(s, &end, 10);
	if (end == s || *end != '/' || errno)
		goto bad;
	s = end + 1;
	n = strtol(s, &end, 10);
	if (end == s || *end || errno || i < 1 || n < 1 || i > n || n > 100000)
		goto bad;
	sh->index = (int)i;
	sh->count = (int)n;
	return 0;
bad:
	snprintf(err, errlen, "bad --shard '%s' (I/N with 1 <= I <= N, e.g. 2/4)", arg);
	return -1;
}

static int nvariants(const struct lab_run_opts *o, int wi)
{
	return o->wls[wi].ops->uses_lazy_mm ? o->nlazy : o->nlocks;
}

bool lab_plan_runs(const struct lab_run_opts *o, int wi, int vi)
{
	const struct lab_workload_conf *wl = &o->wls[wi];

	return wl->ops->uses_lazy_mm || !wl->ops->needs_exclusion || (o->locks[vi].ops->caps & LAB_CAP_EXCLUSION);
}

static const char *variant(const struct lab_run_opts *o, int wi, int li)
{
	return o->wls[wi].ops->uses_lazy_mm ? o->lazy[li].label : o->locks[li].label;
}

int lab_plan_nblocks(const struct lab_run_opts *o)
{
	return o->nwls * o->nthreads;
}

bool lab_shard_has_block(const struct lab_run_opts *o, int wi, int ti)
{
	int block = wi * o->nthreads + ti;	/* 0-based */

	return !o->shard.count || block % o->shard.count == o->shard.index - 1;
}

int lab_plan_ncells(const struct lab_run_opts *o, bool shard_only)
{
	int n = 0;

	for (int wi = 0; wi < o->nwls; wi++)
		for (int ti = 0; ti < o->nthreads; ti++)
			for (int li = 0; li < nvariants(o, wi) && (!shard_only || lab_shard_has_block(o, wi, ti)); li++)
				n += lab_plan_runs(o, wi, li);
	return n;
}

int lab_shard_check(const struct lab_run_opts *o, char *err, size_t errlen)
{
	int nb = lab_plan_nblocks(o);

	if (o->shard.count > nb) {
		snprintf(err, errlen, "--shard %d/%d: the plan has only %d comparison block%s (workload x thread "
			 "count), so shard counts above %d leave shards empty (valid: N <= %d)",
			 o->shard.index, o->shard.count, nb, nb == 1 ? "" : "s", nb, nb);
		return -1;
	}
	return 0;
}

int lab_plan_list(FILE *f, const struct lab_run_opts *o)
{
	fprintf(f, "# id shard workload threads variant\n");
	for (int wi = 0; wi < o->nwls; wi++)
		for (int ti = 0; ti < o->nthreads; ti++) {
			int block = wi * o->nthreads + ti + 1;
			char shard[32] = "-";

			if (!lab_shard_has_block(o, wi, ti))
				continue;
			if (o->shard.count)
				snprintf(shard, sizeof(shard), "%d/%d", (block - 1) % o->shard.count + 1,
					 o->shard.count);
			for (int li = 0; li < nvariants(o, wi); li++)
				if (lab_plan_runs(o, wi, li))
					fprintf(f, "%d.%d %s %s %d %s\n", block, li + 1, shard, o->wls[wi].label,
					o->threads[ti], variant(o, wi, li));
		}
	return 0;
}

/* FNV-1a, 64 bits. */
static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (h ^ 0xff) * 0x100000001b3ull;	/* a field separator */
}

void lab_plan_context(struct lab_context *ctx, const struct lab_run_opts *o)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (int wi = 0; wi < o->nwls; wi++)
		for (int ti = 0; ti < o->nthreads; ti++)
			for (int li = 0; li < nvariants(o, wi); li++) {
				char t[16];

				if (!lab_plan_runs(o, wi, li))
					continue;

				snprintf(t, sizeof(t), "%d", o->threads[ti]);
				h = fnv(fnv(fnv(h, o->wls[wi].label), t), variant(o, wi, li));
			}
	if (o->shard.count)
		snprintf(ctx->shard, sizeof(ctx->shard), "%d/%d", o->shard.index, o->shard.count);
	else
		ctx->shard[0] = 0;
	snprintf(ctx->plan, sizeof(ctx->plan), "fp=%016" PRIx64 " cells=%d blocks=%d", h, lab_plan_ncells(o, false),
		 lab_plan_nblocks(o));
}
