#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# report's and plot's reading of results files and of their options, as each command says it: the
# loader's lines (torn, unfinished and failed cells, uncounted events) begin with the command that
# reads, and name only the options that command takes; a label an option or a matrix names
# (-b, -w, baseline, map.column, map.metric) is read as run writes labels, so its knobs in another
# order or a default spelt out name the same column or workload, and -w is a list as run's -w is.
#   usage: report_options.sh RWLAB DATA-DIR
. "${0%/*}/../lib.sh"
rwlab=$1 data=$2
case $data in /*) ;; *) data=$PWD/$data ;; esac
export RWLAB_GNUPLOT=/bin/true	# plot's script is written; nothing draws it

# csv FILE SETTINGS ROW...: a schema 4 file of one run, its settings field SETTINGS; each ROW
# "VARIANT WORKLOAD ITERATION METRIC VALUE" at 2 threads (a label with commas quoted, as run writes it)
csv() {
	local f=$1 settings=$2 v w it m val
	shift 2
	{
		echo 'schema,run,timestamp,variant,workload,threads,iteration,metric,value,unit,host,better'
		echo "# context,run=R1,pin=compact,cpus=2,cpu_model=Test CPU,kernel=Linux 6.1.0,compiler=gcc 12.2.0,build_type=release,allocator=jemalloc,event_counts=1,git_rev=abc123,settings=$settings,governor=unknown,smt=notsupported,boost=unknown,thp=madvise,cmdline=quiet,isolated=,shard=,plan="
		for r in "$@"; do
			read -r v w it m val <<<"$r"
			case $v in *,*) v="\"$v\"" ;; esac
			case $w in *,*) w="\"$w\"" ;; esac
			case $m in event.* | cell_failed) u=count b=none ;; *) u=op/s b=higher ;; esac
			echo "4,R1,2026-12-01T00:00:00Z,$v,$w,2,$it,$m,$val,$u,testhost,$b"
		done
	} >"$f"
}

# The loader's lines under plot: 'rwlab plot:', and no --include-failed (plot has none).
csv "$tmp/cut.csv" 'd=1s n=2' 'pthread locktest 0 total_rate 100' 'pthread locktest 1 total_rate 110' \
	'rwsem locktest 0 total_rate 120'
csv "$tmp/failed.csv" 'd=1s n=1' 'pthread locktest 0 total_rate 100' 'rwsem locktest 0 total_rate 120' \
	'rwsem locktest 0 cell_failed 1'
csv "$tmp/nz.csv" 'd=1s n=1' 'rwsem-rspin locktest 0 total_rate 100' 'rwsem-rspin locktest 0 event.rwsem_rtrylock 7'
printf '4,R1,2026-12-01T00:00:00Z,pthread,locktest,2' >>"$tmp/failed.csv"
expect "plot of an unfinished last cell" 0 \
	"^rwlab plot: $tmp/cut.csv:5: cell rwsem locktest t=2 is unfinished \(not iterations 0..1 with as many rows each: an interrupted write\): left out$" \
	"$rwlab" plot "$tmp/cut.csv" -o "$tmp/p.svg"
"$rwlab" plot "$tmp/failed.csv" -o "$tmp/p.svg" >"$tmp/o" 2>"$tmp/e"
[ $? = 0 ] && [ "$(wc -l <"$tmp/e")" = 2 ] && ! grep -v '^rwlab plot: ' "$tmp/e" | grep -q . &&
	grep -q "^rwlab plot: $tmp/failed.csv: cell rwsem locktest t=2 failed (a count that must be 0 was not): left out$" "$tmp/e" &&
	grep -q "^rwlab plot: $tmp/failed.csv:6: the last line is incomplete" "$tmp/e" ||
	fail "plot of a failed cell and a torn line: not two 'rwlab plot:' lines naming no option: $(cat "$tmp/e")"
expect "plot of an uncounted event's non-zero rows" 0 '^rwlab plot: note: 1 row of lock events the variant does not count' \
	"$rwlab" plot "$tmp/nz.csv" -o "$tmp/p.svg"
csv "$tmp/dup.csv" 'd=1s n=1' 'pthread locktest 0 total_rate 100' 'pthread locktest 0 total_rate 100'
expect "plot of a row written twice" 1 \
	"^rwlab plot: $tmp/dup.csv:4: the row repeats $tmp/dup.csv:3 \(.*\): a row written twice, which no rwlab run does$" \
	"$rwlab" plot "$tmp/dup.csv" -o "$tmp/p.svg"
# report keeps its own name and options
expect "report of an unfinished last cell" 0 '^rwlab report: .*: left out \(--include-failed compares it\)$' \
	"$rwlab" report "$tmp/cut.csv"

# Labels as run writes them. The file's: rwsem:wspin=0,rsteal=0 and locktest:rpct=80,load=50.
k=rwsem:wspin=0,rsteal=0 w2=locktest:rpct=80,load=50
csv "$tmp/kn.csv" 'd=1s n=1' "pthread locktest 0 total_rate 100" "$k locktest 0 total_rate 120" \
	"pthread $w2 0 total_rate 90" "$k $w2 0 total_rate 95"
# tables TEXT: the table titles of a report, one a line
tables() { grep -o '^[^ ]*: total_rate' | sed 's/: total_rate//' | tr '\n' ' '; }
"$rwlab" report "$tmp/kn.csv" -b rwsem:rsteal=0,wspin=0 >"$tmp/o" 2>"$tmp/e"
[ $? = 0 ] && [ "$(grep -c "change vs $k\$" "$tmp/o")" = 2 ] ||
	fail "report -b with the knobs in another order: not the column: $(cat "$tmp/e" "$tmp/o")"
for w in locktest:rpct=50 locktest:rpct=50,load=100; do
	[ "$("$rwlab" report "$tmp/kn.csv" -w $w 2>&1 | tables)" = "locktest " ] ||
		fail "report -w $w (defaults spelt out): not the locktest table alone: $("$rwlab" report "$tmp/kn.csv" -w $w 2>&1)"
done
for w in $w2 locktest:load=50,rpct=80; do
	[ "$("$rwlab" report "$tmp/kn.csv" -w $w 2>&1 | tables)" = "$w2 " ] ||
		fail "report -w $w (a label of two knobs): not its table alone: $("$rwlab" report "$tmp/kn.csv" -w $w 2>&1)"
done
[ "$("$rwlab" report "$tmp/kn.csv" -w $w2,locktest:rpct=50 2>&1 | tables)" = "locktest $w2 " ] ||
	fail "report -w LABEL,LABEL: not both tables: $("$rwlab" report "$tmp/kn.csv" -w $w2,locktest:rpct=50 2>&1)"
expect "report -w with a label the file lacks" 2 "^rwlab report: workload 'locktest:rpct=90,load=50' is not in " \
	"$rwlab" report "$tmp/kn.csv" -w locktest:rpct=90,load=50
printf 'locks = pthread, rwsem:rsteal=0,wspin=0\nworkloads = locktest\nbaseline = rwsem:rsteal=0,wspin=0\n' >"$tmp/kn.matrix"
"$rwlab" report "$tmp/kn.csv" --matrix "$tmp/kn.matrix" >"$tmp/o" 2>"$tmp/e"
[ $? = 0 ] && [ "$(grep -c "change vs $k\$" "$tmp/o")" = 2 ] ||
	fail "report --matrix with its baseline's knobs in another order: $(cat "$tmp/e" "$tmp/o")"
"$rwlab" plot "$tmp/kn.csv" -w locktest:load=50,rpct=80 -b rwsem:rsteal=0,wspin=0 -o "$tmp/kn.svg" --keep-script \
	>"$tmp/o" 2>&1 || fail "plot -w and -b with the knobs in another order: exit $?: $(cat "$tmp/o")"
[ "$(grep '^# ' "$tmp/kn.svg.dat" 2>/dev/null | head -n 1)" = "# $k" ] ||
	fail "plot -b: the baseline is not drawn first: $(head -n 3 "$tmp/kn.svg.dat")"
# a published table's mapping onto a column whose label the matrix spells otherwise
sed 's/,ck-rwlock,/,"rwsem:wspin=0,rsteal=0",/' "$data/two-variants.csv" >"$tmp/tv.csv"
sed -e 's/^map.column  = new -> ck-rwlock$/map.column  = new -> rwsem:rsteal=0,wspin=0/' \
	-e "s|^reference .*|reference = $data/published.csv|" "$data/fixture.matrix" >"$tmp/tv.matrix"
"$rwlab" report "$tmp/tv.csv" --matrix "$tmp/tv.matrix" >"$tmp/tv.out" 2>&1
grep -A2 '^published: base old' "$tmp/tv.out" >"$tmp/o"
grep -q '^4  .* |       2      100\.0      99\.99 ' "$tmp/o" ||
	fail "report --matrix whose map.column spells the knobs otherwise: no rwlab figures: $(cat "$tmp/o")"

# A baseline the runs recorded (rwlab exec's, settings baseline=NAME) is the default only where every
# run that records one names the same and it is a column; otherwise the first column is, said in one
# note (the first file's decided for all: report b1 e compared with none, report e b1 with passthrough).
csv "$tmp/b1.csv" baseline=none 'rwsem prog1 0 total_rate 90' 'none prog1 0 total_rate 100'
csv "$tmp/b2.csv" baseline=none 'rwsem prog2 0 total_rate 80' 'none prog2 0 total_rate 100'
csv "$tmp/e.csv" baseline=passthrough 'rwsem prog3 0 total_rate 90' 'passthrough prog3 0 total_rate 100'
csv "$tmp/p.csv" baseline=none 'rwsem prog4 0 total_rate 90' 'passthrough prog4 0 total_rate 100'
# vs FILE...: the baselines of the report's tables, one a line
vs() { "$rwlab" report "$@" 2>"$tmp/e" | sed -n 's/.*change vs \([^ ]*\)$/\1/p' | sort -u | tr '\n' ' '; }
[ "$(vs "$tmp/b1.csv")" = "none " ] && [ ! -s "$tmp/e" ] || fail "report b1: not against its recorded none: $(cat "$tmp/e")"
[ "$(vs "$tmp/b1.csv" "$tmp/b2.csv")" = "none " ] && [ ! -s "$tmp/e" ] ||
	fail "report b1 b2 (both none): not against none alone: $(cat "$tmp/e")"
for order in "b1 e" "e b1"; do
	set -- $order
	first=rwsem
	[ "$(vs "$tmp/$1.csv" "$tmp/$2.csv")" = "$first " ] && [ "$(wc -l <"$tmp/e")" = 1 ] &&
		grep -q "^rwlab report: note: the runs recorded different baselines (.*): the changes are against the first column, $first (-b chooses another)$" "$tmp/e" ||
		fail "report $order (none and passthrough recorded): not the first column with one note: $(vs "$tmp/$1.csv" "$tmp/$2.csv") $(cat "$tmp/e")"
done
[ "$(vs "$tmp/p.csv")" = "rwsem " ] && [ "$(wc -l <"$tmp/e")" = 1 ] &&
	grep -q "^rwlab report: note: the runs recorded the baseline (none), not a column here: the changes are against the first column, rwsem" "$tmp/e" ||
	fail "report of a recorded baseline that is no column: not the first column with one note: $(cat "$tmp/e")"
[ "$(vs "$tmp/b1.csv" "$tmp/e.csv" -b passthrough)" = "passthrough " ] && [ ! -s "$tmp/e" ] ||
	fail "report b1 e -b passthrough: not against passthrough alone: $(cat "$tmp/e")"

echo "report_options: $fails failures"
exit $((fails > 0))
