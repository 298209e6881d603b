#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Seeds mean something under --sim: two seeds of every
# workload give different values of its headline metric (before the engine's
# +-1% cost jitter, context_switch and tlb_flush gave byte-identical
# iterations for any seed), and one seed gives the same values twice.
# Usage: seeds.sh RWLAB
set -u
rwlab=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# values FILE METRIC: every row's value of METRIC, one per line
values() { grep -o ",$2,[^,]*" "$1" | cut -d, -f3; }

check() { # check NAME METRIC ARGS...: seeds 1, 2 and 1 again (not again in a sanitizer tree: sim_cli.sh's twice())
	name=$1 metric=$2 runs="1.0 2.0 1.1"
	shift 2
	[ -n "${RWLAB_TEST_SANITIZED:-}" ] && runs="1.0 2.0"
	for run in $runs; do
		s=${run%.*}
		"$rwlab" run --sim "$@" --seed $s -q --no-report -o "$tmp/$name-$run.csv" >"$tmp/log" 2>&1 ||
			{ fail "$name seed $s: $(tail -2 "$tmp/log")"; return; }
		values "$tmp/$name-$run.csv" "$metric" >"$tmp/$name-$s.v.${run#*.}"
	done
	[ -s "$tmp/$name-1.v.0" ] || { fail "$name: no $metric rows"; return; }
	# every iteration moves, not only one of them
	same=$(paste -d' ' "$tmp/$name-1.v.0" "$tmp/$name-2.v.0" | awk '$1 == $2 { printf "%s%d", n++ ? "," : "", NR }')
	[ -z "$same" ] || fail "$name: seeds 1 and 2 gave the same $metric in iteration(s) $same: $(tr '\n' ' ' <"$tmp/$name-1.v.0")"
	[ "$(wc -l <"$tmp/$name-1.v.0")" = "$(wc -l <"$tmp/$name-2.v.0")" ] || fail "$name: seeds 1 and 2 gave different numbers of iterations"
	[ -n "${RWLAB_TEST_SANITIZED:-}" ] || cmp -s "$tmp/$name-1.v.0" "$tmp/$name-1.v.1" || fail "$name: seed 1 twice gave different $metric"
}

check locktest total_rate generic-8 -l rwsem -w locktest -t 4 -n 2 -d 1ms --warmup 200us
check pft faults/sec generic-8 -l rwsem -w pft:size_mb=4 -t 4 -n 2
check context_switch ops_per_s generic-8 -l null -m refcount -w context_switch -t 2 -n 2 -d 1ms --warmup 200us
check tlb_flush ops_per_s generic-8 -l null -m refcount -w tlb_flush -t 2 -n 2 -d 1ms --warmup 200us
check reaim JPM generic-8 -l rwsem -w reaim:compute -t 2 -n 2 --warmup 0
check gitcheckout elapsed generic-8 -l rwsem -w gitcheckout:pack_mb=16 -t 1 -n 2 --warmup 0
check vmscale vm-scalability.throughput generic-8 -l null -w vmscale:sync,unit_mb=200 -t 4 -n 1
check atomics ops_per_s generic-8 -l null -w atomics:op=rcas,think_ns=100 -t 4 -n 2 -d 1ms --warmup 200us
check futex_pingpong round_trips_per_s generic-8 -l null -w futex_pingpong -t 2 -n 2 -d 1ms --warmup 200us

[ $fails = 0 ] && echo "seeds: two seeds differ and one seed repeats for all nine workloads"
exit $((fails > 0))
