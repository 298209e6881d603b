#!/usr/bin/env bash
# The four seed tables (reaim compute apart) on the final engine of this stop.
set -uo pipefail
cd /work/wt/lead
D=20261202
log=/work/final-tables.log
u=131072
t0=$(date +%s)
run() { local name=$1; shift; echo "== $name start $(date -u +%T) $(uptime)" >>$log
  local s=$(date +%s)
  /usr/bin/time -v nice "$@" >/work/final-$name.out 2>&1; local rc=$?
  echo "== $name end $(date -u +%T) rc=$rc wall=$(( $(date +%s)-s ))s $(uptime)" >>$log; }
run per-vma tools/reproduce per-vma-locks --sim -j 2 --out results/sim/per-vma-locks/reproduce-final-$D
run lazy-mm tools/reproduce lazy-mm-hazptr --sim -j 2 --out results/sim/lazy-mm-hazptr/reproduce-final-$D \
    --set 'sim_run=context_switch | 24, 48, 96, 128, 192'
run hugetlb tools/reproduce hugetlb-vmemmap --sim -j 2 --out results/sim/hugetlb-vmemmap/reproduce-final-508pages-$D \
  --set "sim_workloads=vmscale:parent,unit_mb=$u,walkers=0, vmscale:bd225530,unit_mb=$u,walkers=0, vmscale:c2a967f6,unit_mb=$u,walkers=0" \
  --set "sim_baseline=vmscale:parent,unit_mb=$u,walkers=0" \
  --set "sim_map.column=5a4d8944d6b1e(parent) -> vmscale:parent,unit_mb=$u,walkers=0" \
  --set "sim_map.column=bd225530a4c71(sync-rcu) -> vmscale:bd225530,unit_mb=$u,walkers=0" \
  --set "sim_map.column=b5af188232e56(fix) -> vmscale:c2a967f6,unit_mb=$u,walkers=0" \
  -- -n 3 --warmup 0
run rwsem-rework tools/reproduce rwsem-rework --sim -j 2 --out results/sim/rwsem-rework/reproduce-final-$D \
  --set 'sim_run=pft:kernel=v5.0 | 1, 4, 7, 12, 21, 30, 40' \
  --set 'sim_run=gitcheckout:kernel=v5.0 | 1, 4, 7, 12, 21, 30, 40'
echo "== all done $(( $(date +%s)-t0 ))s" >>$log
