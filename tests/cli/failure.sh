#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The runner's failure channel: a failure injected into one
# cell (RWLAB_FAULT_INJECT, harness/fault.h) makes `rwlab run` exit 1 and name
# that cell; the other cell still runs and only its rows reach the CSV.
#   usage: failure.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1

# check SITE VARIANT_THAT_FAILS VARIANT_THAT_RUNS EXPECTED_CAUSE
check() {
	out=$tmp/$1.csv
	RWLAB_FAULT_INJECT="$1=$2" "$rwlab" run -l pthread,null -w locktest -t 2 -n 2 -d 20ms --warmup 0 \
		-o "$out" --no-report -q >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	if [ "$rc" != 1 ]; then
		echo "FAIL $1: exit $rc, want 1"; cat "$tmp/stderr"; fails=$((fails + 1)); return
	fi
	if ! grep -q "^rwlab run: cell $2 locktest t=2 failed: $4" "$tmp/stderr"; then
		echo "FAIL $1: the failed cell is not named with its cause"; cat "$tmp/stderr"; fails=$((fails + 1))
	fi
	if ! grep -q "cells failed.*: $2 locktest t=2\$" "$tmp/stderr"; then
		echo "FAIL $1: the closing line does not name the failed cell"; cat "$tmp/stderr"; fails=$((fails + 1))
	fi
	if grep -q ",$2,locktest," "$out" || ! grep -q ",$3,locktest," "$out"; then
		echo "FAIL $1: want rows of $3 only in the CSV"; fails=$((fails + 1))
	fi
	echo "ok $1: exit 1, cell $2 named"
}

check pthread_create null pthread "creating worker thread 2 of 2"
check prepare pthread null "prepare: "
check worker null pthread "worker 0: injected failure"

# A must-be-zero count that is not: exit 1 naming the cell;
# its rows stay in the CSV marked cell_failed; report leaves it out, naming
# it, unless --include-failed.
out=$tmp/mz.csv
RWLAB_FAULT_INJECT=must_be_zero=null "$rwlab" run -l pthread,null -w locktest -t 2 -n 2 -d 20ms --warmup 0 \
	-o "$out" --no-report -q 2>"$tmp/stderr"
rc=$?
[ "$rc" = 1 ] || { echo "FAIL must_be_zero: exit $rc, want 1"; fails=$((fails + 1)); }
grep -q "^rwlab run: cell null locktest t=2 failed: errors = 1 in iteration 1 (must be 0" "$tmp/stderr" ||
	{ echo "FAIL must_be_zero: cell not named"; cat "$tmp/stderr"; fails=$((fails + 1)); }
[ "$(grep -c ',null,locktest,2,[01],cell_failed,1,' "$out")" = 2 ] ||
	{ echo "FAIL must_be_zero: want a cell_failed row in each of the 2 iterations"; fails=$((fails + 1)); }
"$rwlab" report "$out" -f csv >"$tmp/rep" 2>"$tmp/rerr"
grep -q "cell null locktest t=2 failed.*left out" "$tmp/rerr" && ! grep -q null "$tmp/rep" ||
	{ echo "FAIL must_be_zero: report compared the failed cell"; cat "$tmp/rep" "$tmp/rerr"; fails=$((fails + 1)); }
"$rwlab" report "$out" -f csv --include-failed >"$tmp/rep" 2>"$tmp/rerr"
grep -q null "$tmp/rep" || { echo "FAIL must_be_zero: --include-failed left it out"; fails=$((fails + 1)); }
echo "ok must_be_zero: exit 1, cell named, rows marked, report leaves it out"

# A file whose every cell failed: report says so (it said "no rows to report ... (metrics: )", exit 0)
RWLAB_FAULT_INJECT=must_be_zero=null "$rwlab" run -l null -w locktest -t 1 -n 1 -d 10ms --warmup 0 \
	-o "$tmp/af.csv" --no-report -q 2>/dev/null
"$rwlab" report "$tmp/af.csv" >"$tmp/o" 2>"$tmp/e"
rc=$?
[ $rc = 1 ] && [ ! -s "$tmp/o" ] && [ "$(tail -n 1 "$tmp/e")" = "rwlab report: $tmp/af.csv: every cell was left out (failed or unfinished): nothing to report; --include-failed compares the failed ones" ] ||
	{ echo "FAIL report of a file of failed cells: exit $rc: $(cat "$tmp/o" "$tmp/e")"; fails=$((fails + 1)); }

# --resume of a file where such a cell failed in one iteration only and other cells follow it:
# the cell ran every iteration, so it is finished (the injection fails every iteration; the
# first iteration's mark is taken out to stand for a count that was 0 there).
out=$tmp/mz1.csv
RWLAB_FAULT_INJECT=must_be_zero=null "$rwlab" run -l null,pthread -w locktest -t 2 -n 2 -d 20ms --warmup 0 \
	-o "$out" --no-report -q 2>/dev/null
sed -i '/,null,locktest,2,0,cell_failed,/d' "$out"
"$rwlab" run -l null,pthread -w locktest -t 2 -n 2 -d 20ms --warmup 0 -o "$out" --no-report -q --resume \
	2>"$tmp/stderr"
rc=$?
[ "$rc" = 0 ] && grep -q 'resuming .*mz1.csv: 2 finished cells kept, 0 of this matrix to run' "$tmp/stderr" ||
	{ echo "FAIL resume after a one-iteration cell_failed: exit $rc"; cat "$tmp/stderr"; fails=$((fails + 1)); }
echo "ok resume keeps a cell marked cell_failed in some of its iterations"

# Without injection the same run succeeds (the checks above can fail for the right reason only).
"$rwlab" run -l pthread,null -w locktest -t 2 -n 2 -d 20ms --warmup 0 -o "$tmp/ok.csv" --no-report -q 2>"$tmp/stderr"
rc=$?
[ "$rc" = 0 ] || { echo "FAIL: clean run exit $rc"; cat "$tmp/stderr"; fails=$((fails + 1)); }
exit $((fails > 0))
