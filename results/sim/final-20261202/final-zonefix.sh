#!/usr/bin/env bash
cd /work/wt/lead
log=/work/final-tables.log
D=20261202
for name in per-vma-locks rwsem-rework; do
  echo "== zonefix $name start $(date -u +%T) $(uptime)" >>$log; s=$(date +%s)
  if [ $name = per-vma-locks ]; then
    nice tools/reproduce per-vma-locks --sim -j 2 --out results/sim/per-vma-locks/reproduce-zonefix-$D > /work/zonefix-$name.out 2>&1
  else
    nice tools/reproduce rwsem-rework --sim -j 2 --out results/sim/rwsem-rework/reproduce-zonefix-$D \
      --set 'sim_run=pft:kernel=v5.0 | 1, 4, 7, 12, 21, 30, 40' \
      --set 'sim_run=gitcheckout:kernel=v5.0 | 1, 4, 7, 12, 21, 30, 40' > /work/zonefix-$name.out 2>&1
  fi
  echo "== zonefix $name end $(date -u +%T) rc=$? wall=$(( $(date +%s)-s ))s $(uptime)" >>$log
done
