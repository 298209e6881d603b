#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The arbitration's microbenchmarks and the ladder:
# - atomics natively and under --sim: one attempt per fetch-add; one thread's
#   read-first cmpxchg never fails; one thread's blind cmpxchg (from 0) needs
#   two attempts for every success but the first; the metrics are present;
# - futex_pingpong natively and simulated: round trips happen; an odd -t is
#   refused with one line;
# - rwlab sim validate on a ladder of its own: a rung within its tolerance
#   PASSes, one outside FAILs (exit 1), a malformed ladder (a field too long
#   for it among them) and an unknown machine or a machine given twice are
#   refused (exit 2, one line); its page names a rung's run whole.
# Usage: atomics.sh RWLAB SOURCE-ROOT
set -u
rwlab=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# metric FILE NAME: the first iteration's value of NAME
metric() { awk -F, -v m="$2" '$8 == m { print $9; exit }' "$1"; }

run() { # run OUT.csv ARGS...: rwlab run -l null ... -q -o OUT
	out=$1
	shift
	"$rwlab" run -l null -q -o "$out" "$@" >"$tmp/log" 2>&1 || { fail "rwlab run $*: $(tail -2 "$tmp/log")"; return 1; }
}

for mode in native sim; do
	if [ $mode = sim ]; then set -- --sim epyc-2vcpu -d 2ms --warmup 1ms; else set -- -d 50ms --warmup 10ms; fi
	run "$tmp/faa.csv" -w atomics:op=faa -t 2 -n 1 "$@" &&
		[ "$(metric "$tmp/faa.csv" attempts_per_success)" = 1 ] ||
		fail "$mode: faa attempts_per_success $(metric "$tmp/faa.csv" attempts_per_success), want 1"
	for m in ops_per_s ns_per_op ns_per_success attempts_p50 attempts_p99 attempts_max fairness ops_min thread_ops.1; do
		[ -n "$(metric "$tmp/faa.csv" $m)" ] || fail "$mode: faa has no metric $m"
	done
	run "$tmp/rcas.csv" -w atomics:op=rcas -t 1 -n 1 "$@" &&
		[ "$(metric "$tmp/rcas.csv" attempts_max)" = 1 ] ||
		fail "$mode: one thread's read-first cmpxchg failed (attempts_max $(metric "$tmp/rcas.csv" attempts_max))"
	run "$tmp/cas.csv" -w atomics:op=cas -t 1 -n 1 "$@" &&
		awk -v a="$(metric "$tmp/cas.csv" attempts_per_success)" 'BEGIN { exit !(a > 1.99 && a <= 2) }' ||
		fail "$mode: one thread's blind cmpxchg: attempts_per_success $(metric "$tmp/cas.csv" attempts_per_success), want 2 but the first"
	run "$tmp/pp.csv" -w futex_pingpong -t 2 -n 1 "$@" &&
		awk -v r="$(metric "$tmp/pp.csv" round_trips)" 'BEGIN { exit !(r > 0) }' ||
		fail "$mode: futex_pingpong made no round trip"
done
"$rwlab" run -l null -w futex_pingpong -t 3 -n 1 -d 10ms -q -o "$tmp/odd.csv" >"$tmp/o" 2>"$tmp/e" && fail "futex_pingpong -t 3 accepted"
grep -q "needs an even thread count" "$tmp/e" || fail "futex_pingpong -t 3: $(cat "$tmp/e")"

# validate on a ladder of its own (the machine files of the tree beside it)
mkdir "$tmp/m"
cp "$root"/sim/machines/*.machine "$tmp/m/"
cat >"$tmp/m/validate.ladder" <<'L'
# two rungs: a fetch-add's attempts (exactly 1) within +-0.01, and a figure no run can meet
epyc-2vcpu | faa_attempts | validation | atomics:op=faa | 2 | compact | attempts_per_success | 1 | +-0.01 | -n 1 -d 1ms --warmup 1ms | test
epyc-2vcpu | impossible | validation | atomics:op=faa | 2 | compact | ops_per_s | 1e15 | x2 | -n 1 -d 1ms --warmup 1ms | test
L
# A failing ladder removes its runs too (it kept them: one more directory in /tmp a run) and says how
# to keep them; --keep DIR keeps them in DIR, which must be new or empty.
mkdir "$tmp/vt"
TMPDIR=$tmp/vt RWLAB_SIM_MACHINES=$tmp/m "$rwlab" sim validate epyc-2vcpu >"$tmp/v" 2>&1
st=$?
[ $st = 1 ] || fail "validate with a failing rung exited $st, want 1"
[ -z "$(ls -A "$tmp/vt")" ] || fail "validate: a failing ladder left its runs in \$TMPDIR: $(ls -A "$tmp/vt")"
tail -n 1 "$tmp/v" | grep -q "; the runs are removed: --keep DIR keeps them$" ||
	fail "validate: the failing line does not say how to keep the runs: $(tail -n 1 "$tmp/v")"
grep -q "^faa_attempts .* PASS" "$tmp/v" || fail "validate: faa_attempts did not PASS: $(grep faa_attempts "$tmp/v")"
grep -q "^impossible .* FAIL" "$tmp/v" || fail "validate: impossible did not FAIL: $(grep impossible "$tmp/v")"
RWLAB_SIM_MACHINES=$tmp/m "$rwlab" sim validate epyc-2vcpu --keep "$tmp/kept" >"$tmp/v" 2>&1
st=$?
[ $st = 1 ] && tail -n 1 "$tmp/v" | grep -q "; the runs are kept in $tmp/kept$" &&
	[ -s "$tmp/kept/run001.csv" ] && [ -s "$tmp/kept/run002.log" ] ||
	fail "validate --keep DIR: exit $st, $(tail -n 1 "$tmp/v"); in DIR: $(ls -A "$tmp/kept" 2>&1)"
RWLAB_SIM_MACHINES=$tmp/m "$rwlab" sim validate epyc-2vcpu --keep "$tmp/kept" >"$tmp/o" 2>"$tmp/e"
[ $? = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && [ ! -s "$tmp/o" ] &&
	grep -q "^rwlab sim validate: --keep $tmp/kept: not empty (give a new or an empty directory)$" "$tmp/e" ||
	fail "validate --keep a directory with runs in it: $(cat "$tmp/e")"
"$rwlab" sim list --keep "$tmp/k2" >"$tmp/o" 2>"$tmp/e"
[ $? = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && [ ! -e "$tmp/k2" ] && grep -q "^rwlab sim: --keep is validate's" "$tmp/e" ||
	fail "sim list --keep: $(cat "$tmp/e")"
RWLAB_SIM_MACHINES=$tmp/m "$rwlab" sim validate nosuch >"$tmp/o" 2>"$tmp/e"
[ $? = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && grep -q "no rung for machine 'nosuch'" "$tmp/e" ||
	fail "validate nosuch: $(cat "$tmp/e")"
# a machine given twice is refused before any rung runs (it would be validated twice)
RWLAB_SIM_MACHINES=$tmp/m "$rwlab" sim validate epyc-2vcpu epyc-2vcpu >"$tmp/o" 2>"$tmp/e"
[ $? = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && [ ! -s "$tmp/o" ] &&
	grep -q "^rwlab sim validate: machine 'epyc-2vcpu' given twice (each machine is validated once)$" "$tmp/e" ||
	fail "validate a machine twice: $(cat "$tmp/e")"
# the page names a rung's run whole, every field at its longest (a workload of 255 characters, options of
# 159, a metric of 95: it was cut at 511 bytes, the metric lost); the workload is no workload, so nothing runs
long() { printf "%s%$(($2 - ${#1}))s" "$1" "" | tr ' ' "$3"; }
wl=$(long nosuch- 255 w) opts=$(long "-n 1 -d 1ms -q" 159 q) m=$(long m 90 m)_tail
echo "epyc-2vcpu | long | validation | $wl | 2 | compact | $m | 1 | x2 | $opts | test" >"$tmp/m/validate.ladder"
TMPDIR=$tmp/vt RWLAB_SIM_MACHINES=$tmp/m "$rwlab" sim validate epyc-2vcpu -o "$tmp/page.html" >"$tmp/o" 2>&1
grep -q -- "-w $wl -t 2 --pin compact $opts; metric $m<" "$tmp/page.html" ||
	fail "validate's page cuts a long rung's run: $(grep -o -- '-w nosuch-[^<]*' "$tmp/page.html" | tail -c 120)"
# a field longer than the ladder keeps is refused, not cut (a workload of 256 characters ran its first 255)
echo "epyc-2vcpu | long | validation | $(long nosuch- 256 w) | 2 | compact | ops_per_s | 1 | x2 | | test" >"$tmp/m/validate.ladder"
RWLAB_SIM_MACHINES=$tmp/m "$rwlab" sim validate epyc-2vcpu >"$tmp/o" 2>"$tmp/e"
[ $? = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && [ ! -s "$tmp/o" ] &&
	grep -q "^rwlab sim validate: .*/validate\.ladder:1: the workload field is 256 characters (at most 255)$" "$tmp/e" ||
	fail "validate with a workload of 256 characters: $(cat "$tmp/e" "$tmp/o" | tail -n 3)"
echo "epyc-2vcpu | bad | guess | atomics | 2 | compact | ops_per_s | 1 | x2 | | test" >"$tmp/m/validate.ladder"
RWLAB_SIM_MACHINES=$tmp/m "$rwlab" sim validate epyc-2vcpu >"$tmp/o" 2>"$tmp/e"
[ $? = 2 ] && grep -q "validate.ladder:1: kind 'guess'" "$tmp/e" || fail "validate with a bad kind: $(cat "$tmp/e")"

# TMPDIR set but empty is unset, as exec takes it: the runs go to /tmp (they went to /rwlab-validate.XXXXXX)
echo "epyc-2vcpu | faa | validation | atomics:op=faa | 2 | compact | attempts_per_success | 1 | +-0.01 | -n 1 -d 1ms --warmup 1ms | test" \
	>"$tmp/m/validate.ladder"
TMPDIR= RWLAB_SIM_MACHINES=$tmp/m "$rwlab" sim validate epyc-2vcpu >"$tmp/o" 2>"$tmp/e"
st=$?
[ $st = 0 ] && grep -q "^rwlab sim validate: ladder .*; runs in /tmp/rwlab-validate\.[^/]* (removed at the end" "$tmp/o" ||
	fail "validate with TMPDIR set but empty: exit $st, $(head -n 1 "$tmp/o") $(cat "$tmp/e")"
# SIGINT (or SIGTERM) during a rung, here its native figure's run (2 s): the run is passed the signal, no
# rung after it runs, the runs' directory is removed, one line says so, exit 130 (it died with no line
# and left its directory behind, a run's CSV in it)
echo "epyc-2vcpu | native | validation | atomics:op=faa | 2 | compact | ops_per_s | native | x2 | | test" \
	>"$tmp/m/validate.ladder"
rm -rf "$tmp/vt" && mkdir "$tmp/vt"
TMPDIR=$tmp/vt RWLAB_SIM_MACHINES=$tmp/m "$rwlab" sim validate epyc-2vcpu >"$tmp/o" 2>"$tmp/e" &
pid=$!
for _ in $(seq 200); do
	[ -n "$(find "$tmp/vt" -name run001.csv)" ] && break
	sleep 0.05
done
kill -INT $pid
wait $pid
st=$?
[ $st = 130 ] && [ -z "$(ls -A "$tmp/vt")" ] &&
	[ "$(cat "$tmp/e")" = "rwlab sim validate: interrupted after 0 of 1 rungs; the runs are removed: --keep DIR keeps them" ] ||
	fail "validate interrupted: exit $st, in \$TMPDIR: $(ls -A "$tmp/vt"), stderr: $(cat "$tmp/e")"

[ $fails = 0 ] && echo "atomics: natively and simulated, futex_pingpong, validate: ok"
exit $((fails > 0))
