#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 25's must-show: every seed table's `tools/reproduce NAME --sim` at the size its results
# were made (results/sim/final-20261202/final-tables.sh) with -j 1 and -j 2, one after the other
# at nice 0 (helpers at nice 19), and the two CSVs compared with the run id and the timestamps
# masked; then rwsem-rework whole (every sim_run line of its matrix: pft, gitcheckout, reaim
# compute, new_dbase, shared) with -j 2. The -j 2 runs are kept as the tables' results; the -j 1
# CSVs go to $J1 and are only compared.
set -uo pipefail
cd "$(dirname "$0")/../../.."
D=20261202
OUT=results/sim/timing-$D
J1=${J1:-/tmp/timing-j1}
log=$OUT/timing.log
u=131072
mkdir -p "$J1"
mask() { sed -E 's/^(# context,run=)[^,]*/\1RUN/; s/^([0-9]+),[^,]*,[^,]*,/\1,RUN,TS,/' "$1"; }
run() { local tag=$1; shift
	echo "== $tag start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >>$log
	local s; s=$(date +%s.%N)
	/usr/bin/time -f "%e s wall, %U s user, %S s sys, %M kB max RSS" "$@" >"$J1/$tag.out" 2>"$J1/$tag.time"; local rc=$?
	echo "== $tag end $(date -u +%T) rc=$rc wall=$(echo "$(date +%s.%N) - $s" | bc | cut -c1-7)s load $(cut -d' ' -f1-3 /proc/loadavg); $(tail -1 "$J1/$tag.time")" >>$log; }
same() { local name=$1 a=$2 b=$3
	if cmp -s <(mask "$a") <(mask "$b"); then
		echo "== $name: -j 1 and -j 2 CSVs identical (run id and timestamps masked), $(wc -c <"$a") bytes, $(grep -vc '^#' "$a") lines" >>$log
	else
		echo "== $name: -j 1 and -j 2 CSVs DIFFER: $(diff <(mask "$a") <(mask "$b") | head -3 | tr '\n' ' ')" >>$log
	fi; }
table() { local name=$1 dir=$2; shift 2
	run "$name-j1" tools/reproduce "$name" --sim -j 1 --no-plots --out "$J1/$name" "$@"
	run "$name-j2" tools/reproduce "$name" --sim -j 2 --no-plots --out "$dir" "$@"
	same "$name" "$J1/$name/$name.csv" "$dir/$name.csv"; }
echo "== host $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), git $(git rev-parse --short HEAD)" >>$log
table per-vma-locks results/sim/per-vma-locks/reproduce-timing-$D
table lazy-mm-hazptr results/sim/lazy-mm-hazptr/reproduce-timing-$D --set 'sim_run=context_switch | 24, 48, 96, 128, 192'
table hugetlb-vmemmap results/sim/hugetlb-vmemmap/reproduce-timing-508pages-$D \
  --set "sim_workloads=vmscale:parent,unit_mb=$u,walkers=0, vmscale:bd225530,unit_mb=$u,walkers=0, vmscale:c2a967f6,unit_mb=$u,walkers=0" \
  --set "sim_baseline=vmscale:parent,unit_mb=$u,walkers=0" \
  --set "sim_map.column=5a4d8944d6b1e(parent) -> vmscale:parent,unit_mb=$u,walkers=0" \
  --set "sim_map.column=bd225530a4c71(sync-rcu) -> vmscale:bd225530,unit_mb=$u,walkers=0" \
  --set "sim_map.column=b5af188232e56(fix) -> vmscale:c2a967f6,unit_mb=$u,walkers=0" \
  -- -n 3 --warmup 0
table rwsem-rework results/sim/rwsem-rework/reproduce-timing-pftgit-$D \
  --set 'sim_run=pft:kernel=v5.0 | 1, 4, 7, 12, 21, 30, 40' \
  --set 'sim_run=gitcheckout:kernel=v5.0 | 1, 4, 7, 12, 21, 30, 40'
run rwsem-rework-whole-j2 tools/reproduce rwsem-rework --sim -j 2 --out results/sim/rwsem-rework/reproduce-whole-$D
echo "== all done $(date -u +%T)" >>$log
