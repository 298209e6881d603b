#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# torture --sim --seeds N -j J: one rwlab-sim per seed, J at once (harness/sim_seeds.c).
# - the output and the exit status are the same for -j 1 and -j 3, failing seeds
#   included (busted fails every seed, rwsem passes): each failing seed's header names
#   its seed and the variant, then its output and its replay, in seed order; the summary
#   counts the seeds done of all; stderr names the first failure and its replay;
# - the first failure's replay prints the same counts as its seed did in the sweep;
# - --events: one 'paths:' line per passing seed and variant, in seed order;
# - SIGTERM to the front mid-sweep: it stops at once (exit 130), says how many seeds
#   were done, and leaves no rwlab-sim running;
# - -j without --sim, and -j 0, are refused in one line (exit 2).
# Usage: torture_jobs.sh RWLAB
set -u
rwlab=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
lines() { wc -l <"$1" | tr -d ' '; }

args="--sim generic-4 --readers 2 --writers 2"
for j in 1 3; do
	# shellcheck disable=SC2086
	"$rwlab" torture $args -d 1ms -l rwsem,busted --seeds 5 --seed 2 -j $j >"$tmp/j$j" 2>&1
	echo "exit $?" >>"$tmp/j$j"
done
cmp -s "$tmp/j1" "$tmp/j3" || fail "-j 1 and -j 3 differ: $(diff "$tmp/j1" "$tmp/j3" | head -4)"
grep -q '^exit 1$' "$tmp/j1" || fail "busted failing: not exit 1: $(tail -1 "$tmp/j1")"
grep -q '^rwlab torture: --sim generic-4: 5 of 5 seeds done (2..6): 0 SUCCESS, 5 FAILURE$' "$tmp/j1" ||
	fail "summary: $(grep 'seeds done' "$tmp/j1")"
[ "$(grep -c '^rwlab torture: seed [2-6]: FAILURE (exit 1): busted; its output:$' "$tmp/j1")" = 5 ] ||
	fail "failing seeds not named with their variant: $(grep ': FAILURE (' "$tmp/j1" | head -2)"
grep '^rwlab torture: seed [0-9]*: FAILURE' "$tmp/j1" | sed 's/: FAILURE.*//; s/.* //' | tr '\n' ' ' >"$tmp/order"
[ "$(cat "$tmp/order")" = "2 3 4 5 6 " ] || fail "seeds not in seed order: $(cat "$tmp/order")"
grep -q '^rwlab torture: first failure: seed 2 (busted); it replays exactly with:$' "$tmp/j1" ||
	fail "no first failure line: $(grep 'first' "$tmp/j1")"
replay=$(grep -A1 '^rwlab torture: first failure' "$tmp/j1" | tail -1)
[ "$replay" = "rwlab torture --readers 2 --writers 2 -d 1ms -l rwsem,busted --sim generic-4 --seed 2" ] ||
	fail "replay line: $replay"
# shellcheck disable=SC2086
"$rwlab" ${replay#rwlab } >"$tmp/replay" 2>&1
[ $? = 1 ] || fail "the replay of seed 2 did not fail"
sed -n '/^rwlab torture: seed 2: FAILURE/,/^rwlab torture: replay/p' "$tmp/j1" | grep -- '-torture: \(Writes\|Reads\)' >"$tmp/want"
grep -- '-torture: \(Writes\|Reads\)' "$tmp/replay" >"$tmp/got"
[ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got" || fail "seed 2's replay differs: $(diff "$tmp/want" "$tmp/got" | head -2)"

# --events on passing seeds: their paths lines, in seed order, the same whatever -j
for j in 1 2; do
	# shellcheck disable=SC2086
	"$rwlab" torture $args -d 1ms -l rwsem --seeds 4 --events -j $j >"$tmp/e$j" 2>&1 || fail "rwsem --seeds 4 -j $j: exit $?"
done
cmp -s "$tmp/e1" "$tmp/e2" || fail "--events: -j 1 and -j 2 differ"
sed -n 's/^rwlab torture: seed \([0-9]*\): rwsem-torture: paths: handoffs=[0-9]* wakeups=[0-9]* switches=.*/\1/p' \
	"$tmp/e1" | tr '\n' ' ' >"$tmp/order"
[ "$(cat "$tmp/order")" = "1 2 3 4 " ] || fail "--events: paths lines of seeds '$(cat "$tmp/order")', not 1..4"
grep -q '4 of 4 seeds done (1..4): 4 SUCCESS, 0 FAILURE$' "$tmp/e1" || fail "--events summary: $(tail -1 "$tmp/e1")"

# the paths line names only the verbs the variant has (as the Start line does): rwsem's downgrades,
# none for percpu-rwsem (it said downgrades=0); tools/torture-sweep reads both, a row for each count there is
sweep=${0%/*}/../../tools/torture-sweep
if command -v python3 >/dev/null; then
	# shellcheck disable=SC2086
	python3 "$sweep" -b "$(dirname "$rwlab")" -m generic-4 -n 2 -d 1ms -o "$tmp/sweep" -- $args -l rwsem,percpu-rwsem \
		>"$tmp/table" 2>&1 || fail "torture-sweep of rwsem and percpu-rwsem: exit $?: $(tail -2 "$tmp/table")"
	[ "$(grep -c '^rwlab torture: seed [12]: rwsem-torture: paths: .* downgrades=[0-9]* trylock_fail=' "$tmp/sweep")" = 2 ] ||
		fail "rwsem's paths lines have no downgrades: $(grep 'rwsem-torture: paths' "$tmp/sweep" | head -1)"
	[ "$(grep -c '^rwlab torture: seed [12]: percpu-rwsem-torture: paths: ' "$tmp/sweep")" = 2 ] &&
		! grep 'percpu-rwsem-torture: paths: ' "$tmp/sweep" | grep -q downgrades ||
		fail "percpu-rwsem has no downgrade_write, but its paths line counts downgrades: $(grep 'percpu-rwsem-torture: paths' "$tmp/sweep" | head -1)"
	# handoffs and wakeups the same way, from the lock events the variant counts: percpu-rwsem counts
	# no handoff event (it said handoffs=0), rwsem counts both
	grep 'percpu-rwsem-torture: paths: ' "$tmp/sweep" | grep -q ' wakeups=' &&
		! grep 'percpu-rwsem-torture: paths: ' "$tmp/sweep" | grep -q handoffs= &&
		[ "$(grep -c '^rwlab torture: seed [12]: rwsem-torture: paths: handoffs=[0-9]* wakeups=' "$tmp/sweep")" = 2 ] ||
		fail "paths lines: handoffs for percpu-rwsem, or not both for rwsem: $(grep -- '-torture: paths' "$tmp/sweep" | cut -c1-120)"
	grep -Eq '^rwsem +downgrades +[0-9]+' "$tmp/table" && grep -Eq '^percpu-rwsem +trylock_fail +0 ' "$tmp/table" &&
		grep -Eq '^percpu-rwsem +percpu_rwsem_slow_read +[1-9]' "$tmp/table" && ! grep -Eq '^percpu-rwsem +downgrades' "$tmp/table" ||
		fail "torture-sweep's table: not rwsem's downgrades and none of percpu-rwsem's: $(grep downgrades "$tmp/table")"
else
	echo "torture_jobs: no python3: tools/torture-sweep not checked"
fi

# SIGTERM mid-sweep: stops at once, counts what was done, leaves no seed running (--think 21 marks them)
# shellcheck disable=SC2086
"$rwlab" torture $args -l rwsem -d 20ms --think 21 --seeds 100000 -j 2 >"$tmp/t" 2>&1 &
pid=$!
sleep 1
kill -TERM $pid
t0=$(date +%s)
wait $pid
st=$?
[ $st = 130 ] || fail "SIGTERM mid-sweep: exit $st, not 130: $(tail -2 "$tmp/t")"
[ $(($(date +%s) - t0)) -le 5 ] || fail "SIGTERM mid-sweep: took $(($(date +%s) - t0)) s to stop"
grep -q '^rwlab torture: --sim generic-4: [0-9]* of 100000 seeds done (1..100000): [0-9]* SUCCESS, 0 FAILURE; interrupted$' "$tmp/t" ||
	fail "SIGTERM mid-sweep: $(tail -1 "$tmp/t")"
if command -v pgrep >/dev/null; then
	left=$(pgrep -f -- "rwlab-sim .*--think 21" | tr '\n' ' ')
	[ -z "$left" ] || fail "SIGTERM mid-sweep left seeds running: $left"
fi

# refusals
"$rwlab" torture -j 2 -d 1ms -l rwsem >/dev/null 2>"$tmp/r"
[ $? = 2 ] && [ "$(lines "$tmp/r")" = 1 ] && grep -q -- '-j needs --sim MACHINE' "$tmp/r" || fail "-j natively: $(cat "$tmp/r")"
# under --sim without --seeds: one schedule, so -j had nothing to run at once and was ignored in silence
# shellcheck disable=SC2086
"$rwlab" torture $args -j 2 -d 1ms -l rwsem >/dev/null 2>"$tmp/r"
[ $? = 2 ] && [ "$(lines "$tmp/r")" = 1 ] && grep -q -- '-j needs --sim MACHINE and --seeds N' "$tmp/r" ||
	fail "-j under --sim without --seeds: $(cat "$tmp/r")"
# shellcheck disable=SC2086
"$rwlab" torture $args -d 1ms -l rwsem --seeds 2 -j 0 >/dev/null 2>"$tmp/r"
[ $? = 2 ] && [ "$(lines "$tmp/r")" = 1 ] || fail "-j 0: $(cat "$tmp/r")"

[ $fails -eq 0 ] && echo "ok: torture --seeds -j: the same output whatever -j, first failure named and replayed, SIGTERM stops it"
[ $fails -eq 0 ]
