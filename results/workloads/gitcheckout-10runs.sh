#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# results/workloads/gitcheckout-10runs.sh RWLAB OUTDIR [extra rwlab run options]
#
# Issue 12's gitcheckout run, 10 times in a row, each one process with every
# cell in sequence; prints per run the sum of errors and tree_mismatch over
# the real-lock cells (must be 0) and, when null is in the list, over null's
# cells (a lock without exclusion: anything goes there, it must not leak into
# the next cells). Short settings: -n 5 --warmup 0 on the default tree;
# WL=gitcheckout:checkout=parallel for the parallel checkout.
set -eu
rwlab=$1 out=$2
shift 2
mkdir -p "$out"
for i in 1 2 3 4 5 6 7 8 9 10; do
	"$rwlab" run -q --no-report -w "${WL:-gitcheckout}" -t 1,2 -n 5 --warmup 0 -o "$out/run$i.csv" "$@" >/dev/null
	awk -F, -v run="$i" 'NR > 1 && ($8 == "errors" || $8 == "tree_mismatch") {
			if ($4 == "null") n += $9; else r += $9; cells[$4 " t=" $6] = 1 }
		END { k = 0; for (c in cells) k++
			printf "run %d: %d cells, real-lock errors+tree_mismatch %d, null %d\n", run, k, r, n }' "$out/run$i.csv"
done
