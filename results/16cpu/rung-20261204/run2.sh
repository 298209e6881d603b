#!/usr/bin/env bash
# The 16-core rung, second call: is the 12-16 thread locktest cliff the machine's? (vCPU
# pairs' execution sharing, alone and with the other 14 vCPUs busy; locktest 8..16 again),
# and `rwlab sim validate here` on this machine.
set -uo pipefail
B=.devrun/bin; export LD_LIBRARY_PATH=$PWD/.devrun/lib RWLAB_SIM_MACHINES=$PWD/sim/machines
log=$OUT/log2.txt; t0=$(date +%s)
stage() { echo "== $1 ($(($(date +%s) - t0)) s, load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$log"; }
stage "exec_yield, CPU 0 with each other CPU, and k with k+8 (rwlab-calibrate --only exec_yield --repeats 3)"
for p in $(seq 1 15 | sed 's/^/0,/') $(seq 1 7 | awk '{print $1 "," $1 + 8}'); do
	printf '%s ' "$p"; $B/rwlab-calibrate --only exec_yield --repeats 3 --cpus "$p" | grep '^exec_yield'
done 2>&1 | tee -a "$log"
stage "exec_yield 0,1 and c2c 0,1 while CPUs 2-15 each run a busy loop"
pids=; for c in $(seq 2 15); do taskset -c "$c" sh -c 'while :; do :; done' & pids="$pids $!"; done
sleep 0.5
$B/rwlab-calibrate --only exec_yield,c2c_ns --repeats 5 --cpus 0,1 2>&1 | tee -a "$log"
kill $pids; wait 2>/dev/null
stage "locktest 8..16 again (rwsem, percpu-rwsem, rwsem-xadd)"
$B/rwlab run -l rwsem,percpu-rwsem,rwsem-xadd -w locktest -t 8,10,12,14,16 --pin compact -n 3 -d 500ms --warmup 100ms -q -o "$OUT/locktest-cliff-native.csv" 2>&1 | tee -a "$log"
stage "rwlab sim validate here"
$B/rwlab sim validate here -o "$OUT/here.html" 2>&1 | tee -a "$log"
stage "done"
