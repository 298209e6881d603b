#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Ctrl-C or SIGTERM to `rwlab exec` or `rwlab sim validate` alone, sent while fork() is still under way
# (slow_fork.so holds it a second in the parent or in the child): the signal reaches the run in progress,
# which ends at once, and the command exits 130 keeping what finished. Exec let such a run go on to its
# end (a signal before it knew the child's pid was not passed on, nor was SIGINT at all, and a signal
# that reached the child before its exec was swallowed there); validate, the last case.
#   stop.sh RWLAB SLOW_FORK_SO SOURCE_ROOT
. "${0%/*}/../lib.sh"
rwlab=$(realpath "$1") shim=$(realpath "$2") root=$3
# A sanitizer tree's rwlab wants its runtime first in the library list; the shim is built without one.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
now() { date +%s%N; }

# slowed SIDE:N SIGNAL COMMAND...: COMMAND in the background with its Nth fork slowed on SIDE; SIGNAL to
# it alone once that fork is under way. $rc is its exit status, $took the milliseconds from the signal
# to its end, $tmp/e its stderr.
slowed() {
	slow=$1 sig=$2
	shift 2
	rm -f "$tmp/mark"
	SLOW_FORK=$slow SLOW_FORK_MARK=$tmp/mark LD_PRELOAD=$shim "$@" >"$tmp/o" 2>"$tmp/e" &
	pid=$!
	for _ in $(seq 200); do
		[ -e "$tmp/mark" ] && break
		sleep 0.05
	done
	[ -e "$tmp/mark" ] || fail "$*: the fork was not slowed (no $tmp/mark)"
	t0=$(now)
	kill -"$sig" $pid
	wait $pid
	rc=$? took=$((($(now) - t0) / 1000000))
}

# exec: the first run ends at once, the second sleeps 10 s; the signal comes during its fork.
first=$tmp/first
for c in parent:2:TERM child:2:INT; do
	rm -f "$first" "$tmp/x.csv"
	slowed "${c%:*}" "${c##*:}" "$rwlab" exec -l none -n 3 --force --no-report -o "$tmp/x.csv" -- \
		sh -c '[ -e "$0" ] && exec sleep 10; : >"$0"' "$first"
	what="exec, SIG${c##*:} during the ${c%%:*}'s side of fork"
	[ $rc = 130 ] && [ $took -lt 5000 ] || fail "$what: exit $rc (want 130) after $took ms (want < 5000)"
	[ "$(tail -n 1 "$tmp/e")" = "rwlab exec: interrupted after 1 of 3 runs; they are in $tmp/x.csv (the run in progress is not)" ] ||
		fail "$what: $(tail -n 1 "$tmp/e")"
	[ "$(awk -F, '$1 == 4 && $8 == "wall_s" {print $4 "/" $7}' "$tmp/x.csv")" = none/0 ] ||
		fail "$what: runs written: $(awk -F, '$1 == 4 && $8 == "wall_s" {print $4 "/" $7}' "$tmp/x.csv" | tr '\n' ' ')"
done

# validate: a rung whose figure is a native run (2 s); SIGINT while its child is still inside fork, which
# passed it on there and then: the child ends before it runs anything (it ran the whole rung, its log
# and CSV kept).
mkdir "$tmp/m"
cp "$root"/sim/machines/*.machine "$tmp/m/"
echo "epyc-2vcpu | native | validation | atomics:op=faa | 2 | compact | ops_per_s | native | x2 | | test" \
	>"$tmp/m/validate.ladder"
RWLAB_SIM_MACHINES=$tmp/m slowed child:1 INT "$rwlab" sim validate epyc-2vcpu --keep "$tmp/keep"
[ $rc = 130 ] && [ -z "$(ls "$tmp/keep" | grep -v '^run001\.log$')" ] && [ ! -s "$tmp/keep/run001.log" ] &&
	[ "$(cat "$tmp/e")" = "rwlab sim validate: interrupted after 0 of 1 rungs; the runs are kept in $tmp/keep" ] ||
	fail "validate, SIGINT during the child's side of fork: exit $rc (want 130), kept: $(ls "$tmp/keep"), stderr: $(cat "$tmp/e")"

[ $fails = 0 ] && echo "stop: exec and sim validate pass a signal on to the run in progress: ok"
exit $((fails > 0))
