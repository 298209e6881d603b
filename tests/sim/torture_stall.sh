#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# torture reports a stall instead of hanging: rwsem-rspin (v5.3 as released,
# whose hidden release can leave the lock free with waiters asleep and
# spinners in osq_lock forever: tests/regression/rwsem_rspin_reader_spin.c)
# does so on epyc9654-2s384 at seed 3 (default duration, 256 readers and 256
# writers; on sim-17 seed 3 is the one of seeds 1-30 that stalls, on sim-16
# it was seed 18). The threads still in lock acquisition 1 s (simulated) after the
# end of the test are one FAILURE line; the variant after it is not run and
# named; the exit status is 1; it takes host seconds, not forever. With
# --seeds the stalled seed is a FAILURE among the others, which still run.
# Which seeds stall is the default build's schedule (jemalloc, no sanitizer:
# the engine keys cache lines by address), so meson runs it there only.
# Usage: torture_stall.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1
sim="--sim epyc9654-2s384"

t0=$(date +%s)
# shellcheck disable=SC2086
timeout 120 "$rwlab" torture $sim -l rwsem-rspin,rwsem --seed 3 >"$tmp/one" 2>&1
st=$?
t1=$(date +%s)
[ $st -eq 1 ] || fail "seed 3: exit $st, not 1 (124: it hung): $(tail -3 "$tmp/one")"
[ $((t1 - t0)) -le 60 ] || fail "seed 3 took $((t1 - t0)) s of host time"
grep -Eq '^rwsem-rspin-torture:--- End of test: FAILURE: stall: [1-9][0-9]* of 512 threads still in lock acquisition 1s after the end of the test \([0-9]+ writers, [0-9]+ readers\).* !!!$' "$tmp/one" ||
	fail "seed 3: no stall line: $(grep -E 'FAILURE|SUCCESS' "$tmp/one")"
grep -q '^rwsem-rspin-torture: Writes:  Total: [1-9]' "$tmp/one" || fail "seed 3: no statistics before the stall line"
grep -q '^rwlab torture: FAILURE: 1 of 1 variant failed: rwsem-rspin (stall)$' "$tmp/one" ||
	fail "seed 3: summary: $(grep '^rwlab torture' "$tmp/one")"
grep -q '^rwlab torture: not run after the stall: rwsem$' "$tmp/one" || fail "seed 3: the variant after it not named"
grep -q '^rwsem-torture:' "$tmp/one" && fail "seed 3: rwsem ran after the stall"

# shellcheck disable=SC2086
timeout 120 "$rwlab" torture $sim -l rwsem-rspin --seed 2 --seeds 2 -j 2 >"$tmp/many" 2>"$tmp/many.err"
st=$?
[ $st -eq 1 ] || fail "seeds 2..3: exit $st, not 1: $(tail -3 "$tmp/many")"
grep -q '^rwlab torture: --sim epyc9654-2s384: 2 of 2 seeds done (2..3): 1 SUCCESS, 1 FAILURE$' "$tmp/many" ||
	fail "seeds 2..3: $(tail -1 "$tmp/many")"
grep -q '^rwlab torture: seed 3: FAILURE (exit 1): rwsem-rspin (stall); its output:$' "$tmp/many" ||
	fail "seeds 2..3: seed 3 not named: $(grep 'seed 3' "$tmp/many")"
grep -q 'rwsem-rspin-torture:--- End of test: FAILURE: stall: ' "$tmp/many" || fail "seeds 2..3: no stall line"

[ $fails -eq 0 ] && echo "ok: rwsem-rspin's stall at seed 3 reported in $((t1 - t0)) s: $(grep 'End of test: FAILURE: stall' "$tmp/one")"
[ $fails -eq 0 ]
