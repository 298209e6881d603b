#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# Writes results/sim/calibration/xeon-16vcpu-machines-20261204.txt: one calibration record
# whose runs are six machines of the 16-vCPU kind (the rung's call 1 and machines A-E here),
# each machine's own medians as one run, the summary the median over the machines (plan.md).
#   results/16cpu/machines-20261204/median-record.py > results/sim/calibration/xeon-16vcpu-machines-20261204.txt
import os
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
src = [("call1", os.path.join(here, "..", "rung-20261204", "calibration.txt"))] + \
      [(m, os.path.join(here, f"m{m}", "calibration.txt")) for m in "ABCDE"]
runs, units = {}, {}
print("# rwlab calibration record: six machines of one kind, 2026-12-04 (results/16cpu/machines-20261204/)")
print("# command: results/16cpu/machines-20261204/median-record.py (each run line: one machine's rwlab-calibrate medians)")
print("# host: 16-vCPU Intel Xeon family 6 model 207 KVM guests (Firecracker), Linux 6.18.44, HZ=250, no SMT;")
print("#   a fresh machine per device call; call1 = results/16cpu/rung-20261204/calibration.txt (tools/calibrate,")
print("#   11 repeats), A-E = results/16cpu/machines-20261204/m?/calibration.txt (rwlab-calibrate --repeats 5)")
print("# summary: the median over the machines of their medians, min and max over the machines")
print("# metric\tmedian\tmin\tmax\tunit\trepeats")
for name, path in src:
    print(f"# machine {name}: {os.path.relpath(path, os.path.join(here, '..', '..', '..'))}")
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if line.startswith("#") or len(p) != 6 or p[0] == "summary":
                continue
            print("\t".join(p))
            runs.setdefault(p[0], []).append(float(p[1]))
            units[p[0]] = p[4]
for m in sorted(runs):
    v = runs[m]
    print(f"summary\t{m}\t{statistics.median(v):.4f}\t{min(v):.3f}\t{max(v):.3f}\t{units[m]}")
