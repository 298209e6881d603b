#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# torture --kill finds v5.3's out_nolock bug, deterministically under --sim:
# - rwsem-rspin (v5.3 as released), 3 readers + 3 writers, 200 ms of
#   generic-4: some of seeds 1..20 fail; the first failing seed fails again
#   with the wait_lock invariant "HANDOFF with no waiter", torture names it
#   as v5.3's own bug with the two commits that fixed it (d257cc8cb8d5,
#   1ee326196c66), and replays the same first warning;
# - the fixed ones pass the same 20 schedules (seeds 1..20): rwsem-rspin with
#   the fix applied (out_nolock=v5.19), mainline rwsem and rwsem-dhandoff,
#   while their waiters did ask for HANDOFF (the check had something to see:
#   counted on the failing seed's schedule).
# Usage: torture_handoff.sh RWLAB
set -u
rwlab=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
args="--kill --sim generic-4 --readers 3 --writers 3 -d 200ms"

# shellcheck disable=SC2086
"$rwlab" torture $args -l rwsem-rspin --seed 1 --seeds 20 >"$tmp/many" 2>&1
grep -q 'rwlab torture: --sim generic-4: 20 of 20 seeds done (1..20): [0-9]* SUCCESS, [1-9][0-9]* FAILURE' "$tmp/many" ||
	fail "rwsem-rspin, seeds 1..20: no schedule found the bug: $(tail -1 "$tmp/many")"
seed=$(sed -n 's/^rwlab torture: replay: .* --seed \([0-9]*\)$/\1/p' "$tmp/many" | head -1)
[ -n "$seed" ] || { fail "no replay line"; seed=1; }
# shellcheck disable=SC2086
for run in 1 2; do
	"$rwlab" torture $args -l rwsem-rspin --seed "$seed" >"$tmp/bug$run" 2>&1
	[ $? -eq 1 ] || fail "rwsem-rspin seed $seed did not fail again: $(tail -3 "$tmp/bug$run")"
done
grep -q 'first warning after .*: rwsem-rspin: HANDOFF with no waiter' "$tmp/bug1" ||
	fail "rwsem-rspin seed $seed: no 'HANDOFF with no waiter' warning: $(grep -E 'warning|FAILURE' "$tmp/bug1")"
for c in d257cc8cb8d5 1ee326196c66 "kernel's own documented bug"; do
	grep -q "$c" "$tmp/bug1" || fail "rwsem-rspin's failure does not name $c: $(grep -i bug "$tmp/bug1")"
done
grep 'first warning' "$tmp/bug1" >"$tmp/w1"
grep 'first warning' "$tmp/bug2" >"$tmp/w2"
cmp -s "$tmp/w1" "$tmp/w2" || fail "seed $seed twice gave different first warnings: $(cat "$tmp/w1" "$tmp/w2")"

for l in rwsem-rspin:out_nolock=v5.19 rwsem rwsem-dhandoff; do
	# shellcheck disable=SC2086
	"$rwlab" torture $args -l $l --seed 1 --seeds 20 >"$tmp/ok" 2>&1 ||
		fail "$l failed under torture --kill: $(grep -E 'first warning|rwlab-sim' "$tmp/ok" | head -4)"
	grep -q '20 SUCCESS, 0 FAILURE' "$tmp/ok" || fail "$l: $(tail -1 "$tmp/ok")"
	# shellcheck disable=SC2086
	"$rwlab" torture $args -l $l --seed "$seed" >"$tmp/one" 2>&1
	n=$(sed -n 's/.*HANDOFF requests: \([0-9]*\) by reader heads, \([0-9]*\) by writers.*/\1 \2/p' "$tmp/one")
	[ -n "$n" ] || { echo "event counts off: HANDOFF requests not checked for $l"; continue; }
	# shellcheck disable=SC2086
	set -- $n
	[ $(($1 + $2)) -gt 0 ] || fail "$l seed $seed: no waiter asked for HANDOFF ($n)"
done

[ $fails -eq 0 ] && echo "ok: v5.3's out_nolock bug found (first at seed $seed) and named; the fixed variants pass 20 seeds"
[ $fails -eq 0 ]
