/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * workloads/gitcheckout.h - gitcheckout's inflate routine, exposed for
 * rwlab-work-cost (tools/bench/work_cost.c), which measures its cost per
 * output byte for the machine files' cost.work.gitcheckout.inflate_ns; and
 * its --repo and --commits checks, which run makes before any cell.
 */
#pragma once
#include <stddef.h>
#include <stdint.h>

/* Inflate @outlen bytes into @out (16 KiB at least) from @src (@inlen bytes), as a checkout does. */
uint32_t lab_gc_inflate_bench(uint8_t *out, const uint8_t *src, size_t inlen, size_t outlen);

/*
 * --repo @repo is a git repository's directory with, when --commits is not given (@commits NULL), the two
 * commits the cell takes by default, each with a file to check out: 0, or -1 with a one-line why in @err.
 */
int lab_gc_check_repo(const char *repo, const char *commits, char *err, size_t errlen);
/*
 * --commits @commits names two or more items, each a manifest file, a commit or tree of --repo @repo (any
 * tree-ish: HEAD~1, HEAD:Documentation) or, without it (@repo NULL), a shipped release, and each with a file
 * to check out, read as the cell reads it: 0, or -1 with a one-line why in @err.
 */
int lab_gc_check_commits(const char *repo, const char *commits, char *err, size_t errlen);
