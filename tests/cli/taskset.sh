#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A run restricted to some CPUs (taskset, a cpuset) keeps to them: its context's cpus, its thread
# defaults and its workers' placement are those CPUs, and the load warning counts the tasks
# runnable on them, not on the others. Skipped (77) where fewer than two CPUs are there to
# restrict it to one of them. Runs alone (tests/meson.build): other tests' work on its CPU
# would be a competing task, rightly warned about.
# Usage: taskset.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1
case $rwlab in /*) ;; *) rwlab=$PWD/$rwlab ;; esac
cd "$tmp" || exit 1
command -v taskset >/dev/null || { echo "no taskset(1) here: skipped"; exit 77; }

# The first two CPUs this test may use: A runs rwlab, B the others' work.
cpus=()
for r in $(awk '/^Cpus_allowed_list:/ { gsub(",", " ", $2); print $2 }' /proc/self/status); do
	lo=${r%-*} hi=${r#*-}
	for ((c = lo; c <= hi && ${#cpus[@]} < 2; c++)); do cpus+=("$c"); done
done
[ ${#cpus[@]} -ge 2 ] || { echo "only ${#cpus[@]} CPU available to this test (taskset needs two): skipped"; exit 77; }
A=${cpus[0]} B=${cpus[1]}

# Restricted to B (not the first CPU, where a placement that ignored the restriction would put
# thread 0): one CPU in the context, one thread by default, the worker on B.
taskset -c "$B" "$rwlab" run -l pthread -w locktest -n 1 -d 300ms --warmup 0 -q --no-report -o b.csv 2>err &
pid=$!
sleep 0.2
psr=$(ps -L -o psr=,stat= -p $pid | awk '$2 ~ /^R/ { print $1 }' | sort -u | tr '\n' ' ')
wait $pid || fail "taskset -c $B run: exit $?: $(cat err)"
grep -q "^# context,.*,cpus=1," b.csv || fail "taskset -c $B: the context's cpus is not 1: $(grep -o 'cpus=[0-9]*' b.csv)"
[ "$(grep -v '^#' b.csv | tail -n +2 | cut -d, -f6 | sort -u)" = 1 ] ||
	fail "taskset -c $B: the default threads are not 1: $(grep -v '^#' b.csv | tail -n +2 | cut -d, -f6 | sort -u | tr '\n' ' ')"
[ -z "$psr" ] || [ "$psr" = "$B " ] || fail "taskset -c $B: the running threads were on CPUs $psr"

# One CPU is "1 CPU" wherever a count is printed (format.h's lab_fmt_cpus()): torture's
# oversubscription warning (its default threads, a reader and a writer, on the one CPU), report's
# banner and its email header.
taskset -c "$B" "$rwlab" torture -l rwsem -d 10ms >/dev/null 2>err || fail "taskset -c $B torture: exit $?: $(cat err)"
grep -q "^rwlab torture: 2 threads on 1 CPU: oversubscribed" err || fail "torture on one CPU: $(cat err)"
"$rwlab" report b.csv 2>&1 | grep -q "^measured: host .*, 1 CPU [^s]" || fail "report's banner: $("$rwlab" report b.csv 2>&1 | head -n 1)"
"$rwlab" report -f email b.csv 2>&1 | tr '\n' ' ' | grep -q "^rwlab .*, 1 CPU (" ||
	fail "report's email header: $("$rwlab" report -f email b.csv 2>&1 | head -n 2)"

# Resumed under another binding: refused, naming the binding as the way on, the file untouched.
cp b.csv b0.csv
"$rwlab" run -l pthread,rwsem -w locktest -t 1 -n 1 -d 50ms --warmup 0 -q --no-report -o b.csv --resume 2>err
rc=$?
[ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] &&
	grep -q "^rwlab run: --resume: b.csv:[0-9]*: cpus is '1' there but '[0-9]*' in this run: .*start a new file, or resume under the CPU binding it was started with (taskset, a cpuset)\$" err ||
	fail "--resume under another binding: exit $rc: $(cat err)"
cmp -s b.csv b0.csv || fail "--resume under another binding changed the file"

# The load warning (forced with a load average above the CPUs, RWLAB_FAULT_INJECT=loadavg_only)
# counts the tasks runnable on the run's CPU. 24 busy loops on B: none of them on A, so no
# warning, or one that counts fewer than 24 (/proc/stat's procs_running counts the 24 and more).
# This machine's other work may be runnable on A, and the kernel may pile it there: on the 2-vCPU
# guest, beside another build, six busy loops on B were not enough to tell (three tries each
# counted 6 or more on A). Three tries, for such work that lasts.
spins=()
trap 'kill "${spins[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT
spin() { taskset -c "$1" sh -c 'while :; do :; done' & spins+=($!); }
load() {
	RWLAB_FAULT_INJECT=loadavg_only taskset -c "$A" "$rwlab" run -l rwsem-xadd -w locktest -t 1 -n 1 -d 50ms \
		--warmup 0 -q --no-report -o "$1" 2>err || fail "taskset -c $A run: exit $?: $(cat err)"
	counted=$(sed -n 's/^WARNING: load average .*, \([0-9]*\) other tasks* runnable.*/\1/p' err)
}
for ((i = 0; i < 24; i++)); do spin "$B"; done
sleep 0.1
for try in 1 2 3; do
	load quiet$try.csv
	[ "${counted:-0}" -lt 24 ] && break
	sleep 0.5
done
[ "${counted:-0}" -lt 24 ] || fail "24 busy loops on CPU $B, the run on $A: they were counted: $(cat err)"
kill "${spins[@]}"
spins=()
# One busy loop on A: a warning that counts it, on the one CPU the run may use.
spin "$A"
sleep 0.1
load busy.csv
grep -Eq "^WARNING: load average [0-9.]+ above the 1 CPU this run may use \(of [0-9]+\) at the start of rwsem-xadd locktest t=1, [0-9]+ other tasks? runnable on it: other work competes with the measurement$" err ||
	fail "a busy loop on the run's CPU $A: no warning that counts it: $(cat err)"

[ $fails = 0 ] && echo "all taskset checks passed"
exit $((fails > 0))
