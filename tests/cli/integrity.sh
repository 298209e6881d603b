#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Result files that cannot be silently corrupted or double-counted: report
# refuses a file given twice and a duplicated row (and --allow-duplicates
# counts each once), refuses inf, nan, hexadecimal and impossible negative
# values naming FILE:LINE, accepts a denormal, and leaves out an unfinished
# last cell (the tail of an interrupted write) unless --include-failed.
# Usage: integrity.sh RWLAB DATA-DIR
set -uo pipefail
rwlab=$1 data=$2
case $rwlab in /*) ;; *) rwlab=$PWD/$rwlab ;; esac
case $data in /*) ;; *) data=$PWD/$data ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# refused CMD... : exit 1 and exactly one line on stderr; the line in $line
refused() {
	"$@" >out 2>err
	local rc=$?
	line=$(cat err)
	[ $rc = 1 ] || fail "'$*' exited $rc, want 1: $line"
	[ "$(wc -l <err)" = 1 ] || fail "'$*': not one line on stderr: $line"
}

# A real run: two cells of two iterations, every row with its context.
"$rwlab" run -l rwsem,rwsem-xadd -w locktest:load=10 -t 1 -n 2 -d 20ms --warmup 0 -q --no-report -o a.csv 2>/dev/null ||
	fail "run: exit $?"
cp a.csv a-copy.csv
rows=$(($(wc -l <a.csv) - 1))

# The same run twice: refused, naming both rows; --allow-duplicates counts each row once.
refused "$rwlab" report a.csv a-copy.csv -f csv
echo "$line" | grep -q '^rwlab report: a-copy.csv:2: the row repeats a.csv:2 (run .*, iteration 0, metric .*): the same run in two files (a file given twice?); give --allow-duplicates to count each such row once$' ||
	fail "a file given twice: $line"
"$rwlab" report a.csv -f json -m total_rate >one.json 2>/dev/null || fail "report a.csv: exit $?"
"$rwlab" report a.csv a-copy.csv --allow-duplicates -f json -m total_rate >two.json 2>err ||
	fail "--allow-duplicates: exit $?: $(cat err)"
grep -q "rwlab report: a.csv + a-copy.csv: $rows rows repeat an earlier row's run, cell, iteration and metric: left out" err ||
	fail "--allow-duplicates does not say what it left out: $(cat err)"
# the same figures as the file alone: n 2, not 4 (the JSON's series, the context aside)
cmp -s <(grep '"n":' one.json) <(grep '"n":' two.json) || fail "--allow-duplicates pooled the copy: $(grep -m1 '"n":' two.json)"
grep -q '"n": 2,' two.json || fail "--allow-duplicates: $(grep -m1 '"n":' two.json)"

# One row written twice in one file.
{ cat a.csv; sed -n 2p a.csv; } >dup.csv
refused "$rwlab" report dup.csv
echo "$line" | grep -q "^rwlab report: dup.csv:$((rows + 2)): the row repeats dup.csv:2 .*: a row written twice, which no rwlab run does" ||
	fail "a duplicated row: $line"

# Values: inf, -inf, nan, hexadecimal, and a negative rate: refused with FILE:LINE; a denormal is a number.
field=$(head -1 a.csv | tr ',' '\n' | grep -nx value | cut -d: -f1)
setv() {	# setv LINE VALUE OUT: a.csv with the value field of LINE replaced
	awk -F, -v OFS=, -v l="$1" -v v="$2" -v f="$field" 'NR == l { $f = v } { print }' a.csv >"$3"
}
for v in inf -inf nan NaN 0x1p10 1e999; do
	setv 3 "$v" bad.csv
	refused "$rwlab" report bad.csv
	case $v in 0x*) want="value '$v' is hexadecimal, not a decimal number" ;; *) want="value '$v' is not a finite number" ;; esac
	echo "$line" | grep -qF "rwlab report: bad.csv:3: $want" || fail "value $v: $line"
done
n=$(awk -F, -v f="$field" 'NR > 1 && $8 == "total_rate" { print NR; exit }' a.csv)
setv "$n" -5 neg.csv
refused "$rwlab" report neg.csv
echo "$line" | grep -qF "rwlab report: neg.csv:$n: value -5 of metric 'total_rate' is negative, which its unit 'op/s' cannot be" ||
	fail "a negative rate: $line"
setv "$n" 4.9e-324 denormal.csv
"$rwlab" report denormal.csv -f json -m total_rate >den.json 2>err || fail "a denormal value was refused: $(cat err)"
grep -q '4\.94065645[0-9]*e-324' den.json || fail "the denormal is not among the values: $(grep -m1 values den.json)"

# An unfinished last cell (a write cut at a row boundary): left out and named, unless --include-failed.
head -n -3 a.csv >cut.csv
"$rwlab" report cut.csv -f csv >cut.out 2>err || fail "report of a cut file: exit $?"
grep -q "^rwlab report: cut.csv:[0-9]*: cell .* t=1 is unfinished (not iterations 0..1 with as many rows each: an interrupted write): left out (--include-failed compares it)$" err ||
	fail "the unfinished cell is not named: $(cat err)"
[ "$(grep -c ',locktest:load=10,' cut.out)" = 1 ] || fail "the unfinished cell is in the table: $(cat cut.out)"
"$rwlab" report cut.csv -f csv --include-failed >cut2.out 2>err || fail "--include-failed: exit $?"
[ "$(grep -c ',locktest:load=10,' cut2.out)" = 2 ] || fail "--include-failed left the unfinished cell out: $(cat cut2.out)"

[ $fails = 0 ] && echo "all integrity checks passed"
exit $((fails > 0))
