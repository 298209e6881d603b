#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What a new user typed after the quick run, and the one line that must come
# back: bench, bench-lazy, torture and exec refuse a variant or scheme given
# twice (measured or tortured twice, its rows repeated in -o's CSV, which
# report refuses), report and plot a --by column given twice, and all begin
# their errors with the subcommand; plot names the workloads or metrics to
# choose from (an unknown name exits 2, in report too), and says how to draw a file of several figures; bench,
# bench-lazy and plot refuse an -o they cannot write as run does (one line,
# exit 2, nothing measured or read); merge names the -o it cannot write; an
# -o that exists is kept aside in a line that names the subcommand.
# Usage: choices.sh RWLAB DATA-DIR
. "${0%/*}/../lib.sh"
rwlab=$1 data=$2
case $rwlab in /*) ;; *) rwlab=$PWD/$rwlab ;; esac
case $data in /*) ;; *) data=$PWD/$data ;; esac
cd "$tmp" || exit 1
small=(-n 1 --pairs 1000)

# bench: a variant given twice is refused before anything is measured or written.
expect "bench -l twice" 2 "^rwlab bench: lock variant 'pthread' given twice in -l \(each variant is measured once\)$" \
	"$rwlab" bench -l pthread,null,pthread "${small[@]}" -o b.csv
[ -e b.csv ] && fail "bench -l twice: a CSV was written"
expect "bench -l -l" 2 "^rwlab bench: lock variant 'null' given twice in -l" \
	"$rwlab" bench -l null -l null "${small[@]}"
expect "bench -l all,null" 2 "^rwlab bench: lock variant 'null' given twice in -l" \
	"$rwlab" bench -l all,null "${small[@]}"
expect "bench-lazy -m twice" 2 "^rwlab bench-lazy: lazy-mm scheme 'refcount' given twice in -m \(each scheme is measured once\)$" \
	"$rwlab" bench-lazy -m refcount,refcount -n 1 --round-trips 10 --switches 10
# ... as is an -o that cannot be written (exit 2, run's line), before anything is measured.
expect "bench -o unwritable" 2 "^rwlab bench: cannot write results to '/nonexistent/b.csv': No such file or directory$" \
	"$rwlab" bench -l null "${small[@]}" -o /nonexistent/b.csv
[ -s "$tmp/o" ] && fail "bench -o unwritable: measured: $(head -n 2 "$tmp/o")"
expect "bench-lazy -o unwritable" 2 \
	"^rwlab bench-lazy: cannot write results to '/nonexistent/b.csv': No such file or directory$" \
	"$rwlab" bench-lazy -m refcount -n 1 --round-trips 10 --switches 10 -o /nonexistent/b.csv
[ -s "$tmp/o" ] && fail "bench-lazy -o unwritable: measured: $(head -n 2 "$tmp/o")"
# ... and their other errors name them, as their unknown options do.
expect "bench -l nosuch" 2 "^rwlab bench: unknown lock variant 'nosuch' \(valid: all, " "$rwlab" bench -l nosuch
expect "bench --pairs 0" 2 "^rwlab bench: bad value '0' for --pairs" "$rwlab" bench --pairs 0
expect "bench-lazy -m nosuch" 2 "^rwlab bench-lazy: unknown lazy-mm scheme 'nosuch' \(valid: " "$rwlab" bench-lazy -m nosuch
expect "bench-lazy -n 0" 2 "^rwlab bench-lazy: bad value '0' for -n/--reps" "$rwlab" bench-lazy -n 0
expect "bench with an operand" 2 "^rwlab bench: unexpected argument 'pthread' \(see 'rwlab bench --help'\)$" \
	"$rwlab" bench pthread
expect "list with an operand" 2 "^rwlab list: unexpected argument 'x' \(see 'rwlab list --help'\)$" "$rwlab" list x
# exec likewise (its CSV's rows repeated, its own closing table refused them).
expect "exec -l twice" 2 "^rwlab exec: lock variant 'rwsem' given twice in -l \(each variant runs once\)$" \
	"$rwlab" exec -l rwsem,bravo,rwsem -- true
expect "exec -l all,rwsem" 2 "^rwlab exec: lock variant 'rwsem' given twice in -l" "$rwlab" exec -l all,rwsem -- true
# exec -t 0 would write threads 0, which report refuses (it was taken): report's range, nothing run.
expect "exec -t 0" 2 "^rwlab exec: bad value '0' for -t/--threads \(an integer in 1\.\.1048576\)$" \
	"$rwlab" exec -l none -n 1 -t 0 -o t0.csv -- true
[ -e t0.csv ] && fail "exec -t 0: a CSV was written"
# exec's per-run file (CMD's RWLAB_CSV) is in $TMPDIR, /tmp when it is unset or empty; where none can be
# made, the line names the directory it tried.
expect "exec, TMPDIR missing" 1 "^rwlab exec: cannot make a temporary file in $tmp/nosuch: No such file or directory$" \
	env TMPDIR="$tmp/nosuch" "$rwlab" exec -l none -n 1 -q --no-report -o tm.csv -- true
for how in "-u TMPDIR" "TMPDIR="; do
	env $how "$rwlab" exec -l passthrough -n 1 -q --no-report --force -o tp.csv -- \
		sh -c 'case $RWLAB_CSV in /tmp/rwlab-exec-??????) ;; *) exit 3 ;; esac' >/dev/null 2>"$tmp/e" ||
		fail "exec, env $how: the per-run file is not in /tmp: exit $?: $(cat "$tmp/e")"
	rm -f tp.csv
done
# torture likewise (a variant tortured twice), with run's wording, before anything runs.
expect "torture -l twice" 2 "^rwlab torture: lock variant 'rwsem' given twice in -l \(each variant is tortured once\)$" \
	"$rwlab" torture -l rwsem,null,rwsem -d 10ms
expect "torture -l -l" 2 "^rwlab torture: lock variant 'rwsem' given twice in -l" "$rwlab" torture -l rwsem -l rwsem -d 10ms
expect "torture -l under --sim" 2 "^rwlab torture: lock variant 'rwsem' given twice in -l" \
	"$rwlab" torture -l all,rwsem --sim generic-8
expect "torture -m twice" 2 "^rwlab torture: lazy-mm scheme 'refcount' given twice in -m \(each scheme is tortured once\)$" \
	"$rwlab" torture -m refcount --mm refcount -d 10ms
# the closing line counts variants and lazy-mm schemes by their names (the wording only: a run this
# short may end FAILURE under a sanitizer, a scheme's coverage check seeing no shootdown in 20 ms)
"$rwlab" torture -l rwsem -m refcount,hazptr -d 20ms >"$tmp/o" 2>/dev/null
grep -Eqx 'rwlab torture: (SUCCESS: |FAILURE: [12] of )1 variant and 2 schemes( failed: .*)?' "$tmp/o" ||
	fail "torture's closing line: $(tail -1 "$tmp/o")"
expect "exec --metric twice" 2 "^rwlab exec: metric 'rate' given twice in --metric \(each metric is taken once\)$" \
	"$rwlab" exec -l none -n 1 --metric 'rate=r=([0-9]+)' --metric 'rate:op/s=s=([0-9]+)' -o m.csv -- echo r=1 s=2
[ -e m.csv ] && fail "exec --metric twice: a CSV was written"
# ... and so is one named as a metric exec records itself (a row of that name twice per run).
expect "exec --metric wall_s" 2 "^rwlab exec: --metric 'wall_s': a metric exec records itself \(wall_s, .*\): give another NAME$" \
	"$rwlab" exec -l none -n 1 --metric 'wall_s=took ([0-9.]+)' -o m.csv -- echo took 1
expect "exec --metric event.x" 2 "^rwlab exec: --metric 'event.x': a metric exec records itself" \
	"$rwlab" exec -l none -n 1 --metric 'event.x:count=took ([0-9.]+)' -o m.csv -- echo took 1
[ -e m.csv ] && fail "exec --metric wall_s: a CSV was written"
# Distinct variants still run, and report reads what they wrote.
"$rwlab" bench -l pthread,null "${small[@]}" -o b.csv >/dev/null 2>"$tmp/e" || fail "bench -l pthread,null: $(cat "$tmp/e")"
"$rwlab" report b.csv >/dev/null 2>"$tmp/e" || fail "report of bench's CSV: $(cat "$tmp/e")"

# An -o that exists is kept as FILE.N, said in a warning that begins with the subcommand, as its errors
# do: -q keeps it (a file renamed under a script).
kept() { # kept WHAT N CMD...: CMD says "rwlab WHAT: WARNING: kept.csv existed: kept it as kept.csv.N"
	local what=$1 n=$2
	shift 2
	"$@" >/dev/null 2>"$tmp/e"
	grep -qx "rwlab $what: WARNING: kept.csv existed: kept it as kept.csv.$n" "$tmp/e" ||
		fail "$what -o kept.csv (it existed): $(grep existed "$tmp/e" || head -c 400 "$tmp/e")"
}
cp b.csv kept.csv
kept bench 1 "$rwlab" bench -l null "${small[@]}" -o kept.csv
kept bench-lazy 2 "$rwlab" bench-lazy -m refcount -n 1 --round-trips 10 --switches 10 -o kept.csv
kept run 3 "$rwlab" run -l null -w locktest -t 1 -n 1 -d 10ms --warmup 0 -q --no-report -o kept.csv
cp kept.csv run.csv
kept merge 4 "$rwlab" merge -o kept.csv run.csv
kept exec 5 "$rwlab" exec -l none -n 1 -o kept.csv -- echo x
# run -q prints errors and warnings alone: the file kept and a native -j 2 (run one at a time) are
# warnings, said as such (they were 'rwlab run: kept.csv existed: ...' and 'rwlab run: -j 2: ...')
"$rwlab" run -l null -w locktest -t 1 -n 1 -d 10ms --warmup 0 -q --no-report -j 2 -o kept.csv >/dev/null 2>"$tmp/e" ||
	fail "run -q -j 2: exit $?: $(cat "$tmp/e")"
[ "$(grep -c '^rwlab run: WARNING: ' "$tmp/e")" = 2 ] && ! grep -v 'WARNING: ' "$tmp/e" ||
	fail "run -q -j 2 -o kept.csv: not only warnings, or not 2 of its own: $(cat "$tmp/e")"

# report and plot: a --by column given twice (each of its tables twice over) is refused the same way.
expect "report --by twice" 2 "^rwlab report: column 'variant' given twice in --by \(each column is compared once\)$" \
	"$rwlab" report b.csv --by variant,host,variant
expect "plot --by twice" 2 "^rwlab plot: column 'host' given twice in --by \(each column is compared once\)$" \
	"$rwlab" plot b.csv --by host,host -o by.png
[ -e by.png ] && fail "plot --by twice: a figure was drawn"
# report's own -f csv output given back to report: said for what it is
"$rwlab" report b.csv -f csv -o agg.csv 2>/dev/null || fail "report -f csv -o agg.csv failed"
expect "report of report's csv" 2 "^rwlab report: agg.csv: no column 'variant' \\(columns: group, .*\\): this is rwlab report -f csv's output" \
	"$rwlab" report agg.csv
# --by given twice appends, as every list option (it kept the last one alone)
expect "report --by a --by a" 2 "^rwlab report: column 'variant' given twice in --by" "$rwlab" report b.csv --by variant --by variant
expect "plot --by a --by a" 2 "^rwlab plot: column 'host' given twice in --by" "$rwlab" plot b.csv --by host --by host -o by.png
# an empty --by entry (a stray comma, or --by '') is refused, not skipped
for by in '' 'variant,' ',host' 'variant,,host'; do
	expect "report --by '$by'" 2 "^rwlab report: --by '$by': an empty column name \\(columns separated by single commas, e.g. variant,host\\)$" \
		"$rwlab" report b.csv --by "$by"
done
expect "plot --by ','" 2 "^rwlab plot: --by ',': an empty column name" "$rwlab" plot b.csv --by , -o by.png
[ -e by.png ] && fail "plot --by ',': a figure was drawn"

# plot: a file of two workloads without -w or %w says what it holds and both ways out: a usage
# error (2), as an unknown -w (it was exit 1, as a file with nothing to draw).
cp "$data/two-variants.csv" two.csv
expect "plot of two workloads" 2 \
	"^rwlab plot: two.csv holds 2 figures \(locktest, fixture-time\): choose one with -w, or put %w in -o to draw each to its own file \(-o x-%w.png\)$" \
	"$rwlab" plot two.csv -o x.png
# ... under --by workload the figures are variants, which -w (a workload) cannot pick: %w alone.
expect "plot --by workload" 2 "^rwlab plot: two.csv holds [0-9]+ figures \(.*\): put %w in -o to draw each" \
	"$rwlab" plot two.csv --by workload -o x.svg
# an unknown -w names the workloads, not the figures: a usage error (2), as an unknown --by.
expect "plot -w nosuch" 2 "^rwlab plot: workload 'nosuch' is not in two.csv \(workloads: locktest, fixture-time\)$" \
	"$rwlab" plot two.csv -w nosuch -o x.png
expect "plot -w nosuch, %w" 2 "^rwlab plot: workload 'nosuch' is not in two.csv \(workloads: locktest, fixture-time\)$" \
	"$rwlab" plot two.csv -w nosuch -o x-%w.png
# an unknown -m names the metrics, as report's does; said before the choice of figure, which it
# would not help (it answered a file of two figures with "choose one with -w" and never named -m).
expect "plot -m nosuch" 2 "^rwlab plot: metric 'nosuch' is not in two.csv \(metrics: .*total_rate" \
	"$rwlab" plot two.csv -w locktest -m nosuch -o x.png
expect "plot -m nosuch, two figures" 2 "^rwlab plot: metric 'nosuch' is not in two.csv \(metrics: .*total_rate" \
	"$rwlab" plot two.csv -m nosuch -o x.png
expect "plot -b nosuch" 2 "^rwlab plot: baseline 'nosuch' is not in two.csv \(valid: pthread, ck-rwlock\)$" \
	"$rwlab" plot two.csv -w locktest -b nosuch -o x.png
# report likewise: each option that names what the file does not hold exits 2.
expect "report -b nosuch" 2 "^rwlab report: baseline 'nosuch' is not in two.csv \(valid: pthread, ck-rwlock\)$" \
	"$rwlab" report two.csv -b nosuch
expect "report -m nosuch" 2 "^rwlab report: metric 'nosuch' is not in two.csv" "$rwlab" report two.csv -m nosuch
expect "report -w nosuch" 2 "^rwlab report: workload 'nosuch' is not in two.csv" "$rwlab" report two.csv -w nosuch
# the preload's rows (RWLAB_CSV): its headline figure, not "metric '(none)' is not in" (a fake gnuplot: the
# script says what was drawn)
cp "$data/preload.csv" preload.csv
RWLAB_GNUPLOT=true "$rwlab" plot preload.csv -o pre.png --keep-script 2>"$tmp/e" || fail "plot of a preload CSV: $(cat "$tmp/e")"
grep -q '^set ylabel "preload.acquisitions (count, ' pre.png.gp 2>/dev/null ||
	fail "plot of a preload CSV: not its preload.acquisitions: $(grep ylabel pre.png.gp 2>&1)"
rm -f pre.png pre.png.gp pre.png.dat
# ... and rows with no headline at all say so in words, naming the metrics to choose with -m (exit 2).
printf 'schema,run,timestamp,variant,workload,threads,iteration,metric,value,unit,better\n1,r,t,a,myprog,2,0,things,5,count,none\n' >nohead.csv
expect "plot, no headline" 2 "^rwlab plot: nohead.csv: no headline metric to draw for myprog \(none of its workload's, and no metric that says which way is better\): choose one with -m \(metrics: things\)$" \
	"$rwlab" plot nohead.csv -o x.png
# an -o in a directory that is not there: refused before the CSV is read, exit 2, as run's -o.
expect "plot -o unwritable" 2 "^rwlab plot: -o /nonexistent/x.png: cannot write in /nonexistent/: No such file or directory$" \
	"$rwlab" plot two.csv -w locktest -o /nonexistent/x.png
ls x*.png x*.svg >/dev/null 2>&1 && fail "plot: a refused plot left a figure"

# merge -o into a directory that is not there names the file given, not its OUT.partial.
expect "merge -o /nonexistent/m.csv" 2 "^rwlab merge: -o /nonexistent/m.csv: cannot write in /nonexistent/: No such file or directory$" \
	"$rwlab" merge -o /nonexistent/m.csv b.csv
[ $fails = 0 ] && echo "choices: bench, exec, plot and merge, as a new user typed them"
exit $((fails > 0))
