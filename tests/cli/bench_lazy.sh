#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-lazy's CSV as report and plot read it, and its Ctrl-C:
# - one row per repetition and metric (iteration 0..n-1), the settings
#   recording the reference and the sizes, so report compares against none
#   without -b and counts the repetitions as iterations;
# - no percent change of a *_over_none difference (it is signed, and 0 for
#   none), under any baseline;
# - SIGINT after some repetitions: they stay in the CSV, one line says how
#   many of how many, exit 130;
# - plot draws an ns metric in a unit its values reach (us here), not in ms.
# Usage: bench_lazy.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1
tiny="--round-trips 200 --switches 2000"

# 1. The CSV and its report.
"$rwlab" bench-lazy -m refcount $tiny -n 3 -o "$tmp/l.csv" >"$tmp/o" 2>"$tmp/e" || fail "bench-lazy: exit $?: $(cat "$tmp/e")"
grep -q "settings=baseline=none reps=3 round-trips=200 switches=2000," "$tmp/l.csv" ||
	fail "bench-lazy: the settings do not record the reference and the sizes: $(grep -o 'settings=[^,]*' "$tmp/l.csv")"
# every (variant, metric) in iterations 0, 1 and 2, once each
bad=$(awk -F, '$1 !~ /^(#|schema)/ { n[$4 " " $8]++; it[$4 " " $8 " " $7]++ }
	END { for (k in n) if (n[k] != 3) print k; for (k in it) if (it[k] != 1) print k }' "$tmp/l.csv")
[ -z "$bad" ] || fail "bench-lazy -n 3: not one row per repetition: $bad"
grep -q ',round_trip_ns_min,' "$tmp/l.csv" && fail "bench-lazy: a summary row (round_trip_ns_min) among the repetitions"
"$rwlab" report "$tmp/l.csv" -f csv -m all >"$tmp/r.csv" 2>"$tmp/e" || fail "report -f csv: exit $?: $(cat "$tmp/e")"
awk -F, 'NR > 1 && $8 != 3 { bad = 1 } END { exit !bad }' "$tmp/r.csv" &&
	fail "report: a series without its 3 repetitions: $(awk -F, '$8 != 3' "$tmp/r.csv" | head -n 3)"
"$rwlab" report "$tmp/l.csv" -m round_trip_ns,switch_ns_over_none >"$tmp/r" 2>"$tmp/e" ||
	fail "report: exit $?: $(cat "$tmp/e")"
grep -q '^  gain vs none ' "$tmp/r" && ! grep -q 'vs pipe' "$tmp/r" ||
	fail "report of a bench-lazy file: the changes are not against none: $(cat "$tmp/r")"
# a difference: no change (no %) in its table, and a line that says why
awk '/switch_ns_over_none/ { f = 1 } f' "$tmp/r" >"$tmp/d"
grep -Eq '[-+][0-9][0-9,.]*%' "$tmp/d" && fail "switch_ns_over_none: a percent change of a difference: $(cat "$tmp/d")"
grep -q 'gain vs\|^change: ' "$tmp/d" && fail "switch_ns_over_none: the table says it shows a change: $(cat "$tmp/d")"
grep -q '^no change shown: the metric is a difference' "$tmp/d" || fail "switch_ns_over_none: no line saying why no change"
# so in mmtests' layout (blank change cells, the same line) and LKP's (the change in units, no %)
"$rwlab" report "$tmp/l.csv" -f mmtests -m switch_ns_over_none,round_trip_ns >"$tmp/mm" 2>"$tmp/e" ||
	fail "report -f mmtests: exit $?: $(cat "$tmp/e")"
grep 'switch_ns_over_none' "$tmp/mm" | grep -q '%' && fail "-f mmtests: a percent change of a difference: $(cat "$tmp/mm")"
grep 'round_trip_ns-1 ' "$tmp/mm" | grep -q '%)' && grep -q '^no change shown: the metric is a difference' "$tmp/mm" ||
	fail "-f mmtests: not round_trip_ns's changes and the difference's line: $(cat "$tmp/mm")"
"$rwlab" report "$tmp/l.csv" -f lkp -m switch_ns_over_none >"$tmp/lk" 2>"$tmp/e" || fail "report -f lkp: exit $?: $(cat "$tmp/e")"
[ "$(awk '/bench.switch_ns_over_none$/ { print $2 }' "$tmp/lk")" ] &&
	awk '/bench.switch_ns_over_none$/ { print $2 }' "$tmp/lk" | grep -q '%' &&
	fail "-f lkp: a percent change of a difference: $(grep switch_ns_over_none "$tmp/lk")"
for b in pipe refcount none; do
	"$rwlab" report "$tmp/l.csv" -b $b -f csv -m round_trip_ns_over_none >"$tmp/c" 2>&1
	awk -F, 'NR > 1 && $16 != "" { bad = 1 } END { exit !bad }' "$tmp/c" &&
		fail "report -b $b -f csv: a change_pct of a difference: $(cat "$tmp/c")"
done

# one repetition, one pair: said in the singular (it said "1 interleaved reps", bench "1 pairs")
"$rwlab" bench-lazy -m refcount $tiny -n 1 -o "$tmp/one.csv" >"$tmp/o" 2>&1 || fail "bench-lazy -n 1: exit $?"
grep -q ', 1 interleaved rep$' "$tmp/o" || fail "bench-lazy -n 1: $(grep interleaved "$tmp/o")"
"$rwlab" bench -l pthread --pairs 1 -n 1 -o "$tmp/b1.csv" >"$tmp/o" 2>&1 || fail "bench --pairs 1: exit $?"
grep -q 'best of 1 x 1 pair (ns per pair)$' "$tmp/o" || fail "bench --pairs 1: $(grep 'best of' "$tmp/o")"

# 2. SIGINT once 2 repetitions are in the file: they stay, one line, exit 130.
"$rwlab" bench-lazy -m refcount $tiny -n 1000 -o "$tmp/i.csv" >"$tmp/io" 2>"$tmp/ie" &
pid=$!
i=0
while ! grep -q '^4,[^,]*,[^,]*,none,bench:lazy-mm,1,1,' "$tmp/i.csv" 2>/dev/null && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -INT $pid
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
if kill -0 $pid 2>/dev/null; then
	fail "bench-lazy still runs 20 s after SIGINT"
	kill -KILL $pid
fi
wait $pid
rc=$?
[ $rc = 130 ] || fail "bench-lazy interrupted: exit $rc, want 130"
reps=$(awk -F, '$1 !~ /^(#|schema)/ { print $7 }' "$tmp/i.csv" | sort -u | wc -l)
[ "$reps" -ge 2 ] && [ "$reps" -lt 1000 ] || fail "bench-lazy interrupted: $reps repetitions in the CSV, want the finished ones"
[ "$(grep -vc '^WARNING: ' "$tmp/ie")" = 1 ] &&	# a sanitizer tree's debug-build warning aside
	grep -q "^rwlab bench-lazy: interrupted after $reps of 1000 reps; they are in $tmp/i.csv (the rep in progress is not)$" "$tmp/ie" ||
	fail "bench-lazy interrupted: not one line naming the $reps repetitions kept: $(cat "$tmp/ie")"
"$rwlab" report "$tmp/i.csv" >"$tmp/o" 2>"$tmp/e" && [ ! -s "$tmp/e" ] ||
	fail "report of an interrupted bench-lazy: $(cat "$tmp/e")"

# 3. plot: an ns metric around 10 us is drawn in us (it was "ms" with 0.0087 on the axis).
RWLAB_GNUPLOT=/bin/true "$rwlab" plot "$tmp/l.csv" -m round_trip_ns -o "$tmp/p.svg" --keep-script >"$tmp/o" 2>&1 ||
	fail "plot: exit $?: $(cat "$tmp/o")"
grep -q '^set title "bench:lazy-mm: round_trip_ns (us), ' "$tmp/p.svg.gp" &&
	grep -q '^set ylabel "round_trip_ns (us, lower is better)"' "$tmp/p.svg.gp" ||
	fail "plot of round_trip_ns: not in us: $(grep -e '^set title' -e '^set ylabel' "$tmp/p.svg.gp")"
awk '/^[0-9]/ && ($2 < 1 || $2 >= 1000) { bad = 1 } END { exit !bad }' "$tmp/p.svg.dat" &&
	fail "plot of round_trip_ns: values outside 1..1000 of the unit shown: $(cat "$tmp/p.svg.dat")"

echo "bench-lazy: $fails failures"
exit $((fails > 0))
