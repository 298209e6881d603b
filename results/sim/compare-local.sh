#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The machine you sit on, simulated vs native (issue 10): locktest at r% 50
# and 90, 1, 2 and 8 threads, the four kernel rwsem ports; for each
# (r%, threads) the variants' ranking by total_rate, natively and on the
# simulated machine, and Spearman's rank correlation over all cells.
# Usage: results/sim/compare-local.sh [MACHINE] [NATIVE_DURATION] [SIM_DURATION]
#   MACHINE defaults to epyc-2vcpu (sim/machines/epyc-2vcpu.machine).
# Native figures are host-dependent: record `uptime` with them.
set -eu
cd "$(dirname "$0")/../.."
machine=${1:-epyc-2vcpu}
nd=${2:-1s} sd=${3:-200ms}
out=results/sim/compare-local
mkdir -p "$out"
locks=rwsem-xadd,rwsem-rspin,rwsem,rwsem-dhandoff
echo "uptime before native: $(uptime)" >"$out/uptime.txt"
build/rwlab run -l $locks -w locktest:rpct=50,locktest:rpct=90 -t 1,2,8 -d "$nd" --warmup 200ms -n 3 -q \
	-o "$out/native.csv" >/dev/null
echo "uptime after native: $(uptime)" >>"$out/uptime.txt"
build/rwlab run --sim "$machine" -l $locks -w locktest:rpct=50,locktest:rpct=90 -t 1,2,8 -d "$sd" \
	--warmup 20ms -n 3 -q -o "$out/sim.csv" >/dev/null
python3 results/sim/rank.py "$out/native.csv" "$out/sim.csv"
