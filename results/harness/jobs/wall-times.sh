#!/bin/bash
cd /work/wt/speedj
for j in 1 2; do
  echo "j=$j before: $(uptime)"
  s=$(date +%s.%N)
  nice tools/reproduce per-vma-locks --sim -j $j --no-plots --out /tmp/sj/repro/j$j >/tmp/sj/repro/j$j.out 2>/tmp/sj/repro/j$j.err
  echo "j=$j rc=$? wall=$(echo "$(date +%s.%N) - $s" | bc) s"
  echo "j=$j after: $(uptime)"
done
