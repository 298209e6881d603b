#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# report never pools one cell's iterations from two simulated models: rows
# whose kernel field ("rwlab-sim VERSION engine HASH machine HASH seed N")
# differs in its engine or machine are refused, in two files or in one, with
# one line naming the cell, both models and --by variant,kernel, which then
# sets them side by side; so does --by run, each run being one model's. Seeds
# of one model are repeated runs and pool. A --by column the files lack is
# said first, whatever they hold.
# Usage: sim_models.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1

# expect_refusal WHAT KIND FILE...: exit 1, one stderr line naming the cell, the two models and the way on
expect_refusal() {
	what=$1 kind=$2
	shift 2
	"$rwlab" report "$@" -m total_rate >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 1 ] || fail "$what: exit $rc, want 1: $(cat "$tmp/out" "$tmp/err")"
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "$what: not one stderr line: $(cat "$tmp/err")"
	[ -s "$tmp/out" ] && fail "$what: a table of pooled models: $(cat "$tmp/out")"
	grep -q "cell rwsem-xadd locktest t=2 was simulated by two $kind ([^']*'rwlab-sim [^']* machine [0-9a-f]*' and 'rwlab-sim [^']* machine [0-9a-f]*'): .*give --by variant,kernel to compare them side by side" "$tmp/err" ||
		fail "$what: the refusal does not name the cell, the two $kind and --by variant,kernel: $(cat "$tmp/err")"
}

cell="--sim generic-8 -l rwsem-xadd -w locktest -t 2 -n 2 -d 50ms -q --no-report"
# shellcheck disable=SC2086
"$rwlab" run $cell -o "$tmp/a.csv" >/dev/null 2>&1 || fail "run --sim: exit $?"
# shellcheck disable=SC2086
"$rwlab" run $cell --seed 2 -o "$tmp/seed2.csv" >/dev/null 2>&1 || fail "run --sim --seed 2: exit $?"
run=$(sed -n 3p "$tmp/a.csv" | cut -d, -f2)
engine=$(grep -o 'engine [0-9a-f]*' "$tmp/a.csv" | head -n 1)
machine=$(grep -o 'machine [0-9a-f]*' "$tmp/a.csv" | head -n 1)
[ -n "$run" ] && [ -n "$engine" ] && [ -n "$machine" ] || fail "no run id, engine or machine hash in a.csv"
# the same cell from another engine (another build's sources) and on another machine file, as other runs
sed "s/$run/${run}0/g; s/$engine/engine 0123456789ab/" "$tmp/a.csv" >"$tmp/engine2.csv"
sed "s/$run/${run}1/g; s/$machine/machine 00c0ffee/" "$tmp/a.csv" >"$tmp/machine2.csv"
cat "$tmp/a.csv" "$tmp/engine2.csv" >"$tmp/both.csv"

expect_refusal "two engines in two files" engines "$tmp/a.csv" "$tmp/engine2.csv"
expect_refusal "two engines in one file" engines "$tmp/both.csv"
expect_refusal "two machine files" machines "$tmp/a.csv" "$tmp/machine2.csv"
expect_refusal "two engines, --by variant" engines "$tmp/a.csv" "$tmp/engine2.csv" --by variant

# two machines by name (--sim generic-8, then generic-4): the refusal names them as --sim did,
# not only by their files' hashes
# shellcheck disable=SC2086
"$rwlab" run $(echo "$cell" | sed 's/generic-8/generic-4/') -o "$tmp/g4.csv" >/dev/null 2>&1 || fail "run --sim generic-4: exit $?"
expect_refusal "generic-8 and generic-4" machines "$tmp/a.csv" "$tmp/g4.csv"
grep -q "was simulated by two machines (generic-8 and generic-4: 'rwlab-sim " "$tmp/err" ||
	fail "generic-8 and generic-4: the refusal does not name the two machines: $(cat "$tmp/err")"

# a mistyped --by column is said first (it said the two engines): exit 2, one line naming the columns --by takes
expect "--by kern over two engines" 2 \
	"^rwlab report: --by 'kern': no column 'kern' in .*/a\.csv \+ .*/engine2\.csv \(valid: run, variant, .*, kernel, .*, fault_path\)$" \
	"$rwlab" report "$tmp/a.csv" "$tmp/engine2.csv" --by kern

# --by run keeps the two engines apart (each run is one model's): a column per run, nothing pooled (it was refused)
"$rwlab" report "$tmp/a.csv" "$tmp/engine2.csv" --by run -m total_rate -f csv >"$tmp/out" 2>"$tmp/err" ||
	fail "--by run: exit $?: $(cat "$tmp/err")"
[ "$(grep -c ',total_rate,op/s,higher,2,2,hmean,' "$tmp/out")" = 2 ] ||
	fail "--by run: not two columns of 2 iterations: $(cat "$tmp/out")"

# side by side with --by variant,kernel: one row per model, each of its own 2 iterations
"$rwlab" report "$tmp/a.csv" "$tmp/engine2.csv" --by variant,kernel -m total_rate -f csv >"$tmp/out" 2>"$tmp/err" ||
	fail "--by variant,kernel: exit $?: $(cat "$tmp/err")"
[ "$(grep -c ',total_rate,op/s,higher,2,2,hmean,' "$tmp/out")" = 2 ] ||
	fail "--by variant,kernel: not two columns of 2 iterations: $(cat "$tmp/out")"

# ... and the banner says what the models differ in: the engine, or only the machine file (both said
# "2 engines"), as the refusal does
"$rwlab" report "$tmp/a.csv" "$tmp/engine2.csv" --by variant,kernel -m total_rate >"$tmp/out" 2>"$tmp/err" ||
	fail "--by variant,kernel, two engines: exit $?: $(cat "$tmp/err")"
grep -q "^simulated: generic-8 on 2 engines (rwlab-sim .* $machine seed 1; rwlab-sim .*engine 0123456789ab $machine seed 1) " \
	"$tmp/out" || fail "two engines side by side: the banner does not say 2 engines: $(head -n 1 "$tmp/out")"
"$rwlab" report "$tmp/a.csv" "$tmp/machine2.csv" --by variant,kernel -m total_rate >"$tmp/out" 2>"$tmp/err" ||
	fail "--by variant,kernel, two machine files: exit $?: $(cat "$tmp/err")"
# ... the engine they share once, then each machine file's part (not "on 2 machines (...)", each field whole)
grep -q "^simulated: generic-8 on rwlab-sim sim-[0-9]* $engine ($machine seed 1; machine 00c0ffee seed 1) " \
	"$tmp/out" || fail "two machine files side by side: the banner does not name the engine once: $(head -n 1 "$tmp/out")"

# two seeds of one model pool: one column of 4 iterations, the banner naming the model once and both seeds
"$rwlab" report "$tmp/a.csv" "$tmp/seed2.csv" -m total_rate >"$tmp/out" 2>"$tmp/err" ||
	fail "two seeds of one model: exit $?: $(cat "$tmp/err")"
grep -q "^simulated: generic-8 on rwlab-sim sim-[0-9]* $engine $machine seeds 1 and 2 (the model's figures" "$tmp/out" ||
	fail "two seeds of one model: the banner does not name the model once and its seeds: $(head -n 1 "$tmp/out")"
"$rwlab" report "$tmp/a.csv" "$tmp/seed2.csv" -m total_rate -f csv >"$tmp/out" 2>"$tmp/err" ||
	fail "two seeds of one model: exit $?: $(cat "$tmp/err")"
[ "$(tail -n +2 "$tmp/out" | wc -l)" = 1 ] && grep -q ',total_rate,op/s,higher,2,4,hmean,' "$tmp/out" ||
	fail "two seeds of one model are not pooled into one cell of 4 iterations: $(cat "$tmp/out")"
echo "sim-models: $fails failures"
exit $((fails > 0))
