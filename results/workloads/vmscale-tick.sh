#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# results/workloads/vmscale-tick.sh RWLAB OUT.csv
#
# vmscale sync against batch at tick_us = 0, 250, 1000 (the default) and
# 4000, 2 workers, 3 iterations each, then the table of README.md: mean
# throughput, the workers' own voluntary switches
# (time.voluntary_context_switches), the whole process's
# (process_voluntary_context_switches), and sync's change against batch.
set -eu
rwlab=$1 out=$2
"$rwlab" run -q --no-report -l pthread -t 2 -n 3 -o "$out" -w \
vmscale:sync,tick_us=0,vmscale:batch,tick_us=0,vmscale:sync,tick_us=250,vmscale:batch,tick_us=250,\
vmscale:sync,vmscale:batch,vmscale:sync,tick_us=4000,vmscale:batch,tick_us=4000
python3 - "$out" <<'PY'
import collections, csv, statistics, sys
d = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    d[(r["workload"], r["metric"])].append(float(r["value"]))
M = ["vm-scalability.throughput", "time.voluntary_context_switches", "process_voluntary_context_switches"]
def mean(w, m):
    return statistics.mean(d[(w, m)])
def pct(a, b):
    return "n/a" if b == 0 else "%+.1f%%" % (100 * (a - b) / b)
print("| tick_us | policy | throughput KB/s | workers' voluntary switches | process voluntary switches |")
print("|---|---|---|---|---|")
for t, sfx in (("0", ",tick_us=0"), ("250", ",tick_us=250"), ("1000", ""), ("4000", ",tick_us=4000")):
    s, b = "vmscale:sync" + sfx, "vmscale:batch" + sfx
    for name, w in (("batch", b), ("sync", s)):
        print("| %s | %s | %.0f | %.0f | %.0f |" % (t, name, *(mean(w, m) for m in M)))
    print("| %s | sync vs batch | %s | %s | %s |" % (t, *(pct(mean(s, m), mean(b, m)) for m in M)))
PY
