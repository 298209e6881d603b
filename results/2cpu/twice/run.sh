#!/bin/bash
cd /work/wt-twice
meson setup build --buildtype=release >/dev/null && ninja -C build rwlab >/dev/null || exit 1
for m in per-vma-locks rwsem-rework; do
 for i in 1 2; do
  uptime >> /tmp/twice/uptime.txt
  s=$(date +%s)
  tools/reproduce $m --note "issue-12 run-twice, run $i of 2; machine shared with helper builds" > /tmp/twice/$m-$i.out 2>&1
  echo "$m run $i rc=$? $(( $(date +%s)-s )) s" >> /tmp/twice/log.txt
  uptime >> /tmp/twice/uptime.txt
 done
done
echo done >> /tmp/twice/log.txt
