#!/usr/bin/env bash
# One machine of the kind (plan.md): the pair calibration and the rung's native cells.
# Run on the device from the repository root with OUT set (binaries from .devrun/).
set -uo pipefail
B=.devrun/bin; export LD_LIBRARY_PATH=$PWD/.devrun/lib
log=$OUT/log.txt; t0=$(date +%s)
stage() { echo "== $1 ($(($(date +%s) - t0)) s, load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$log"; }
stage "machine"
{ date -u; uname -a; lscpu; grep -m1 microcode /proc/cpuinfo; free -m; uptime; $B/rwlab --version; } >"$OUT/machine.txt" 2>&1
stage "rwlab-calibrate, every metric, 5 repeats"
$B/rwlab-calibrate --repeats 5 >"$OUT/calibration.txt" 2>>"$log"
T=1,2,4,8,12,16
stage "atomics, native"
$B/rwlab run -l null -w atomics:op=faa -w atomics:op=xchg -w atomics:op=rcas -w atomics:op=cas \
	-w atomics:op=rcas,think_ns=1000 -w atomics:op=pingpong -t $T --pin compact -n 5 -d 200ms \
	--warmup 50ms -q -o "$OUT/atomics-native.csv" 2>&1 | tail -3 | tee -a "$log"
stage "locktest, native"
$B/rwlab run -l rwsem-xadd,rwsem,rwsem-rspin,percpu-rwsem,bravo -w locktest -t $T --pin compact \
	-n 3 -d 500ms --warmup 100ms -q -o "$OUT/locktest-native.csv" 2>&1 | tail -3 | tee -a "$log"
stage "futex_pingpong, native"
$B/rwlab run -l null -w futex_pingpong -t 2,4,8,12,16 --pin compact -n 5 -d 100ms --warmup 20ms \
	-q -o "$OUT/futex-native.csv" 2>&1 | tail -3 | tee -a "$log"
gzip -9 "$OUT"/*.csv
stage "done"
