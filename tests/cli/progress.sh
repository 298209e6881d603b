#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The progress line's ETA (README "Using it"): a timed workload's iterations are counted at their
# window (--warmup and -d) before any has run; a work workload's (pft) are not guessed at that
# length but counted apart ("+ 3 pft iterations") until one has run, then at their mean. And -q:
# only errors and warnings.
# Usage: progress.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1
case $rwlab in /*) ;; *) rwlab=$PWD/$rwlab ;; esac
cd "$tmp" || exit 1

# Two locktest iterations of 250 + 250 ms, then pft's warm-up pass and two iterations. stderr is a
# file, so each cell prints its first iteration's line.
"$rwlab" run -l pthread -w locktest,pft:size_mb=8 -t 1 -n 2 -d 250ms --warmup 250ms --no-report -o p.csv \
	>out 2>err || fail "run: exit $?: $(cat err)"
lines=$(grep '^\[cell ' err)
first=$(echo "$lines" | sed -n 1p)
second=$(echo "$lines" | sed -n 2p)
[ "$first" = "[cell 1/2] pthread locktest t=1 iter 1/2 ETA 0m01s + 3 pft iterations" ] ||
	fail "the first ETA is not locktest's two 500 ms windows and pft's three iterations apart: '$first'"
[ "$second" = "[cell 2/2] pthread pft:size_mb=8 t=1 warm-up 0/2 ETA ? (3 pft iterations)" ] ||
	fail "the ETA before pft's first iteration has run: '$second'"

# A failed iteration is no measure of its workload: the first pft cell fails in its warm-up pass,
# so the second cell's iterations are still counted apart, not at the failed pass's few ms.
RWLAB_FAULT_INJECT=worker=pthread "$rwlab" run -l pthread,rwsem -w pft:size_mb=8 -t 1 -n 2 --order sequential \
	--no-report -o f.csv >out 2>err
[ $? = 1 ] || fail "run with a failing cell: exit not 1: $(cat err)"
second=$(grep '^\[cell 2/2\] ' err)
[ "$second" = "[cell 2/2] rwsem pft:size_mb=8 t=1 warm-up 0/2 ETA ? (3 pft iterations)" ] ||
	fail "after a failed pft cell, its failed pass is taken as pft's mean: '$second'"

# Once pft has run, its iterations are counted at their mean: with a terminal the line is redrawn
# each iteration. script(1) gives stderr a terminal where it is installed.
if command -v script >/dev/null; then
	script -qec "'$rwlab' run -l pthread,rwsem -w pft:size_mb=8 -t 1 -n 2 --warmup 10ms --no-report -o t.csv" \
		/dev/null >tty.out 2>&1 || fail "run on a terminal: exit $?: $(tr '\r' '\n' <tty.out)"
	etas=$(tr '\r' '\n' <tty.out | grep -o 'ETA [^[:cntrl:]]*')
	echo "$etas" | sed -n 1p | grep -qx 'ETA ? (6 pft iterations)' ||
		fail "the first ETA of a pft run: $(echo "$etas" | sed -n 1p)"
	echo "$etas" | sed -n '2,$p' | grep -qv '^ETA [0-9]*m[0-9][0-9]s$' &&
		fail "an ETA after pft's first iteration is not a time: $(echo "$etas" | tr '\n' '|')"
fi

# -q: nothing on stderr but errors and warnings, the closing 'results: FILE' line included; stdout
# empty with --no-report. Without -q that line ends the run.
"$rwlab" run -l pthread -w locktest -t 1 -n 1 -d 10ms --warmup 0 -q --no-report -o q.csv >out 2>err ||
	fail "run -q: exit $?: $(cat err)"
[ ! -s out ] && ! grep -v '^WARNING: ' err >/dev/null || fail "run -q --no-report printed: $(cat out err)"
"$rwlab" run -l pthread -w locktest -t 1 -n 1 -d 10ms --warmup 0 --no-report -o v.csv >out 2>err ||
	fail "run: exit $?: $(cat err)"
[ "$(tail -n 1 err)" = "results: v.csv" ] || fail "run without -q: the last line is not 'results: v.csv': $(tail -n 1 err)"

[ $fails = 0 ] && echo "all progress checks passed"
exit $((fails > 0))
