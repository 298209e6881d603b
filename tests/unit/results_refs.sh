#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every committed matrix as run (results/**/*.sim.matrix, written by
# tools/reproduce --sim) names a reference that exists from where it lies:
# `rwlab report FILE.csv --matrix FILE.sim.matrix` reads it. A run from a
# worktree once wrote paths into that worktree, and the reports broke when
# it went.
#   usage: results_refs.sh SOURCE-ROOT
. "${0%/*}/../lib.sh"
root=$1 n=0
for m in $(find "$root/results" -name '*.sim.matrix' | sort); do
	n=$((n + 1))
	ref=$(sed -n 's/^reference[[:space:]]*=[[:space:]]*//p' "$m" | head -n 1)
	case $ref in
	'') fail "$m names no reference" ;;
	/*) fail "$m names an absolute reference ($ref): it holds only on the machine that ran it" ;;
	*) [ -f "${m%/*}/$ref" ] || fail "$m: reference '$ref' does not exist from there" ;;
	esac
done
[ "$n" -gt 0 ] || fail "no *.sim.matrix under $root/results"
echo "results-refs: $n matrices, $fails failures"
exit $((fails > 0))
