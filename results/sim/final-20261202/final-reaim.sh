#!/usr/bin/env bash
cd /work/wt/lead
echo "== reaim start $(date -u +%T) $(uptime)" >> /work/final-tables.log
s=$(date +%s)
/usr/bin/time -v nice tools/reproduce rwsem-rework --sim -j 2 --out results/sim/rwsem-rework/reproduce-final-reaim-20261202 \
  --set 'sim_run=reaim:compute,kernel=v5.0 | 1, 21, 41, 61, 81, 101, 121, 141, 161 | --pin none' > /work/final-reaim.out 2>&1
echo "== reaim end $(date -u +%T) rc=$? wall=$(( $(date +%s)-s ))s $(uptime)" >> /work/final-tables.log
