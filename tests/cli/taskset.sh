#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A run restricted to some CPUs (taskset, a cpuset) keeps to them: its context's cpus, its thread
# defaults and its workers' placement are those CPUs.
# Skipped (77) where fewer than two CPUs are there to restrict it to one of them.
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

[ $fails = 0 ] && echo "all taskset checks passed"
exit $((fails > 0))
