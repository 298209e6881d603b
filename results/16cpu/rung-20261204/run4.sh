#!/usr/bin/env bash
# The 16-core rung, fourth call: faa's run length (adds per ownership run) at 2..16 threads,
# the hand-over figure the model's hold window stands for, beside the pair calibration.
set -uo pipefail
B=.devrun/bin; export LD_LIBRARY_PATH=$PWD/.devrun/lib
log=$OUT/log4.txt; t0=$(date +%s)
stage() { echo "== $1 ($(($(date +%s) - t0)) s, load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$log"; }
stage "machine"; { lscpu | grep -E 'Model|CPU\(s\)|Thread|L3'; uname -r; } 2>&1 | tee -a "$log"
stage "rwlab-calibrate pair metrics, CPUs 0,1"
$B/rwlab-calibrate --only c2c_ns,faa_pair_ns,faa_run_len,rmw_hold_ns,rmw_local_ns --repeats 5 2>&1 | grep -v '^#   ' | tee -a "$log"
stage "atomics faa and xchg, native"
$B/rwlab run -l null -w atomics:op=faa -w atomics:op=xchg -t 1,2,4,8,12,16 --pin compact -n 5 -d 200ms --warmup 50ms -q -o "$OUT/atomics-runlen-native-4.csv" 2>&1 | tee -a "$log"
stage "done"
