#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Regression: pft's per-thread slices were calloc()ed, but struct pft_slice
# is cache-line aligned (64 bytes) and calloc() only promises 16: every
# access to a slice was misaligned, undefined behaviour that UBSan reported
# at workloads/pft.c ("member access within misaligned address ... which
# requires 64 byte alignment"). Found by the address,undefined build running
# a pft cell; fixed with aligned_alloc(). The check that matters runs in that
# build (.ci/run, --setup sanitize, where UBSan aborts on the first report).
# Whether calloc() happens to return a 64-byte aligned block depends on the
# heap's history, so this runs the matrix that showed it (every variant, 1
# and 2 threads: the later cells got misaligned blocks). In every build it
# also checks that the cells ran and reported pft's headline metrics.
# Usage: pft_slice_alignment.sh RWLAB
set -u
rwlab=$1
csv=${TMPDIR:-/tmp}/rwlab-pft-align.$$.csv
trap 'rm -f "$csv"' EXIT
"$rwlab" run -w pft:size_mb=4 -l all -t 1,2 -n 1 --warmup 0 -o "$csv" -q --no-report
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: the pft cell exited $rc"; exit 1; }
for m in faults/cpu faults/sec; do
	grep -q ",$m," "$csv" || { echo "FAIL: no $m row"; exit 1; }
done
cells=$(grep -c ',faults/sec,' "$csv")
want=$(( $("$rwlab" list --names | grep -c '^variant ') - $("$rwlab" list --names | grep -c '^variant busted$') ))
[ "$cells" -eq $((2 * want)) ] || { echo "FAIL: $cells pft cells, want $((2 * want))"; exit 1; }
echo "pft ran clean in $cells cells"
