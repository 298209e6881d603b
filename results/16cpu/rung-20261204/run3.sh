#!/usr/bin/env bash
# The 16-core rung, third call, on a third fresh machine of the kind: the atomics cells again
# (machine-to-machine spread of the rung's figures) and the pair calibrations beside them.
set -uo pipefail
B=.devrun/bin; export LD_LIBRARY_PATH=$PWD/.devrun/lib
log=$OUT/log3.txt; t0=$(date +%s)
stage() { echo "== $1 ($(($(date +%s) - t0)) s, load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$log"; }
stage "machine"; { lscpu | grep -E 'Model|CPU\(s\)|Thread|Core|L3'; uname -r; } 2>&1 | tee -a "$log"
stage "rwlab-calibrate pair metrics, CPUs 0,1"
$B/rwlab-calibrate --only c2c_ns,faa_pair_ns,faa_run_len,rcas_pair_ns,rcas_pair_attempts,rmw_hold_ns,rmw_local_ns,relax_ns,exec_yield --repeats 5 2>&1 | tee -a "$log"
stage "atomics, native"
$B/rwlab run -l null -w atomics:op=faa -w atomics:op=xchg -w atomics:op=rcas -w atomics:op=cas -w atomics:op=rcas,think_ns=1000 -w atomics:op=pingpong -t 1,2,4,8,12,16 --pin compact -n 5 -d 200ms --warmup 50ms -q -o "$OUT/atomics-native-3.csv" 2>&1 | tee -a "$log"
stage "done"
