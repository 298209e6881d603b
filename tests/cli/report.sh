#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Command-line behaviour of report, plot, run --matrix and tools/reproduce:
# one-line errors with the valid choices and a non-zero status, a tiny
# matrix run end to end, and a PNG that gnuplot really wrote.
# Usage: report.sh RWLAB SOURCE_ROOT
. "${0%/*}/../lib.sh"
set -o pipefail

rwlab=$1
root=$2
data=$root/tests/data

# expect_err STATUS PATTERN -- command...: the command exits STATUS and
# prints exactly one stderr line matching PATTERN (grep -E).
expect_err() {
	local want=$1 pat=$2 st lines
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	lines=$(wc -l <"$tmp/err")
	[ "$st" = "$want" ] || fail "$* exited $st, want $want"
	[ "$lines" = 1 ] || fail "$* printed $lines stderr lines: $(cat "$tmp/err")"
	grep -Eq -- "$pat" "$tmp/err" || fail "$*: stderr '$(cat "$tmp/err")' does not match '$pat'"
}

expect_err 2 "^rwlab report: unknown report format 'bogus' \(valid: table, mmtests, lkp, locktest, speedup, duration, csv, markdown" -- \
	"$rwlab" report "$data/two-variants.csv" --format bogus
expect_err 2 "baseline 'nope' is not in .* \(valid: pthread, ck-rwlock\)" -- \
	"$rwlab" report "$data/two-variants.csv" --baseline nope
# a CSV that is not rwlab's: report's line alone (its shard check said it too, in a line of its own)
expect_err 2 "not-rwlab.csv: no column 'variant' \(columns: a, b\): not an rwlab results CSV \(what rwlab run, bench and exec write, with columns variant, workload, threads, metric, value, unit and better\)$" -- "$rwlab" report "$data/not-rwlab.csv"
expect_err 2 "metric 'nope' is not in .*total_rate" -- \
	"$rwlab" report "$data/two-variants.csv" -m nope
expect_err 2 "^rwlab report: unknown significance rule 'p' \(valid: ci, ttest, none\)" -- \
	"$rwlab" report "$data/two-variants.csv" --significance p
expect_err 2 "output '.*x.jpg' must end in .png or .svg" -- \
	"$rwlab" plot "$data/two-variants.csv" -o "$tmp/x.jpg"
# plot's errors name plot, as report's name report (and torture's torture)
expect_err 2 "^rwlab plot: needs one CSV file and -o OUT.png\|OUT.svg" -- "$rwlab" plot "$data/two-variants.csv"
expect_err 2 "^rwlab plot: bad value '0' for -t/--threads" -- "$rwlab" plot "$data/two-variants.csv" -t 0 -o "$tmp/x.png"
expect_err 2 "^rwlab report: unknown --mmtests-era '2020'" -- "$rwlab" report "$data/two-variants.csv" --mmtests-era 2020
expect_err 2 "holds 2 figures .*: choose one with -w, or put %w in -o" -- \
	"$rwlab" plot "$data/two-variants.csv" -o "$tmp/x.png"

# A file of two fault paths (pft, pft:mm_lock=vma) is read twice (the second time to compare the
# paths side by side): each line about its rows comes once (the torn last line and the unfinished
# cell were each printed twice)
if "$rwlab" run -l rwsem -w pft:size_mb=4,pft:size_mb=4,mm_lock=vma -t 1,2 -n 2 -d 20ms --warmup 0 -q --no-report \
	-o "$tmp/fp.csv" 2>"$tmp/err"; then
	head -c -20 "$tmp/fp.csv" >"$tmp/fpt.csv"
	"$rwlab" report "$tmp/fpt.csv" >/dev/null 2>"$tmp/err" || fail "report of a torn file of two fault paths: exit $?"
	[ "$(grep -c 'the last line is incomplete' "$tmp/err")" = 1 ] && [ "$(grep -c ' is unfinished ' "$tmp/err")" = 1 ] ||
		fail "report of a torn file of two fault paths: not one line each: $(cat "$tmp/err")"
	# ... from stdin, read once: the reload read it again ('stdin: empty file (expected a CSV
	# header)', exit 1); and a file that starts with a UTF-8 byte-order mark (a spreadsheet's
	# save) is the same file ('2: 20 fields, the header has 12': the header was not recognised)
	"$rwlab" report "$tmp/fp.csv" >"$tmp/fp.want" 2>&1
	"$rwlab" report - <"$tmp/fp.csv" >"$tmp/fp.out" 2>&1 || fail "report - of two fault paths: $(head -3 "$tmp/fp.out")"
	cmp -s "$tmp/fp.want" "$tmp/fp.out" || fail "report - of two fault paths is not the file's report: $(head -3 "$tmp/fp.out")"
	printf '\357\273\277' | cat - "$tmp/fp.csv" >"$tmp/bom.csv"
	"$rwlab" report "$tmp/bom.csv" >"$tmp/fp.out" 2>&1 || fail "report of a file with a BOM: $(head -3 "$tmp/fp.out")"
	cmp -s "$tmp/fp.want" "$tmp/fp.out" || fail "report of a file with a BOM is not the file's report: $(head -3 "$tmp/fp.out")"
	"$rwlab" merge "$tmp/bom.csv" 2>"$tmp/err" || fail "merge of a file with a BOM: $(cat "$tmp/err")"
	# plot groups as report does: the paths report shows in one table are one figure, a line each
	# (it drew a figure per path, one line each, and refused a file of them without %w)
	grep -Eq '^ +mmap_lock +per-VMA$' "$tmp/fp.want" || fail "report of two fault paths: no table of mmap_lock and per-VMA: $(cat "$tmp/fp.want")"
	RWLAB_GNUPLOT=true "$rwlab" plot "$tmp/fp.csv" -m faults/sec -o "$tmp/fp-%w.svg" --keep-script >"$tmp/out" \
		2>"$tmp/err" || fail "plot of two fault paths: $(cat "$tmp/err")"
	[ "$(wc -l <"$tmp/out")" = 1 ] || fail "plot of two fault paths drew $(wc -l <"$tmp/out") figures: $(cat "$tmp/out")"
	[ "$(grep '^# ' "$(cat "$tmp/out").dat" | tr '\n' ' ')" = "# mmap_lock # per-VMA " ] ||
		fail "plot of two fault paths: lines $(grep '^# ' "$(cat "$tmp/out").dat" | tr '\n' ' ')"
	[ "$(grep -c ' index [0-9]* using 1:2:3 ' "$(cat "$tmp/out").gp")" = 2 ] || fail "plot of two fault paths: not two lines"
else
	fail "run of two fault paths: $(cat "$tmp/err")"
fi

# -o: a FIFO (or /dev/stdout) is written in place, not replaced by a renamed file; a name
# that cannot be a file is refused in one line, exit 2 (bad input, as run's -o); sim validate
# refuses its page before the ladder runs.
mkfifo "$tmp/fifo"
timeout 10 cat "$tmp/fifo" >"$tmp/fifo.out" &
"$rwlab" report "$data/two-variants.csv" -w locktest -o "$tmp/fifo" 2>"$tmp/err" || fail "report -o FIFO: $(cat "$tmp/err")"
wait
[ -p "$tmp/fifo" ] || fail "report -o FIFO replaced the FIFO"
"$rwlab" report "$data/two-variants.csv" -w locktest | cmp -s - "$tmp/fifo.out" || fail "report -o FIFO: not the report"
expect_err 2 "-o: an empty file name" -- "$rwlab" report "$data/two-variants.csv" -o ''
expect_err 2 "-o $tmp: is a directory" -- "$rwlab" report "$data/two-variants.csv" -f html -o "$tmp"
expect_err 2 "-o $tmp/no/x.html: cannot write in $tmp/no/: No such file" -- \
	"$rwlab" report "$data/two-variants.csv" -f html -o "$tmp/no/x.html"
expect_err 2 "sim validate: -o $tmp/no/x.html: cannot write in" -- "$rwlab" sim validate -o "$tmp/no/x.html"
# ... before any input is read: before --by's check of the header, and before merge's checks of two
# files (which said the two schemas first, then the -o)
expect_err 2 "^rwlab report: -o $tmp/no/x.txt: cannot write in $tmp/no/: No such file" -- \
	"$rwlab" report "$data/good.csv" --by bogus -o "$tmp/no/x.txt"
cut -d, -f1-20 "$data/other-host.csv" >"$tmp/nohost.csv"
expect_err 2 "^rwlab report: -o $tmp/no/x.txt: cannot write in $tmp/no/: No such file" -- \
	"$rwlab" report "$tmp/nohost.csv" "$data/good.csv" -o "$tmp/no/x.txt"
# A header and no row (a run whose every cell failed leaves its cells out): json is a whole document
# with no series and no baseline (it read column 0 of none: a segfault)
head -n 1 "$data/good.csv" >"$tmp/header-only.csv"
"$rwlab" report "$tmp/header-only.csv" -f json >"$tmp/out" 2>"$tmp/err" ||
	fail "report -f json of a header alone: exit $?: $(head -c 300 "$tmp/err")"
grep -q '"baseline": null' "$tmp/out" && grep -q '"series": \[' "$tmp/out" && [ "$(tail -n 1 "$tmp/out")" = "}" ] ||
	fail "report -f json of a header alone: $(head -c 300 "$tmp/out")"
# Two files of two schemas: one line, report's (merge's checks, run quietly for report, said it too)
expect_err 1 "^rwlab report: .*good.csv: its columns differ from $tmp/nohost.csv's: not CSVs of one rwlab schema$" -- \
	"$rwlab" report "$tmp/nohost.csv" "$data/good.csv"
sed '1s/,host$/,hostname/' "$data/other-host.csv" >"$tmp/renamed.csv"
expect_err 1 "^rwlab report: $tmp/renamed.csv: its columns differ from .*good.csv's: not CSVs of one rwlab schema$" -- \
	"$rwlab" report "$data/good.csv" "$tmp/renamed.csv"

# A published table: a value that is not a number fails loudly (it read as 0 and was judged);
# a block whose first row has no published change still names the table's marks (was "(null)").
# One that cannot be used is bad input, exit 2 with its one line, under --reference and a matrix's
# alike, in report and tools/reproduce (before anything runs): missing, a directory, empty, not a
# published table (each was exit 1)
mkdir "$tmp/pub"
cp "$data/fixture.matrix" "$tmp/pub/m.matrix"
sed 's/^fixture-time,mean,elapsed seconds,1,old,100$/fixture-time,mean,elapsed seconds,1,old,1OO/' "$data/published.csv" \
	>"$tmp/pub/published.csv"
expect_err 2 "published.csv:2: value '1OO' is not a number" -- \
	"$rwlab" report "$data/two-variants.csv" --matrix "$tmp/pub/m.matrix" -f none
expect_err 2 "^rwlab report: published table: cannot read '$tmp/pub': Is a directory$" -- \
	"$rwlab" report "$data/two-variants.csv" --reference "$tmp/pub"
expect_err 2 "^rwlab report: published table: $data/empty.csv: empty file \(expected a CSV header\)$" -- \
	"$rwlab" report "$data/two-variants.csv" --reference "$data/empty.csv" -o "$tmp/pub/r.txt"
expect_err 2 "^rwlab report: $data/good.csv: no column 'benchmark' \(a published table has benchmark, " -- \
	"$rwlab" report "$data/two-variants.csv" --reference "$data/good.csv" -f html -o "$tmp/pub/r.html"
sed 's/^reference .*/reference = nosuch.csv/' "$data/fixture.matrix" >"$tmp/pub/nosuch.matrix"
expect_err 2 "^rwlab report: published table: cannot read '$tmp/pub/nosuch.csv': No such file or directory$" -- \
	"$rwlab" report "$data/two-variants.csv" --matrix "$tmp/pub/nosuch.matrix"
expect_err 2 "^reproduce: the matrix nosuch's published table $tmp/pub/nosuch.csv: no such file \(a published " -- \
	"$root/tools/reproduce" "$tmp/pub/nosuch.matrix" --csv "$data/two-variants.csv" --rwlab "$rwlab" --no-plots
sed 's/^reference .*/reference = ./' "$data/fixture.matrix" >"$tmp/pub/dir.matrix"
expect_err 2 "^reproduce: the matrix dir's published table $tmp/pub/\.: a directory " -- \
	env RWLAB_RESULTS_DIR="$tmp/pub/res" "$root/tools/reproduce" "$tmp/pub/dir.matrix" --rwlab "$rwlab" --no-plots
[ -e "$tmp/pub/res" ] && fail "reproduce ran a matrix whose published table is a directory: $(find "$tmp/pub/res")"
# reproduce finds the table where report does, or refuses it for what it is: a FIFO (report reads the
# table more than once) is not a regular file (was "an empty file"); an installed matrix's table is in
# share/rwlab/reference, not at its ../../results/reference path (was refused; under --sim "names
# none" after a cd error); under --sim a --set reference replaces the matrix's (the matrix's own
# missing one was refused)
mkfifo "$tmp/pub/fifo.csv"
sed 's/^reference .*/reference = fifo.csv/' "$data/fixture.matrix" >"$tmp/pub/fifo.matrix"
expect_err 2 "^reproduce: the matrix fifo's published table $tmp/pub/fifo\.csv: not a regular file \(a published " -- \
	"$root/tools/reproduce" "$tmp/pub/fifo.matrix" --csv "$data/two-variants.csv" --rwlab "$rwlab" --no-plots
mkdir -p "$tmp/pub/share/matrices" "$tmp/pub/share/reference"
cp "$data/published.csv" "$tmp/pub/share/reference/inst.csv"
sed 's|^reference .*|reference = ../../results/reference/inst.csv|' "$data/fixture.matrix" >"$tmp/pub/share/matrices/inst.matrix"
"$root/tools/reproduce" "$tmp/pub/share/matrices/inst.matrix" --csv "$data/two-variants.csv" --rwlab "$rwlab" \
	--no-plots >"$tmp/out" 2>"$tmp/err" || fail "reproduce of an installed matrix: $(cat "$tmp/err")"
grep -q '^agree [0-9]*, ' "$tmp/out" || fail "reproduce of an installed matrix: no verdicts: $(tail -3 "$tmp/out")"
if [ -x "$(dirname "$rwlab")/rwlab-sim" ]; then
	sed 's/^reference .*/reference = nosuch.csv/' "$data/run-stars.matrix" >"$tmp/pub/stars.matrix"
	env RWLAB_RESULTS_DIR="$tmp/pub/res" "$root/tools/reproduce" "$tmp/pub/stars.matrix" --sim generic-8 \
		--set "reference=$data/run-stars-published.csv" --rwlab "$rwlab" -- --list-cells >"$tmp/out" 2>"$tmp/err" ||
		fail "reproduce --sim --set reference: the matrix's own table judged: $(cat "$tmp/err")"
	cp "$data/run-stars-published.csv" "$tmp/pub/share/reference/stars.csv"
	sed 's|^reference .*|reference = ../../results/reference/stars.csv|' "$data/run-stars.matrix" \
		>"$tmp/pub/share/matrices/stars.matrix"
	env RWLAB_RESULTS_DIR="$tmp/pub/res" "$root/tools/reproduce" "$tmp/pub/share/matrices/stars.matrix" \
		--sim generic-8 --rwlab "$rwlab" -- --list-cells >"$tmp/out" 2>"$tmp/err" ||
		fail "reproduce --sim of an installed matrix: $(cat "$tmp/err")"
fi
{
	echo 'benchmark,stat,metric,clients,variant,value,mark,rule'
	echo 'fixture-time,mean,elapsed seconds,1,old,0,,'
	echo 'fixture-time,mean,elapsed seconds,1,new,80,,'
	echo 'fixture-time,mean,elapsed seconds,8,old,100,( ),mmtests-ttest'
	echo 'fixture-time,mean,elapsed seconds,8,new,110,*,mmtests-ttest'
	echo 'locktest,speedup-percent,rate change,4,new,12,,'
} >"$tmp/pub/published.csv"
"$rwlab" report "$data/two-variants.csv" --matrix "$tmp/pub/m.matrix" -f none >"$tmp/out" 2>"$tmp/err" ||
	fail "report, published base 0 at the first row: $(cat "$tmp/err")"
grep -q '^fixture-time | elapsed seconds (published marks: mmtests-ttest)' "$tmp/out" ||
	fail "report: the block's heading does not name its marks: $(grep 'published marks' "$tmp/out")"

# A matrix naming a variant this build lacks: the registry's error, with FILE:LINE.
printf 'workloads = locktest\nlocks = pthread, nosuch\nthreads = 1\n' >"$tmp/bad.matrix"
expect_err 2 "bad.matrix:2: unknown lock variant 'nosuch' \(valid: all, pthread" -- \
	"$rwlab" run --matrix "$tmp/bad.matrix" -o "$tmp/bad.csv"
printf 'locks = pthread\nthreads: 1\n' >"$tmp/syntax.matrix"
expect_err 2 "syntax.matrix:2: expected 'key = value'" -- \
	"$rwlab" run --matrix "$tmp/syntax.matrix" -o "$tmp/bad.csv"
expect_err 2 "no matrix 'nosuch-matrix'" -- "$rwlab" run --matrix nosuch-matrix

# -f csv with a published table: the output is one CSV (the matrix's title line and the verdict
# table were printed into it), the verdicts on stderr after the line that says so; -o FILE alike
for o in "" "$tmp/v.csv"; do
	"$rwlab" report "$data/two-variants.csv" --matrix "$data/fixture.matrix" -f csv ${o:+-o "$o"} >"$tmp/out" 2>"$tmp/err" ||
		fail "report -f csv --matrix${o:+ -o}: $(cat "$tmp/err")"
	[ -z "$o" ] || cp "$o" "$tmp/out"
	head -n 1 "$tmp/out" | grep -q '^group,column,workload,metric,' && [ "$(wc -l <"$tmp/out")" -gt 1 ] &&
		awk -F, 'NR == 1 { n = NF } NF != n { bad = 1 } END { exit bad }' "$tmp/out" ||
		fail "report -f csv --matrix${o:+ -o}: not one CSV: $(head -3 "$tmp/out"; tail -3 "$tmp/out")"
	head -n 1 "$tmp/err" | grep -q "^rwlab report: the verdicts against .*published.csv follow on stderr: -f csv writes the series alone" &&
		grep -q '^agree [0-9]*, agree-direction [0-9]*' "$tmp/err" ||
		fail "report -f csv --matrix${o:+ -o}: the verdicts are not on stderr: $(head -3 "$tmp/err")"
done

# A tiny matrix end to end; options after --matrix override it (-n 2).
printf 'locks = pthread, ck-rwlock\nworkloads = locktest:load=10\nthreads = 1, cpus\niterations = 5\nduration = 50ms\nwarmup = 0\nreport = locktest\n' \
	>"$tmp/tiny.matrix"
if "$rwlab" run --matrix "$tmp/tiny.matrix" -n 2 -q -o "$tmp/tiny.csv" >"$tmp/out" 2>"$tmp/err"; then
	grep -Eq '^Running locktest with ck-rwlock \[runtime = [0-9]+ms, r% = 50%, load = 10\]' "$tmp/out" ||
		fail "run --matrix did not print the matrix's locktest report: $(head -5 "$tmp/out")"
	iters=$(grep -c ',pthread,locktest:load=10,1,[0-9]*,total_rate,' "$tmp/tiny.csv")
	[ "$iters" = 2 ] || fail "-n 2 after --matrix: $iters pthread iterations at 1 thread, want 2"
	grep -q ',thread_ops\.0,' "$tmp/tiny.csv" || fail "locktest wrote no thread_ops rows"
else
	fail "run --matrix tiny: $(cat "$tmp/err")"
fi
# The table after run --matrix stars a cell as `report --matrix` does on the same rows: by the
# verdicts' rule and minimum effect (the matrix's min_effect 5% here, which the 2-thread change of
# about 4% does not reach; run starred it by each cell's own noise and the 1% floor)
if [ -x "$(dirname "$rwlab")/rwlab-sim" ]; then
	"$rwlab" run --sim generic-8 --matrix "$data/run-stars.matrix" -q -o "$tmp/rs.csv" >"$tmp/rs.run" 2>"$tmp/err" ||
		fail "run --matrix run-stars: $(cat "$tmp/err")"
	"$rwlab" report "$tmp/rs.csv" --matrix "$data/run-stars.matrix" >"$tmp/rs.report" 2>"$tmp/err" ||
		fail "report --matrix run-stars: $(cat "$tmp/err")"
	grep -q '^2 threads ' "$tmp/rs.run" || fail "run --matrix run-stars printed no table: $(cat "$tmp/rs.run")"
	tail -n +2 "$tmp/rs.report" | head -n "$(wc -l <"$tmp/rs.run")" | cmp -s - "$tmp/rs.run" ||
		fail "run --matrix's table is not report --matrix's: $(diff "$tmp/rs.run" "$tmp/rs.report")"
	grep -q '^published\|^agree ' "$tmp/rs.run" && fail "run --matrix printed the verdicts: $(cat "$tmp/rs.run")"
	# A published table that cannot be used (here: missing) is said before any cell, once; the run goes on.
	sed 's/^reference .*/reference = nosuch.csv/' "$data/run-stars.matrix" >"$tmp/nosuch.matrix"
	"$rwlab" run --sim generic-8 --matrix "$tmp/nosuch.matrix" -n 1 -o "$tmp/ns.csv" >/dev/null 2>"$tmp/err" ||
		fail "run --matrix with a missing reference: exit $?: $(cat "$tmp/err")"
	pat="^rwlab run: published table: cannot read '[^']*/nosuch.csv': .*: the table after the run stars each cell"
	pat+=" by its own noise, not by the verdicts; the run goes on, but report --matrix and tools/reproduce refuse"
	head -n 1 "$tmp/err" | grep -q "$pat this table$" ||
		fail "run --matrix with a missing reference: not said first: $(cat "$tmp/err")"
	[ "$(grep -c 'own noise' "$tmp/err")" = 1 ] ||
		fail "run --matrix with a missing reference: said more than once: $(cat "$tmp/err")"
	grep -q ',rwsem,locktest,2,' "$tmp/ns.csv" || fail "run --matrix with a missing reference: no rows"
fi

# Plots: a real PNG (signature bytes) where gnuplot is installed.
if command -v "${RWLAB_GNUPLOT:-gnuplot}" >/dev/null; then
	for args in "-o $tmp/scaling.png" "--fairness -o $tmp/fair.png" "-o $tmp/scaling.svg"; do
		# shellcheck disable=SC2086
		"$rwlab" plot "$tmp/tiny.csv" $args 2>"$tmp/err" || fail "plot $args: $(cat "$tmp/err")"
	done
	for f in scaling.png fair.png; do
		[ "$(head -c 8 "$tmp/$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$f is not a PNG"
	done
	grep -q '<svg' "$tmp/scaling.svg" || fail "scaling.svg is not SVG"
	# Fixture at 2 threads: thread 0 did 150 ops, thread 1 did 50 in every pthread iteration,
	# so the rank means are 150 and 50 and Jain's index is 200^2 / (2 (150^2 + 50^2)) = 0.8.
	if "$rwlab" plot "$data/two-variants.csv" --fairness -t 2 --keep-script -o "$tmp/f.png" 2>"$tmp/err"; then
		sed -n '/^# pthread/,/^$/p' "$tmp/f.png.dat" | grep -qx '1 150' || fail "fairness data: no '1 150' for pthread"
		sed -n '/^# pthread/,/^$/p' "$tmp/f.png.dat" | grep -qx '2 50' || fail "fairness data: no '2 50' for pthread"
		grep -q 'pthread (Jain 0.800)' "$tmp/f.png.gp" || fail "fairness legend: no 'pthread (Jain 0.800)'"
	else
		fail "plot --fairness -t 2: $(cat "$tmp/err")"
	fi
	# Names from a CSV reach gnuplot quoted: a variant named with backquotes (gnuplot's
	# command substitution, even inside double quotes) runs nothing and is drawn as named.
	# shellcheck disable=SC2016
	sed 's|,pthread,|,p`touch '"$tmp"'/ran`t,|' "$data/two-variants.csv" >"$tmp/quote.csv"
	"$rwlab" plot "$tmp/quote.csv" -w locktest -m total_rate -o "$tmp/quote.svg" 2>"$tmp/err" ||
		fail "plot of a variant named with backquotes: $(cat "$tmp/err")"
	"$rwlab" report "$tmp/quote.csv" -w locktest -f html -o "$tmp/quote.html" 2>"$tmp/err" ||
		fail "report -f html of a variant named with backquotes: $(cat "$tmp/err")"
	[ -e "$tmp/ran" ] && fail "gnuplot ran the command in a variant's name (backquotes)"
	grep -qF "p\`touch $tmp/ran\`t" "$tmp/quote.svg" || fail "plot: the variant's name is not in the figure as named"
	# A cell whose Hmean is undefined (an iteration measured 0): the table prints its Amean,
	# (0 + 110 + 120) / 3 = 76.67, and the graph draws that point, not a missing one.
	awk -F, -v OFS=, '$4 == "pthread" && $5 == "locktest" && $6 == 1 && $7 == 0 && $8 == "total_rate" { $9 = 0 } 1' \
		"$data/two-variants.csv" >"$tmp/zero.csv"
	"$rwlab" report "$tmp/zero.csv" -w locktest -m total_rate | grep -q '^1 thread   76.67 ' ||
		fail "report: pthread at 1 thread with a 0 iteration is not the Amean 76.67"
	if "$rwlab" plot "$tmp/zero.csv" -w locktest -m total_rate --keep-script -o "$tmp/zero.svg" 2>"$tmp/err"; then
		sed -n '/^# pthread/,/^$/p' "$tmp/zero.svg.dat" | grep -q '^1 76\.666' ||
			fail "plot: pthread at 1 thread is not the table's 76.67: $(sed -n '/^# pthread/,/^$/p' "$tmp/zero.svg.dat")"
	else
		fail "plot of a series with a 0 iteration: $(cat "$tmp/err")"
	fi
	# A published change too large for a double (1e308 over 1e-308) or none at all (0 over 0):
	# the page is written, the points that cannot be drawn left out, and gnuplot says nothing.
	for v in "1e-308 1e308" "0 0"; do
		cp "$data/fixture.matrix" "$tmp/extreme.matrix"
		# shellcheck disable=SC2086
		printf 'fixture-time,mean,elapsed seconds,1,old,%s\nfixture-time,mean,elapsed seconds,1,new,%s\n' $v |
			cat - <(grep -v ',1,\(old\|new\),' "$data/published.csv" | tail -n +2) |
			sed '1i benchmark,stat,metric,clients,variant,value' >"$tmp/published.csv"
		"$rwlab" report "$data/two-variants.csv" --matrix "$tmp/extreme.matrix" -f html -o "$tmp/extreme.html" \
			2>"$tmp/err" || fail "report -f html, published $v: exit $?: $(head -3 "$tmp/err")"
		[ -s "$tmp/err" ] && fail "report -f html, published $v: stderr: $(head -3 "$tmp/err")"
	done
	# Variants named with their knobs (as --sim's tables name theirs): the change-per-row graphs keep
	# their key (an entry wider than the graph had gnuplot drop the key and warn on stderr)
	l1=pthread:a_knob_with_a_long_name=131072:another_knob=0 l2=ck-rwlock:a_knob_with_a_long_name=131072:another_knob=0
	sed "s/,pthread,/,$l1,/; s/,ck-rwlock,/,$l2,/" "$data/two-variants.csv" >"$tmp/long.csv"
	sed -e "s/-> pthread\$/-> $l1/; s/-> ck-rwlock\$/-> $l2/; s/^baseline .*/baseline = $l1/; s/^locks .*/locks = $l1, $l2/" \
		-e "s|^reference .*|reference = $data/published.csv|" \
		"$data/fixture.matrix" >"$tmp/long.matrix"
	"$rwlab" report "$tmp/long.csv" --matrix "$tmp/long.matrix" -f html -o "$tmp/long.html" 2>"$tmp/err" ||
		fail "report -f html, variants with long names: exit $?: $(head -3 "$tmp/err")"
	[ -s "$tmp/err" ] && fail "report -f html, variants with long names: stderr: $(head -3 "$tmp/err")"
	grep -q '<table class="ref"' "$tmp/long.html" || fail "report -f html, variants with long names: no reference rows"
	# A key entry too long to share a row (a variant with its knobs; the page's change-per-row
	# graphs name "rwlab NEW vs BASE"): gnuplot drew no key and warned. Now the entries stack.
	long=rwsem-rspin:handoff_timeout_us=4000,spin_budget_us=100,max_readers_wakeup=256,oncpu=1,wspin=1,rsteal=1,base=pthread
	sed "s|,pthread,|,\"$long\",|" "$data/two-variants.csv" >"$tmp/long.csv"
	for ext in png svg; do
		"$rwlab" plot "$tmp/long.csv" -w locktest -m total_rate -o "$tmp/long.$ext" 2>"$tmp/err" ||
			fail "plot of a variant named in ${#long} characters ($ext): $(cat "$tmp/err")"
		[ -s "$tmp/err" ] && fail "plot of a variant named in ${#long} characters ($ext): stderr: $(head -2 "$tmp/err")"
	done
	grep -qF "rwsem-rspin:handoff_timeout_us=4000," "$tmp/long.svg" && grep -qF "rsteal=1,base=pthread" "$tmp/long.svg" ||
		fail "plot: a variant named in ${#long} characters is not in the key"
	# 66 variants: a graph draws 64 lines and its title says that 2 are not drawn
	{
		head -1 "$data/two-variants.csv"
		for i in $(seq 65); do grep ',pthread,locktest,' "$data/two-variants.csv" | sed "s/,pthread,/,v$i,/"; done
		grep ',ck-rwlock,locktest,' "$data/two-variants.csv"
	} >"$tmp/many.csv"
	"$rwlab" plot "$tmp/many.csv" -m total_rate --keep-script -o "$tmp/many.svg" 2>"$tmp/err" ||
		fail "plot of 66 variants: $(cat "$tmp/err")"
	grep -q '^set title .*\\n2 more lines not drawn (a graph holds 64)"$' "$tmp/many.svg.gp" 2>/dev/null ||
		fail "plot of 66 variants: the title does not say 2 lines are not drawn"
else
	echo "gnuplot not installed: plot checks skipped"
fi

# tools/reproduce on an existing CSV: both tables and the agreement count.
if "$root/tools/reproduce" "$data/fixture.matrix" --csv "$data/two-variants.csv" --rwlab "$rwlab" >"$tmp/out" 2>"$tmp/err"; then
	grep -q '^Hmean     total_rate-1 ' "$tmp/out" || fail "reproduce: no mmtests table"
	grep -q '^agree 0, agree-direction 0, disagree 0, inconclusive 3, published-flat 0, scale-gap 0 of 3 rows (ci, alpha 0.05); not counted: not-comparable 0, n/a 1$' "$tmp/out" ||
		fail "reproduce: no verdict summary: $(grep -i agree "$tmp/out")"
else
	fail "reproduce: $(cat "$tmp/err")"
fi
# --help prints the usage alone and exits 0 (its exit handler read list_only before it was set: exit 1)
"$root/tools/reproduce" --help >"$tmp/out" 2>"$tmp/err" || fail "reproduce --help exited $?: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "reproduce --help wrote to stderr: $(cat "$tmp/err")"
grep -q '^tools/reproduce NAME ' "$tmp/out" || fail "reproduce --help: no usage line: $(head -n 3 "$tmp/out")"
expect_err 2 "reproduce: no matrix 'nosuch' \(valid: .*quick" -- "$root/tools/reproduce" nosuch --rwlab "$rwlab"
# an option's value missing, or another option in its place: one line, exit 2 (bash's own
# 'line 149: 2: --csv needs a file' and exit 1 before; --csv --out DIR took --out for the CSV)
expect_err 2 "^reproduce: --csv needs a results CSV$" -- "$root/tools/reproduce" quick --rwlab "$rwlab" --csv
expect_err 2 "^reproduce: --csv needs a results CSV, not the option '--out'$" -- \
	"$root/tools/reproduce" quick --rwlab "$rwlab" --csv --out "$tmp/o"
expect_err 2 "^reproduce: --note needs a line of text$" -- "$root/tools/reproduce" quick --rwlab "$rwlab" --note ''
# --set KEY that is not a matrix key: it went into a sed address ('sed: -e expression #1, char 22:
# extra characters after command', exit 1)
expect_err 2 "^reproduce: --set needs KEY=VALUE, KEY a matrix key .*, not 'locks/x'$" -- \
	"$root/tools/reproduce" per-vma-locks --sim generic-8 --set 'locks/x=1' --rwlab "$rwlab"
# --sim's machine before the matrix: generic-N has no machine file, and was taken for the matrix
expect_err 2 "^reproduce: no matrix 'nosuch' \(valid: " -- "$root/tools/reproduce" --sim generic-8 nosuch --rwlab "$rwlab"
# --sim on a matrix with no published table: said at once, whether a machine is given or not (without
# one it asked for a machine, and given one it then said there was no table); a named table that
# cannot be read is said so, not called none
expect_err 2 "^reproduce: --sim compares with the published table, and the matrix quick names none$" -- \
	"$root/tools/reproduce" quick --sim --rwlab "$rwlab"
printf 'reference = nosuch.csv\nlocks = rwsem\n' >"$tmp/noref.matrix"
expect_err 2 "^reproduce: the matrix noref's published table $tmp/nosuch\\.csv: no such file \\(a published table is a CSV" -- \
	"$root/tools/reproduce" "$tmp/noref.matrix" --sim generic-8 --rwlab "$rwlab"
# a directory as the matrix: one line (sed's 'read error on DIR: Is a directory', exit 4)
expect_err 2 "^reproduce: $tmp is a directory, not a matrix \(valid: a \.matrix file, or .*quick" -- \
	"$root/tools/reproduce" "$tmp" --sim --rwlab "$rwlab"
# --csv FILE that is not there: one line, nothing printed first (the matrix's deviations came before
# report's own error)
expect_err 2 "^reproduce: --csv $tmp/nosuch\.csv: no such file \(give a results CSV\)$" -- \
	"$root/tools/reproduce" lazy-mm-hazptr --csv "$tmp/nosuch.csv" --rwlab "$rwlab"
[ -s "$tmp/out" ] && fail "reproduce --csv of no file printed: $(head -3 "$tmp/out")"
expect_err 2 "^reproduce: --csv $tmp: a directory \(give a results CSV\)$" -- \
	"$root/tools/reproduce" lazy-mm-hazptr --csv "$tmp" --rwlab "$rwlab"
# --csv of simulated rows without --sim: refused in one line naming --sim and their machine, nothing
# printed first (the native matrix judged them: most rows n/a, or its baseline missing)
expect_err 2 "^reproduce: --csv $data/simulated\.csv holds simulated rows \(machine generic-8\): judge them with the matrix as simulated, --sim generic-8$" -- \
	"$root/tools/reproduce" quick --csv "$data/simulated.csv" --rwlab "$rwlab" --no-plots
[ -s "$tmp/out" ] && fail "reproduce --csv of simulated rows without --sim printed: $(head -3 "$tmp/out")"
# --csv of a pipe (not a redirect: /dev/stdin of a file is that file), read once (it was refused as
# 'not a readable file')
cat "$data/two-variants.csv" | "$root/tools/reproduce" "$data/fixture.matrix" --csv /dev/stdin --rwlab "$rwlab" \
	>"$tmp/out" 2>"$tmp/err" || fail "reproduce --csv /dev/stdin: $(cat "$tmp/err")"
grep -q '^agree 0, agree-direction 0, disagree 0, inconclusive 3, ' "$tmp/out" ||
	fail "reproduce --csv /dev/stdin: no verdict summary: $(tail -1 "$tmp/out")"
# --csv of a pipe with --out: its copy, fixture.csv, goes when nothing is reported from it (no results
# CSV; a stop while it is read, at once though its writer goes on), so the same --out takes the next
# try (the copy stayed, and refused it: 'exists; not writing over it'; a stop waited for the writer)
"$root/tools/reproduce" "$data/fixture.matrix" --csv <(echo 'hello,world') --out "$tmp/retry" --no-plots \
	--rwlab "$rwlab" >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st = 2 ] && [ ! -e "$tmp/retry/fixture.csv" ] &&
	grep -q "^reproduce: nothing reported from --csv /dev/fd/[0-9]*; its copy $tmp/retry/fixture.csv removed$" "$tmp/err" ||
	fail "reproduce --csv <(no results CSV) --out: exit $st, $(ls "$tmp/retry"): $(cat "$tmp/err")"
rm -f "$tmp/retry/fixture.csv"	# (where the try before left it: signalled once its copy has begun)
mkfifo "$tmp/fifo"
(head -n 3 "$data/two-variants.csv"; exec sleep 30) >"$tmp/fifo" &
writer=$!
"$root/tools/reproduce" "$data/fixture.matrix" --csv "$tmp/fifo" --out "$tmp/retry" --no-plots --rwlab "$rwlab" \
	>"$tmp/out" 2>"$tmp/err" &
pid=$!
i=0
until [ -s "$tmp/retry/fixture.csv" ] || ! kill -0 $pid 2>/dev/null || [ $i -ge 400 ]; do
	sleep 0.05
	i=$((i + 1))
done
t=$SECONDS
kill -TERM $pid
wait $pid
st=$?
kill $writer 2>/dev/null
[ $st = 143 ] && [ $((SECONDS - t)) -lt 10 ] && [ ! -e "$tmp/retry/fixture.csv" ] ||
	fail "reproduce --csv FIFO --out, SIGTERM while its writer stalls: exit $st after $((SECONDS - t)) s, $(ls "$tmp/retry"): $(cat "$tmp/err")"
"$root/tools/reproduce" "$data/fixture.matrix" --csv <(cat "$data/two-variants.csv") --out "$tmp/retry" --no-plots \
	--rwlab "$rwlab" >"$tmp/out" 2>"$tmp/err" && cmp -s "$tmp/retry/fixture.csv" "$data/two-variants.csv" ||
	fail "reproduce --csv <(...) --out after the tries: $(cat "$tmp/err")"
# --out naming a file, or a directory that cannot be made: refused before the report is printed
# (the report was printed, then mkdir's own message and exit 1)
: >"$tmp/afile"
expect_err 2 "^reproduce: --out $tmp/afile exists and is not a directory" -- \
	"$root/tools/reproduce" "$data/fixture.matrix" --csv "$data/two-variants.csv" --out "$tmp/afile" --rwlab "$rwlab"
[ -s "$tmp/out" ] && fail "reproduce --out FILE printed the report before refusing"
[ -s "$tmp/afile" ] && fail "reproduce --out FILE wrote into the file"
expect_err 2 "^reproduce: cannot write in the --out directory $tmp/afile/sub: " -- \
	"$root/tools/reproduce" "$data/fixture.matrix" --csv "$data/two-variants.csv" --out "$tmp/afile/sub" --rwlab "$rwlab"
# $RWLAB_RESULTS_DIR that cannot hold a directory: mkdir's own message and exit 1 before
RWLAB_RESULTS_DIR=$tmp/afile/sub expect_err 2 "^reproduce: cannot make a new directory $tmp/afile/sub/[0-9]*cpu/quick-.* \(\\\$RWLAB_RESULTS_DIR, else results/\): Not a directory$" -- \
	"$root/tools/reproduce" quick --rwlab "$rwlab" --no-plots
# ... and with --out, the page beside the text report (tests/cli/html_page.py checks pages in a browser).
if command -v "${RWLAB_GNUPLOT:-gnuplot}" >/dev/null; then
	"$root/tools/reproduce" "$data/fixture.matrix" --csv "$data/two-variants.csv" --out "$tmp/page" --rwlab "$rwlab" \
		>"$tmp/out" 2>"$tmp/err" || fail "reproduce --out: $(cat "$tmp/err")"
	grep -q '<table class="ref"' "$tmp/page/fixture.html" 2>/dev/null || fail "reproduce --out: no fixture.html with the reference rows"
	[ "$(grep -c '<svg role="img"' "$tmp/page/fixture.html")" = "$(grep -Ec '<table class="(grid|ref)"' "$tmp/page/fixture.html")" ] ||
		fail "reproduce --out: fixture.html has not one graph per table"
	# ... of a pipe: its rows kept as fixture.csv, which the report, the figures and the page read
	"$root/tools/reproduce" "$data/fixture.matrix" --csv <(cat "$data/two-variants.csv") --out "$tmp/pipe" \
		--rwlab "$rwlab" >"$tmp/out" 2>"$tmp/err" || fail "reproduce --csv <(...) --out: $(cat "$tmp/err")"
	cmp -s "$tmp/pipe/fixture.csv" "$data/two-variants.csv" || fail "reproduce --csv <(...) --out: no copy of its rows"
	grep -q '<table class="ref"' "$tmp/pipe/fixture.html" 2>/dev/null || fail "reproduce --csv <(...) --out: no page"
fi

# tools/reproduce never writes over a tracked file: the committed quick report stays as it is.
before=$(cksum <"$root/results/2cpu/quick.report.txt")
expect_err 2 "reproduce: .*results/2cpu/quick.report.txt is tracked by git; not writing over it" -- \
	"$root/tools/reproduce" quick --csv "$root/results/2cpu/quick.csv" --out "$root/results/2cpu" --no-plots --rwlab "$rwlab"
[ "$(cksum <"$root/results/2cpu/quick.report.txt")" = "$before" ] || fail "reproduce changed results/2cpu/quick.report.txt"

# By default every run gets a directory of its own.
for i in 1 2; do
	RWLAB_RESULTS_DIR=$tmp/res "$root/tools/reproduce" "$tmp/tiny.matrix" --no-plots --rwlab "$rwlab" -- -n 1 -q \
		>"$tmp/out" 2>"$tmp/err" || fail "reproduce tiny ($i): $(tail -2 "$tmp/err")"
done
ndirs=$(find "$tmp/res" -mindepth 2 -maxdepth 2 -type d -name 'tiny-*' | wc -l)
[ "$ndirs" = 2 ] || fail "two reproduce runs made $ndirs directories, want 2: $(find "$tmp/res")"
[ "$(find "$tmp/res" -name tiny.csv | wc -l)" = 2 ] || fail "reproduce: no tiny.csv in each run directory"

# --sim: the matrix's sim_machine, every published client count in the matrix as run,
# a directory under sim/, and the published rows compared one to one (here 4 threads only, the
# row checked: each pft cell faults its whole 256 MiB region, so a thread count costs two cells).
if [ -x "$(dirname "$rwlab")/rwlab-sim" ]; then
	RWLAB_RESULTS_DIR=$tmp/simres "$root/tools/reproduce" per-vma-locks --sim --no-plots --rwlab "$rwlab" \
		-- -n 1 -t 4 -q >"$tmp/out" 2>"$tmp/err" || fail "reproduce --sim: $(tail -2 "$tmp/err")"
	sd=$(find "$tmp/simres/sim" -mindepth 1 -maxdepth 1 -type d -name 'per-vma-locks-*' 2>/dev/null | head -1)
	if [ -z "$sd" ]; then
		fail "reproduce --sim made no results/sim/per-vma-locks-* directory: $(find "$tmp/simres")"
	else
		grep -q '^threads *= 1,4,7,12,21,30,48,79,110,128$' "$sd/per-vma-locks.sim.matrix" ||
			fail "reproduce --sim: the matrix as run lacks the published client counts"
		grep -v '^#' "$sd/per-vma-locks.sim.matrix" | grep -q 'map\.threads' && fail "reproduce --sim kept map.threads"
		grep -q 'cpu_model=sim icx-8336c-2s128: ' "$sd/per-vma-locks.csv" || fail "reproduce --sim: not on icx-8336c-2s128"
		[ -s "$sd/icx-8336c-2s128.machine" ] || fail "reproduce --sim: the machine file is not beside the results"
		grep -q '^simulated: icx-8336c-2s128 .*host time [0-9]* s' "$sd/per-vma-locks.context.txt" ||
			fail "reproduce --sim: no host time in the context file"
		grep -Eq '^4 .*\| *4 .*\| (agree|disagree|inconclusive)' "$tmp/out" ||
			fail "reproduce --sim: the 4-client row was not compared with 4 threads"
	fi
fi

# A committed tools/reproduce --sim run reported with the matrix's NAME: the .sim.matrix beside the
# CSV is read (one line says so), so every published client count finds its row (the native matrix
# left 8 of 10 rows per metric n/a: no rwlab thread count for those clients).
pvl=("$root"/results/sim/per-vma-locks/reproduce-*/)
pvl=${pvl[-1]}
expect_err 0 "^rwlab report: note: .*per-vma-locks.csv is simulated \(sim icx-8336c-2s128\), so matrix per-vma-locks is read from .*per-vma-locks.sim.matrix" -- \
	"$rwlab" report "$pvl/per-vma-locks.csv" --matrix per-vma-locks -f none
grep -q 'n/a [1-9]' "$tmp/out" && fail "report of $pvl with --matrix per-vma-locks: rows left n/a: $(grep 'n/a [1-9]' "$tmp/out")"
grep -q 'of 10 rows' "$tmp/out" || fail "report of $pvl with --matrix per-vma-locks: not 10 rows compared: $(grep ' rows ' "$tmp/out")"
# Its fault paths are the columns (one variant ran both): -b names one of them, which keeps them
# side by side with that one first, in report and plot (refused: "valid: rwsem..."); a variant
# compares the variants; a name that is neither is refused listing both kinds
"$rwlab" report "$pvl/per-vma-locks.csv" -b per-VMA >"$tmp/out" 2>"$tmp/err" ||
	fail "report -b per-VMA of two fault paths: $(cat "$tmp/err")"
grep -Eq '^ +per-VMA +mmap_lock$' "$tmp/out" && grep -q 'change vs per-VMA' "$tmp/out" ||
	fail "report -b per-VMA of two fault paths: not per-VMA first: $(head -5 "$tmp/out")"
"$rwlab" report "$pvl/per-vma-locks.csv" --by fault_path -b per-VMA | cmp -s - "$tmp/out" ||
	fail "report -b per-VMA of two fault paths is not --by fault_path -b per-VMA"
# (a second variant, rwsem-xadd, beside rwsem: with rwsem alone there is nothing to compare, said below)
{ cat "$data/fault-paths.csv"; tail -n +2 "$data/fault-paths.csv" | sed 's/,rwsem,pft/,rwsem-xadd,pft/'; } >"$tmp/fp2.csv"
"$rwlab" report "$tmp/fp2.csv" -b rwsem | grep -Eq '^ +rwsem +rwsem-xadd$' ||
	fail "report -b rwsem of two fault paths does not compare the variants: $("$rwlab" report "$tmp/fp2.csv" -b rwsem)"
expect_err 0 "^rwlab report: -b rwsem: .*fault-paths\.csv holds one variant, rwsem: nothing to compare it with" -- \
	"$rwlab" report "$data/fault-paths.csv" -b rwsem
# ... a name that is both (a variant named mmap_lock) is taken as the variant, and one note says so
sed 's/,rwsem,pft/,mmap_lock,pft/' "$tmp/fp2.csv" >"$tmp/both.csv"
expect_err 0 "^rwlab report: note: -b mmap_lock names a variant and a fault path: the variants are compared \(--by fault_path -b mmap_lock compares the fault paths side by side\)$" -- \
	"$rwlab" report "$tmp/both.csv" -b mmap_lock
grep -Eq '^ +mmap_lock +rwsem-xadd$' "$tmp/out" ||
	fail "report -b mmap_lock, both a variant and a path: not the variants: $(cat "$tmp/out")"
if command -v "${RWLAB_GNUPLOT:-gnuplot}" >/dev/null; then
	"$rwlab" plot "$data/fault-paths.csv" -b mmap_lock -o "$tmp/fp.svg" 2>"$tmp/err" ||
		fail "plot -b mmap_lock of two fault paths: $(cat "$tmp/err")"
fi
# -w pft, the workload both paths are of, draws their one figure (a line a path), as report -w pft
# shows them in one table; where the paths are figures of their own (--by variant), -w pft picks
# neither: refused as a usage error, exit 2 (it was 1), naming both
if command -v "${RWLAB_GNUPLOT:-gnuplot}" >/dev/null; then
	for f in "$data/fault-paths.csv" "$pvl/per-vma-locks.csv"; do
		"$rwlab" plot "$f" -w pft -o "$tmp/fp.svg" 2>"$tmp/err" || fail "plot $f -w pft: $(cat "$tmp/err")"
	done
fi
expect_err 2 "^rwlab plot: .*fault-paths.csv holds 2 figures \(pft, pft:mm_lock=vma\): choose one with -w, or put %w in -o" -- \
	"$rwlab" plot "$data/fault-paths.csv" -w pft --by variant -o "$tmp/fp.svg"
# %w: a label's knobs become _ (no ':', '=' or ','), one file a figure, as tools/reproduce names its
# png files; the one unlabelled figure of a --by that compares every key is named by that --by
# (it was OUT-.svg)
mkdir "$tmp/pw"
for p in ":rwsem_pft" "workload:rwsem" "variant:pft pft_mm_lock_vma" "variant,workload:variant_workload"; do
	by=${p%%:*}
	RWLAB_GNUPLOT=true "$rwlab" plot "$data/fault-paths.csv" ${by:+--by "$by"} -o "$tmp/pw/fp-%w.svg" >"$tmp/out" 2>"$tmp/err" ||
		fail "plot --by '$by' -o fp-%w.svg: $(cat "$tmp/err")"
	want=$(for w in ${p#*:}; do echo "$tmp/pw/fp-$w.svg"; done)
	[ "$(cat "$tmp/out")" = "$want" ] || fail "plot --by '$by' -o fp-%w.svg: wrote $(tr '\n' ' ' <"$tmp/out"), want $(echo $want)"
done
expect_err 2 "^rwlab plot: baseline 'per-vma' is not in .*fault-paths.csv \(valid: rwsem; or a fault path, compared side by side: mmap_lock, per-VMA\)$" -- \
	"$rwlab" plot "$data/fault-paths.csv" -b per-vma -o "$tmp/fp.svg"

# Readable tables: the quick matrix's final table within 100 columns, --format email within 80
# (display columns: ± is one), the per-cell figure and the table's the same labelled aggregate.
width() { LC_ALL=C.UTF-8 wc -L; }
w=$("$rwlab" report "$root/results/2cpu/quick.csv" --matrix quick | width)
[ "$w" -le 100 ] || fail "the quick matrix's table is $w columns wide, want <= 100"
for f in quick rwsem-rework per-vma-locks; do
	w=$("$rwlab" report "$root/results/2cpu/$f.csv" --format email | width)
	[ "$w" -le 80 ] || fail "report $f.csv --format email is $w columns wide, want <= 80"
done
"$rwlab" report "$root/results/2cpu/quick.csv" --format email | grep -q '^variant  ' ||
	fail "quick's 7 variants at 3 thread counts: --format email is not transposed (one row per variant)"
"$rwlab" report "$root/results/2cpu/quick.csv" >"$tmp/out"
grep -q 'e+' "$tmp/out" && fail "the default table uses e-notation: $(grep 'e+' "$tmp/out" | head -1)"
if "$rwlab" run -l pthread -w locktest:load=10 -t 1 -n 2 -d 50ms --warmup 0 -o "$tmp/agg2.csv" >"$tmp/out" 2>/dev/null; then
	cell=$(grep -o 'Hmean [0-9,.]* ±[0-9.]*%' "$tmp/out" | head -1)
	[ -n "$cell" ] || fail "run printed no labelled per-cell aggregate: $(head -3 "$tmp/out")"
	# two iterations: the table flags the cell, as the per-cell line does
	grep -q "^1 thread *${cell#Hmean }!\$" "$tmp/out" ||
		fail "the per-cell line's '$cell' is not the table's figure: $(cat "$tmp/out")"
else
	fail "run for the aggregate check failed"
fi

# Flagged cells (lab_fmt_flag()): tests/data/flagged.csv has three cells of locktest total_rate at
# 2 threads: pthread clean (3 iterations, CoeffVar 1%), ck-rwlock with 2 iterations, percpu-rwsem
# with CoeffVar 20% (HCoeffVar 16.7%). Every format marks exactly the last two.
flagged=$data/flagged.csv
# marks FORMAT [ARGS]: report the fixture into $tmp/flag; echo how many marks it holds outside legend lines
marks() {
	"$rwlab" report "$flagged" --format "$@" >"$tmp/flag" 2>&1 || fail "report --format $* exited $?"
	grep -v '^! flagged: ' "$tmp/flag" | tr -cd '!' | wc -c
}
legend='! flagged: fewer than 3 iterations, or (H)CoeffVar above 10%'
for f in table email "mmtests --mmtests-era current" "mmtests --mmtests-era 2019" lkp locktest speedup duration \
	markdown; do
	# shellcheck disable=SC2086
	n=$(marks $f)
	want=2
	[ "$f" = duration ] && want=6	# two columns' User, System and Elapsed sums
	[ "$n" = "$want" ] || fail "report --format $f marks $n cells of flagged.csv, want $want: $(cat "$tmp/flag")"
	want=1
	[ "$f" = locktest ] && want=0	# each cell's own line names its reason instead
	[ "$(grep -cF -- "$legend" "$tmp/flag")" = "$want" ] ||
		fail "report --format $f: not $want legend line: $(cat "$tmp/flag")"
	case $f in
	table) pat='^2 threads +999\.9 ±0\.8% +1,000 ±0\.0%! \+0\.0067% +973\.0 ±16\.7%! -2\.7%$' ;;
	email) pat='^2 threads +999\.9 ±1% +1,000 ±0%! \+0\.0067% +973\.0 ±17%! -2\.7%$' ;;
	mmtests*) pat='^Hmean +total_rate-2 +999\.93 \( +0\.00%\) +!1000\.00 \( +0\.01%\) +!972\.97 \( +-2\.70%\)$' ;;
	lkp) pat='^ +1000 +\+0\.0% +!1000 +\+0\.0% +!1000 ± 16% +locktest\.total_rate$' ;;
	locktest) pat='^Threads = 2, Total Rate = 1,000 op/s; Percpu Rate = 500 op/s  \[! (fewer than 3 iterations|CoeffVar > 10%)\]$' ;;
	speedup) pat='^ +2 +\+0\.0%! +-2\.7%!$' ;;
	duration) pat='^Elapsed +6\.00 +!4\.00 +!6\.00$' ;;
	markdown) pat='^\| Hmean total_rate-2 \| 999\.93 ±0\.82% \| 1000\.00 ±0\.00%! \(\+0\.01%\) \| 972\.97 ±16\.66%! \(-2\.70%\) \|$' ;;
	esac
	grep -Eq -- "$pat" "$tmp/flag" || fail "report --format $f does not mark ck-rwlock and percpu-rwsem only: $(cat "$tmp/flag")"
done
# mmtests' own two-line column header (Compare.pm's _generateHeaderTable, which splits kernel
# names: v4.15-rc8 over range-mmap_lock-v1), kept on purpose: each name split at its first '-',
# both parts right-aligned over the column (mmtests: figure and change); duration's alike.
for f in mmtests duration; do
	"$rwlab" report "$data/two-variants.csv" --format $f -w locktest >"$tmp/hdr" || fail "report --format $f exited $?"
	sed -n '/^locktest$/,$p' "$tmp/hdr" >"$tmp/hdr1"	# duration's starts with an empty line
	l2=$(sed -n 2p "$tmp/hdr1") l3=$(sed -n 3p "$tmp/hdr1") l4=$(sed -n 4p "$tmp/hdr1")
	[[ $l2 =~ ^\ +pthread\ +ck$ && $l3 =~ ^\ +rwlock$ ]] ||
		fail "report --format $f: header is not 'pthread ck' over 'rwlock': $(sed -n 2,3p "$tmp/hdr")"
	[ ${#l2} = ${#l3} ] || fail "report --format $f: 'ck' and 'rwlock' do not end in one column"
	[ ${#l2} = ${#l4} ] || fail "report --format $f: the header does not end over the last column: $l2 / $l4"
done
"$rwlab" report "$flagged" --format csv >"$tmp/flag.csv" || fail "report --format csv exited $?"
[ "$(cut -d, -f2,19 "$tmp/flag.csv" | tr '\n' ';')" = \
	"column,flag;pthread,;ck-rwlock,fewer than 3 iterations;percpu-rwsem,HCoeffVar > 10%;" ] ||
	fail "report --format csv flag column: $(cat "$tmp/flag.csv")"
# One spread per cell in every format: percpu-rwsem at 2 threads (800, 1000, 1200) is HCoeffVar 16.66%
# (HStddev 162.1 around the Hmean 973.0) in the table (16.7%), email (17%), markdown (16.66%), csv
# (spread_stat, coeffvar), json, and the plot's error bar (HStddev, named in its title).
[ "$(cut -d, -f2,11,13 "$tmp/flag.csv" | grep '^percpu-rwsem,')" = "percpu-rwsem,HCoeffVar,16.66057839" ] ||
	fail "report --format csv: percpu-rwsem's spread: $(grep percpu-rwsem "$tmp/flag.csv")"
"$rwlab" report "$flagged" --format json >"$tmp/flag.json" || fail "report --format json exited $?"
grep -q '"column": "percpu-rwsem", .*"spread_stat": "HCoeffVar", "stddev": 162.102924[0-9]*, "coeffvar_pct": 16.6605783[0-9]*, .*"flag": "HCoeffVar > 10%"' "$tmp/flag.json" ||
	fail "report --format json: percpu-rwsem's spread: $(grep percpu-rwsem "$tmp/flag.json")"
"$rwlab" report "$flagged" --format table | grep -q '973\.0 ±16\.7%!' || fail "report --format table: percpu-rwsem's spread"
if command -v "${RWLAB_GNUPLOT:-gnuplot}" >/dev/null; then
	"$rwlab" plot "$flagged" --keep-script -o "$tmp/fl.png" 2>/dev/null || fail "plot flagged.csv: exit $?"
	sed -n '/^# percpu-rwsem/,/^$/p' "$tmp/fl.png.dat" | grep -q '^2 972.972973 162.1029248\( \|$\)' ||
		fail "plot: percpu-rwsem's error bar is not its HStddev: $(cat "$tmp/fl.png.dat")"
	grep -q 'Hmean +- HStddev over 3 iterations' "$tmp/fl.png.gp" || fail "plot: the title does not name the spread"
fi
if command -v python3 >/dev/null; then
	"$rwlab" report "$flagged" --format json >"$tmp/flag.json" || fail "report --format json exited $?"
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
got = {s["column"]: s["flag"] for s in d["series"]}
assert got == {"pthread": None, "ck-rwlock": "fewer than 3 iterations", "percpu-rwsem": "HCoeffVar > 10%"}, got' \
		"$tmp/flag.json" || fail "report --format json flag members are wrong"
fi

# --format json is one JSON document on stdout, with a matrix's reference verdicts too.
if command -v python3 >/dev/null; then
	"$rwlab" report "$root/results/2cpu/rwsem-rework.csv" --matrix rwsem-rework --format json >"$tmp/out.json" ||
		fail "report --format json exited $?"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["series"] and d["reference"]["summary"]["rows"] > 0 and type(d["context"]["cpus"]) is int and d["context"]["cpus"] > 0' \
		"$tmp/out.json" || fail "report --format json is not one JSON object with series, verdicts and a numeric cpus"
fi

# `all` selects every metric (-m) and every workload (-w), as -l all and -w all do for run.
"$rwlab" report "$data/two-variants.csv" -m all --format csv >"$tmp/all.csv" 2>"$tmp/err" ||
	fail "report -m all exited $?: $(cat "$tmp/err")"
nall=$(tail -n +2 "$tmp/all.csv" | cut -d, -f4 | sort -u | wc -l)
nhead=$("$rwlab" report "$data/two-variants.csv" --format csv | tail -n +2 | cut -d, -f4 | sort -u | wc -l)
[ "$nall" -gt "$nhead" ] || fail "report -m all tabulates $nall metrics, no more than the $nhead headline ones"
"$rwlab" report "$data/two-variants.csv" -w all >/dev/null 2>"$tmp/err" || fail "report -w all exited $?: $(cat "$tmp/err")"

# -m a,b: the tables come in the order asked, in every format (the CSV has ops_min before total_rate).
for f in table csv mmtests lkp markdown json; do
	"$rwlab" report "$data/two-variants.csv" -m total_rate,ops_min --format $f >"$tmp/order.$f" 2>"$tmp/err" ||
		fail "report -m total_rate,ops_min --format $f exited $?: $(cat "$tmp/err")"
	a=$(grep -n -m1 'total_rate' "$tmp/order.$f" | cut -d: -f1) b=$(grep -n -m1 'ops_min' "$tmp/order.$f" | cut -d: -f1)
	[ -n "$a" ] && [ -n "$b" ] && { [ "$a" -lt "$b" ] || { [ "$f" = json ] && [ "$a" = "$b" ]; }; } ||
		fail "report -m total_rate,ops_min --format $f: total_rate at line ${a:-none}, ops_min at ${b:-none}"
done
python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["series"]; m = [x["metric"] for x in s]; assert m.index("total_rate") < m.index("ops_min"), m' \
	"$tmp/order.json" 2>/dev/null || fail "report -m total_rate,ops_min --format json: ops_min's series first"

# A run restricted to one CPU (taskset -c 1) has cpus=1 in its context: the banner says "1 CPU".
sed 's/,compact,2,cpu,/,compact,1,cpu,/' "$data/good.csv" >"$tmp/one-cpu.csv"
"$rwlab" report "$tmp/one-cpu.csv" >"$tmp/out" 2>"$tmp/err" || fail "report of a 1-CPU run: exit $?: $(cat "$tmp/err")"
head -n 1 "$tmp/out" | grep -q '^measured: host host, 1 CPU cpu, ' ||
	fail "the banner of a 1-CPU run: $(head -n 1 "$tmp/out")"
"$rwlab" report "$tmp/one-cpu.csv" -f email >"$tmp/out" 2>"$tmp/err" || fail "email of a 1-CPU run: exit $?"
grep -q ', 1 CPU (cpu),$' "$tmp/out" || fail "the email header of a 1-CPU run: $(head -n 3 "$tmp/out")"

# a mapping begun and not whole (one map.column, no map.metric): one line from the matrix's loader, for
# report and run alike (run says it before any cell and goes on)
printf 'locks = rwsem\nreference = %s\nmap.column = a -> rwsem\n' "$root/results/reference/rwsem-rework.csv" \
	>"$tmp/half-map.matrix"
expect_err 2 "^rwlab report: $tmp/half-map\\.matrix: a reference mapping needs two map\\.column and at least one map\\.metric$" -- \
	"$rwlab" report "$root/results/2cpu/quick.csv" --matrix "$tmp/half-map.matrix"

# -f csv writes the CSV alone on stdout (a tool reads it): its notes go to stderr (the "no rows to
# report" lines were on stdout after the header, in the middle of the CSV)
hdr='group,column,workload,metric,unit,better,threads,n,stat,mean,spread_stat,stddev,coeffvar,min,max,change_pct,significant,welch_p,flag'
awk -F, 'NR == 1 || $8 == "ops_min"' "$data/two-variants.csv" >"$tmp/no-headline.csv"
for args in "$tmp/no-headline.csv" "$data/two-variants.csv -m elapsed -w locktest"; do
	# shellcheck disable=SC2086
	"$rwlab" report $args -f csv >"$tmp/out" 2>"$tmp/err" || fail "report $args -f csv: exit $?: $(cat "$tmp/err")"
	[ "$(cat "$tmp/out")" = "$hdr" ] || fail "report $args -f csv: stdout is not the CSV alone: $(cat "$tmp/out")"
	grep -q "^rwlab report: .*: no rows to report in the csv format" "$tmp/err" ||
		fail "report $args -f csv: no note on stderr: $(cat "$tmp/err")"
done

# A file that records no context (an old schema's, a hand-made one: no '# context' line nor context
# columns): email's header and lkp's axes say so (email printed "rwlab," over "  up to 1 iteration",
# lkp the axes over "//////1/locktest")
cut -d, -f4-11 "$data/two-variants.csv" >"$tmp/no-context.csv"
"$rwlab" report "$tmp/no-context.csv" -f email >"$tmp/out" 2>"$tmp/err" || fail "email, no context: exit $?: $(cat "$tmp/err")"
head -n 1 "$tmp/out" | grep -q "^rwlab: $tmp/no-context\.csv records no context (machine and build unknown),$" ||
	fail "email of a file with no context: its header is $(head -n 2 "$tmp/out")"
"$rwlab" report "$tmp/no-context.csv" -f lkp >"$tmp/out" 2>"$tmp/err" || fail "lkp, no context: exit $?: $(cat "$tmp/err")"
head -n 1 "$tmp/out" | grep -q "^$tmp/no-context\.csv records no context (.*): the axes are nr_threads/testcase alone$" &&
	grep -q '^nr_threads/testcase:$' "$tmp/out" && grep -q '^  1/locktest$' "$tmp/out" && ! grep -q '//' "$tmp/out" ||
	fail "lkp of a file with no context: $(head -n 4 "$tmp/out")"

# lkp's axes name what every run records: two runs' kernels joined by '+' (the first run's alone was
# printed over both runs' values), a compiler the first run does not record taken from the other (an
# empty axis printed a bare '/')
awk -F, -v OFS=, 'NR > 1 { $2 = "other"; $15 = "Linux 6.8.0"; $16 = "" } { print }' "$data/two-variants.csv" \
	>"$tmp/other-kernel.csv"
"$rwlab" report "$tmp/other-kernel.csv" "$data/two-variants.csv" -f lkp >"$tmp/out" 2>"$tmp/err" ||
	fail "lkp of two runs: exit $?: $(cat "$tmp/err")"
grep -qx '  gcc-12\.2\.0/2/release/jemalloc/Linux-6\.8\.0+Linux-6\.1\.0/compact/1/locktest' "$tmp/out" &&
	! grep -q '//\|^  /' "$tmp/out" || fail "lkp of two runs' contexts: $(head -n 3 "$tmp/out")"

# -b NAME where the rows kept hold that column alone: one line naming the file's columns, no table of
# the baseline against nothing (it printed a one-column table), exit 0 as speedup's baseline-only
# tables; with -o an existing file stays as it was
expect_err 0 "^rwlab report: -b pthread: .*good\.csv holds one variant, pthread: nothing to compare it with \(without -b, its table\)$" -- \
	"$rwlab" report "$data/good.csv" -b pthread
[ -s "$tmp/out" ] && fail "report good.csv -b pthread printed a table: $(cat "$tmp/out")"
awk -F, '!($4 == "ck-rwlock" && $5 == "locktest")' "$data/two-variants.csv" >"$tmp/half.csv"
expect_err 0 "^rwlab report: -b pthread: the rows -m and -w keep hold one variant, pthread: nothing to compare it with \(.*half\.csv holds pthread, ck-rwlock\)$" -- \
	"$rwlab" report "$tmp/half.csv" -b pthread -w locktest -f markdown
[ -s "$tmp/out" ] && fail "report half.csv -b pthread -w locktest -f markdown printed: $(cat "$tmp/out")"
# ... but csv, as json, which a tool reads, carries the baseline's own series, its change empty (csv
# printed nothing at all, not even its header, where it prints the header over no rows)
for f in csv json; do
	"$rwlab" report "$tmp/half.csv" -b pthread -w locktest -f $f >"$tmp/out" 2>"$tmp/err" ||
		fail "report half.csv -b pthread -w locktest -f $f: exit $?: $(cat "$tmp/err")"
	grep -q 'pthread' "$tmp/out" && ! grep -q 'ck-rwlock' "$tmp/out" && [ ! -s "$tmp/err" ] ||
		fail "report half.csv -b pthread -w locktest -f $f: not the baseline's series: $(cat "$tmp/out" "$tmp/err")"
done
"$rwlab" report "$tmp/half.csv" -b pthread -w locktest -f csv 2>/dev/null | awk -F, 'NR == 1 && $16 != "change_pct" ||
	NR > 1 && ($2 != "pthread" || $16 != "") { bad = 1 } END { exit bad || NR < 2 }' ||
	fail "report half.csv -b pthread -w locktest -f csv: $("$rwlab" report "$tmp/half.csv" -b pthread -w locktest -f csv 2>&1)"
echo kept >"$tmp/kept.txt"
"$rwlab" report "$data/good.csv" -b pthread -o "$tmp/kept.txt" 2>/dev/null || fail "report good.csv -b pthread -o: exit $?"
[ "$(cat "$tmp/kept.txt")" = kept ] || fail "report good.csv -b pthread -o FILE replaced FILE: $(cat "$tmp/kept.txt")"
# -f none's report (only the --reference comparison) is FILE's, empty without one: an existing FILE
# was left as it was (the skip above took it for nothing to compare) and a new one not made
echo stale >"$tmp/none.txt"
rm -f "$tmp/none-new.txt"
"$rwlab" report "$data/two-variants.csv" -f none -o "$tmp/none.txt" || fail "report -f none -o FILE: exit $?"
"$rwlab" report "$data/two-variants.csv" -f none -o "$tmp/none-new.txt" || fail "report -f none -o NEW: exit $?"
[ -f "$tmp/none.txt" ] && [ ! -s "$tmp/none.txt" ] && [ -f "$tmp/none-new.txt" ] && [ ! -s "$tmp/none-new.txt" ] ||
	fail "report -f none -o FILE: FILE not its empty report: $(cat "$tmp/none.txt" 2>&1); $(ls "$tmp/none-new.txt" 2>&1)"
# without -b, or with a second column kept, the table as before
"$rwlab" report "$data/good.csv" 2>/dev/null | grep -q '^2 threads ' || fail "report good.csv (no -b): no table"
"$rwlab" report "$tmp/half.csv" -b pthread 2>/dev/null | grep -q 'ck-rwlock' || fail "report half.csv -b pthread: no table"

# A list item with a blank around it is taken exactly, and the line says the blank is there: beside
# the valid names "' total_rate'" read as total_rate itself (-m 'total_rate, ops_min' for one)
expect_err 2 "^rwlab report: metric ' ops_min' \(with a leading blank\) is not in .*two-variants\.csv \(metrics: " -- \
	"$rwlab" report "$data/two-variants.csv" -m 'total_rate, ops_min'
expect_err 2 "^rwlab report: workload 'locktest ' \(with a trailing blank\) is not in " -- \
	"$rwlab" report "$data/two-variants.csv" -w 'locktest '
expect_err 2 "^rwlab report: baseline ' pthread' \(with a leading blank\) is not in .*two-variants\.csv \(valid: pthread, ck-rwlock\)$" -- \
	"$rwlab" report "$data/two-variants.csv" -b ' pthread'
expect_err 2 "^rwlab report: --by ' host': no column ' host' \(with a leading blank\) in " -- \
	"$rwlab" report "$data/two-variants.csv" --by 'variant, host'
# a count with a leading blank is refused as run's -t refuses it (strtol() skipped the blank: plot -t ' 1'
# drew thread count 1, run -n ' 1' ran one iteration)
expect_err 2 "^rwlab plot: bad value ' 1' \(with a leading blank\) for -t/--threads \(an integer in 1\.\.[0-9]+\)$" -- \
	"$rwlab" plot "$data/two-variants.csv" --fairness -t ' 1' -o "$tmp/blank.png"
expect_err 2 "^rwlab run: bad value ' 1' \(with a leading blank\) for -n/--iterations \(an integer in 1\.\.100000\)$" -- \
	"$rwlab" run -n ' 1' -l pthread -t 1 --list-cells
# a trailing blank was refused too, without saying the blank is there ("bad value '1 '")
expect_err 2 "^rwlab run: bad value '1 ' \(with a trailing blank\) for -n/--iterations \(an integer in 1\.\.100000\)$" -- \
	"$rwlab" run -n '1 ' -l pthread -t 1 --list-cells
# a -m list over 255 characters is read whole (a 256-byte copy cut it inside a name, then refused it)
long=$(awk -F, 'NR > 1 { print $8 }' "$data/two-variants.csv" | sort -u | paste -sd, -)
long="$long,$long,$long"
"$rwlab" report "$data/two-variants.csv" -m "$long" >"$tmp/out" 2>"$tmp/err" && [ -s "$tmp/out" ] ||
	fail "report -m (${#long} characters of valid metrics): $(head -c 300 "$tmp/err")"
# -m's list refuses an empty entry as -w's does ('total_rate,' was taken for total_rate, 'a,,b' for a,b)
for m in 'total_rate,' ',total_rate' 'total_rate,,ops_min' ','; do
	expect_err 2 "^rwlab report: -m: empty entry in metric list '$m' \(a comma with nothing on one side\)$" -- \
		"$rwlab" report "$data/two-variants.csv" -m "$m"
done
expect_err 2 "^rwlab plot: metric ' total_rate' \(with a leading blank\) is not in " -- \
	"$rwlab" plot "$data/two-variants.csv" -m ' total_rate' -w locktest -o "$tmp/x.png"
expect_err 2 "^rwlab plot: workload ' ' \(blanks only\) is not in " -- \
	"$rwlab" plot "$data/two-variants.csv" -w ' ' -o "$tmp/x.png"
expect_err 2 "^rwlab report: metric 'nope' is not in " -- "$rwlab" report "$data/two-variants.csv" -m nope

[ "$fails" = 0 ] && echo "all command-line checks passed"
exit $((fails > 0))
