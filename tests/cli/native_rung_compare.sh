#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tools/native-rung-compare --across: a cell's figure is the median over the
# machines of each machine's own median, its spread the largest machine
# figure over the smallest, the 16/1 rung the median of each machine's own
# ratio; a rung is judged against that figure and against each machine alone.
# Three made-up machines with known figures; then bad arguments (one line,
# exit 2), --help of the rung tools (usage, nothing run) and the committed
# nine-machine comparison reproduced from its files.
# Usage: native_rung_compare.sh SOURCE_ROOT
. "${0%/*}/../lib.sh"
root=$1
cmp=$root/tools/native-rung-compare

hdr='schema,run,timestamp,variant,workload,threads,iteration,metric,value,unit,host,better'
# row VARIANT WORKLOAD THREADS ITERATION METRIC VALUE
row() { echo "4,r,t,$1,$2,$3,$4,$5,$6,u,h,lower"; }
mk() {	# mk DIR FAA16 (three iterations: FAA16-1, FAA16, FAA16+1) LOCK1 LOCK16
	mkdir -p "$1"
	{ echo "$hdr"; for i in 0 1 2; do row null atomics:faa 16 $i ns_per_op $(($2 - 1 + i)); done; } >"$1/atomics-native.csv"
	{ echo "$hdr"; row rwsem locktest 1 0 total_rate "$3"; row rwsem locktest 16 0 total_rate "$4"; } >"$1/locktest-native.csv"
}
mk "$tmp/a" 300 100 80
mk "$tmp/b" 400 200 100
mk "$tmp/c" 900 100 65
mkdir -p "$tmp/sim"
{ echo "$hdr"; row null atomics:faa 16 0 ns_per_op 390; } >"$tmp/sim/atomics-sim.csv"
{ echo "$hdr"; row rwsem locktest 1 0 total_rate 100; row rwsem locktest 16 0 total_rate 90; } >"$tmp/sim/locktest-sim.csv"
{ echo "$hdr"; row null futex_pingpong 2 0 ns_per_handoff 1000; } >"$tmp/sim/futex-sim.csv"

"$cmp" --across "$tmp/sim" a="$tmp/a" b="$tmp/b" c="$tmp/c" >"$tmp/out" 2>"$tmp/err" || fail "exit $?: $(cat "$tmp/err")"
# faa 16: machine medians 300, 400, 900 -> median 400, spread 3.00, sim 390 -> 0.975
grep -Eq '^null +atomics:faa +16 ns_per_op +300 +400 +900 +400  3 +3\.00 +390 +0\.975$' "$tmp/out" ||
	fail "faa cell line wrong: $(grep 'atomics:faa' "$tmp/out" | head -1)"
# the rung: PASS against 400 (x1.5); alone a (300: 1.3) and b pass, c (900: 0.43) does not
grep -Eq '^null +atomics:faa +16 ns_per_op +400 +390 +0\.975 +x1\.5 PASS +3  2 of 3 \(a,b\)$' "$tmp/out" ||
	fail "faa rung line wrong: $(grep 'atomics:faa.*PASS\|atomics:faa.*FAIL' "$tmp/out")"
# 16/1 per machine: 0.8, 0.5, 0.65 -> median 0.65 (the ratio of the medians, 80/100, would be 0.8)
grep -Eq '^rwsem +locktest +16/1 total_rate +0\.65 +0\.9 +1\.385 +x1\.5 PASS +3  2 of 3 \(a,c\)$' "$tmp/out" ||
	fail "16/1 rung line wrong: $(grep '16/1' "$tmp/out" | grep rwsem)"
# a rung no machine has is NOT RUN, and the count says so
grep -Eq '^null +futex_pingpong +2 ns_per_handoff +nan +1000 +nan +x2 NOT RUN  0  0 of 0$' "$tmp/out" ||
	fail "futex rung without figures not NOT RUN: $(grep 'futex_pingpong +2' "$tmp/out")"
grep -Eq '^[0-9]+ of 38 rungs within tolerance of the machines. median$' "$tmp/out" || fail "no rung count line"

# bad arguments: one line on stderr naming the problem, exit 2
bad() {	# bad WHAT EXPECTED-TEXT ARGS...
	what=$1 want=$2; shift 2
	"$cmp" "$@" >"$tmp/o" 2>"$tmp/e"; rc=$?
	[ $rc = 2 ] || fail "$what: exit $rc, not 2"
	[ "$(wc -l <"$tmp/e")" = 1 ] || fail "$what: $(wc -l <"$tmp/e") lines on stderr"
	grep -q "$want" "$tmp/e" || fail "$what: stderr lacks '$want': $(cat "$tmp/e")"
}
bad "no label" "not LABEL=PATH" --across "$tmp/sim" "$tmp/a"
bad "label twice" "LABEL a given twice" --across "$tmp/sim" a="$tmp/a" a="$tmp/b"
bad "empty dir" "no atomics-, locktest- or futex-native.csv" --across "$tmp/sim" e="$tmp/sim"
bad "too few" "usage" --across "$tmp/sim"
bad "same cell twice" "already read" --across "$tmp/sim" a="$tmp/a,$tmp/a/atomics-native.csv"
# a NaN machine figure sorted nowhere: the median over a, nan, b was 300, 400 or nan by the order given
mkdir -p "$tmp/n" && { echo "$hdr"; row null atomics:faa 16 0 ns_per_op nan; } >"$tmp/n/atomics-native.csv"
bad "NaN value" "data row 1: value 'nan' is not a finite number" --across "$tmp/sim" a="$tmp/a" n="$tmp/n" b="$tmp/b"
{ echo "$hdr"; row null atomics:faa 16 0 ns_per_op inf; } >"$tmp/n/atomics-native.csv"
bad "inf value" "value 'inf' is not a finite number" --across "$tmp/sim" n="$tmp/n"
# a torn last line (an interrupted write) whose value was cut short: '300' was read as 30
{ echo "$hdr"; row null atomics:faa 16 0 ns_per_op 300 | sed 's/0,u,h,lower$//'; } >"$tmp/n/atomics-native.csv"
bad "torn last line" "data row 1 has 9 fields, the header 12 (a torn line" --across "$tmp/sim" n="$tmp/n"
{ echo "$hdr"; row null atomics:faa 16 0 ns_per_op 300 | sed 's/$/,x/'; } >"$tmp/n/atomics-native.csv"
bad "a field too many" "data row 1 has 13 fields, the header 12 (expected" --across "$tmp/sim" n="$tmp/n"
# a calibration record that is not text was a UnicodeDecodeError traceback
mkdir -p "$tmp/cb" && cp "$tmp/a/atomics-native.csv" "$tmp/cb/" && printf 'faa\t\377\376\n' >"$tmp/cb/calibration.txt"
bad "binary calibration.txt" "calibration.txt: not text" --across "$tmp/sim" cb="$tmp/cb"
# labels the tables and the '(a,b)' lists could not show; an empty PATH ("no such file (valid:  or .gz")
bad "label with a space" "LABEL 'a b' holds a space" --across "$tmp/sim" "a b=$tmp/a"
bad "label with a comma" "LABEL 'a,b' holds" --across "$tmp/sim" "a,b=$tmp/a"
bad "label with a newline" "holds a space, a comma or a control character" --across "$tmp/sim" "$(printf 'a\nb')=$tmp/a"
bad "empty PATH" "an empty PATH in the list" --across "$tmp/sim" a="$tmp/a,"
bad "no SIMDIR" "nosuch: no such directory (valid: SIMDIR a directory" --across "$tmp/nosuch" a="$tmp/a"
# stdout full: one line and exit 2, not a traceback
"$cmp" --across "$tmp/sim" a="$tmp/a" >/dev/full 2>"$tmp/e"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && grep -q '^native-rung-compare: standard output: No space left' "$tmp/e" ||
	fail "stdout full: exit $rc, $(head -3 "$tmp/e")"
# --across takes the sim.tar.gz tools/native-rung leaves (named, or beside the SIMDIR named)
(cd "$tmp" && tar czf simtar.tar.gz sim)
"$cmp" --across "$tmp/sim" a="$tmp/a" b="$tmp/b" >"$tmp/dir.out" 2>&1 || fail "--across SIMDIR: exit $?"
for s in "$tmp/simtar.tar.gz" "$tmp/simtar"; do
	"$cmp" --across "$s" a="$tmp/a" b="$tmp/b" >"$tmp/tar.out" 2>&1 || fail "--across $s: exit $?: $(head -2 "$tmp/tar.out")"
	cmp -s "$tmp/dir.out" "$tmp/tar.out" || fail "--across $s differs from its directory's"
done
# PATH NAME.csv.gz is that file, not a NAME.csv beside it
mkdir -p "$tmp/g" && mk "$tmp/g" 500 100 80 && gzip -c "$tmp/a/atomics-native.csv" >"$tmp/g/atomics-native.csv.gz"
"$cmp" --across "$tmp/sim" g="$tmp/g/atomics-native.csv.gz" >"$tmp/o" 2>&1 || fail "--across NAME.csv.gz: exit $?"
grep -Eq '^null +atomics:faa +16 ns_per_op +300 +300  1 ' "$tmp/o" ||
	fail "--across NAME.csv.gz read another file: $(grep 'atomics:faa' "$tmp/o" | head -1)"

# --help prints the usage and runs nothing (native-rung and calibrate would otherwise measure)
for t in native-rung-compare native-rung calibrate; do
	(cd "$tmp" && "$root/tools/$t" --help >"$tmp/h" 2>&1) || fail "$t --help: exit $?"
	grep -q "tools/$t" "$tmp/h" || fail "$t --help: no usage: $(head -2 "$tmp/h")"
	[ -e "$tmp/--help" ] && fail "$t --help made a directory --help"
done
"$root/tools/native-rung" --bogus >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc = 2 ] && grep -q "unknown option --bogus" "$tmp/e" || fail "native-rung --bogus: exit $rc, $(cat "$tmp/e")"
# after OUT too: 'rwlab sim show --help' answers 0, so MACHINE --help passed the machine check and
# the run started (here BIN has no binaries, so the old script stopped at that check instead)
BIN=$tmp/nobin "$root/tools/native-rung" "$tmp/rung-out" --help >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc = 0 ] && grep -q "tools/native-rung OUT" "$tmp/o" || fail "native-rung OUT --help: exit $rc, $(head -2 "$tmp/e")"
[ -e "$tmp/rung-out" ] && fail "native-rung OUT --help made OUT"
BIN=$tmp/nobin "$root/tools/native-rung" "$tmp/rung-out" --bogus >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc = 2 ] && grep -q "unknown option --bogus" "$tmp/e" || fail "native-rung OUT --bogus: exit $rc, $(cat "$tmp/e")"
# calibrate takes no argument: an empty first one let a second through, and the run started
for args in "'' x" "x" "'' -h"; do
	eval "BUILD=$tmp/nobin \"$root/tools/calibrate\" $args" >"$tmp/o" 2>"$tmp/e"; rc=$?
	[ $rc = 2 ] && grep -q "^calibrate: no arguments" "$tmp/e" || fail "calibrate $args: exit $rc, $(cat "$tmp/e")"
done

# the committed comparison is what the tool makes of the committed files
m=$root/results/16cpu/machines-20261204 r=$root/results/16cpu/rung-20261204
if [ -d "$m" ]; then
	"$cmp" --across "$m/sim-f979a926" call1="$r" call2="$r/locktest-cliff-native.csv.gz" \
		call3="$r/atomics-native-3.csv.gz" call4="$r/atomics-runlen-native-4.csv.gz" \
		A="$m/mA" B="$m/mB" C="$m/mC" D="$m/mD" E="$m/mE" >"$tmp/nine" 2>&1 || fail "nine machines: exit $?"
	cmp -s "$tmp/nine" "$m/compare-machine-f979a926.txt" || fail "compare-machine-f979a926.txt differs from the tool's output"
fi
exit $((fails > 0))
