#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-lazy's CSV as report reads it:
# - no percent change of a *_over_none difference (it is signed, and 0 for
#   none), under any baseline.
# Usage: bench_lazy.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1
tiny="--round-trips 200 --switches 2000"

# 1. The CSV and its report.
"$rwlab" bench-lazy -m refcount $tiny -n 3 -o "$tmp/l.csv" >"$tmp/o" 2>"$tmp/e" || fail "bench-lazy: exit $?: $(cat "$tmp/e")"
"$rwlab" report "$tmp/l.csv" -m round_trip_ns,switch_ns_over_none >"$tmp/r" 2>"$tmp/e" ||
	fail "report: exit $?: $(cat "$tmp/e")"
# a difference: no change (no %) in its table, and a line that says why
awk '/switch_ns_over_none/ { f = 1 } f' "$tmp/r" >"$tmp/d"
grep -Eq '[-+][0-9][0-9,.]*%' "$tmp/d" && fail "switch_ns_over_none: a percent change of a difference: $(cat "$tmp/d")"
grep -q 'gain vs\|^change: ' "$tmp/d" && fail "switch_ns_over_none: the table says it shows a change: $(cat "$tmp/d")"
grep -q '^no change shown: the metric is a difference' "$tmp/d" || fail "switch_ns_over_none: no line saying why no change"
for b in pipe refcount none; do
	"$rwlab" report "$tmp/l.csv" -b $b -f csv -m round_trip_ns_over_none >"$tmp/c" 2>&1
	awk -F, 'NR > 1 && $16 != "" { bad = 1 } END { exit !bad }' "$tmp/c" &&
		fail "report -b $b -f csv: a change_pct of a difference: $(cat "$tmp/c")"
done

echo "bench-lazy: $fails failures"
exit $((fails > 0))
