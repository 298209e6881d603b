#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# An interrupted run says how far it got and how to go on: SIGINT once the
# first cell's rows are in the CSV ends the run with exit 130 and one line,
#   rwlab run: interrupted after N of M cells; they are in FILE; to go on: cd DIR && CMD
# N the cells in the CSV, M the matrix's, DIR the directory the run started
# in, and the command, run as printed from another directory, finishes the
# matrix: every cell once. Also with the default output file (CMD adds
# -o FILE), a -o FILE over 4096 bytes quoted, and for a run that was itself
# a --resume (CMD does not add a second one). --resume of a file that does
# not exist says so and runs every cell. Stopped before any cell ended, it
# wrote nothing: an existing FILE is as it was, a new one not made.
#   usage: interrupt_resume.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1
case $rwlab in /*) ;; *) rwlab=$PWD/$rwlab ;; esac	# it runs in $tmp
rwlab() { "$rwlab" "$@"; }	# the printed command's rwlab

# cells FILE: the cells in a results CSV, one line each
cells() { awk -F, '$8 == "total_rate" { print $4, $5, $6 }' "$1" | sort -u; }
# 12 short cells, one at a time
plan="-l pthread,null,rwsem,rwsem-xadd -w locktest -t 1,2,3 -n 1 -d 150ms --warmup 0 --order sequential --no-report -q"

# interrupt WHAT GLOB ARGS...: rwlab run ARGS in $tmp/run, SIGINT once the file GLOB names there holds
# a row; checks the exit status and the line, sets $file to the CSV's name, $cmd to the command the
# line gives and $go to its words after "cd $tmp/run && rwlab "
interrupt() {
	what=$1 glob=$2
	shift 2
	: >"$tmp/err"
	(cd "$tmp/run" && exec "$rwlab" run "$@" 2>"$tmp/err") &
	pid=$!
	i=0
	file=
	until [ -n "$file" ] && grep -q '^[0-9]' "$tmp/run/$file" || [ $i -ge 600 ]; do
		sleep 0.05
		file=$(cd "$tmp/run" && find . -name "$glob" | sed 's|^\./||')
		i=$((i + 1))
	done
	kill -INT $pid
	wait $pid
	rc=$?
	[ $rc = 130 ] || fail "$what: exit $rc, want 130: $(cat "$tmp/err")"
	n=$(cells "$tmp/run/$file" | wc -l)
	line=$(grep '^rwlab run: interrupted' "$tmp/err")
	[ "$(grep -c '^rwlab run: interrupted' "$tmp/err")" = 1 ] || fail "$what: not one line: $(cat "$tmp/err")"
	go= cmd=
	case $line in
	"rwlab run: interrupted after $n of 12 cells; they are in $file; to go on: cd $tmp/run && rwlab run "*)
		cmd=${line#*; to go on: } go=${line#*; to go on: cd $tmp/run && rwlab } ;;
	*) fail "$what: '$(printf %.300s "$line")', want 'interrupted after $n of 12 cells; they are in $file; to go on: cd $tmp/run && rwlab run ...'" ;;
	esac
	[ "$n" -ge 1 ] && [ "$n" -lt 12 ] || fail "$what: $n of 12 cells in the CSV when interrupted (want some, not all)"
}

# resume WHAT: run $cmd as printed, from another directory ($tmp: a relative -o named a new file
# there); every cell of the matrix once in $file
resume() {
	[ -n "$cmd" ] || return
	(cd "$tmp" && eval "$cmd" >/dev/null 2>"$tmp/resumed.err")
	rc=$?
	[ $rc = 0 ] || fail "$1: '$(printf %.300s "$cmd")' exited $rc: $(tail -n 2 "$tmp/resumed.err")"
	[ "$(cells "$tmp/run/$file" | wc -l)" = 12 ] && [ "$(awk -F, '$8 == "total_rate"' "$tmp/run/$file" | wc -l)" = 12 ] ||
		fail "$1: after '$(printf %.300s "$go")', not the 12 cells once each: $(cells "$tmp/run/$file" | tr '\n' ';')"
}

# -o FILE with a space: the command quotes it, and adds --resume
# shellcheck disable=SC2086
mkdir "$tmp/run"
interrupt "-o FILE" "x y.csv" $plan -o "x y.csv"
case $go in
"run $plan -o 'x y.csv' --resume") ;;
*) fail "-o FILE: to go on '$go', want the command as given with --resume" ;;
esac
resume "-o FILE"

# -o FILE whose quoted form is over 4096 bytes (1100 quotes, each '\'' in the command): the command
# names that file whole, not one cut short at 4096 bytes, where running it put every cell
q=$(printf "%0220d" 0 | tr 0 "'")
mkdir -p "$tmp/run/$q/$q/$q/$q/$q"
# shellcheck disable=SC2086
interrupt "-o FILE of quotes" "x.csv" $plan -o "$q/$q/$q/$q/$q/x.csv"
resume "-o FILE of quotes"

# no -o: the command names the default file; interrupted again under --resume, it adds no second one
# shellcheck disable=SC2086
interrupt "default -o" "rwlab-*.csv" $plan
case $go in
"run $plan -o $file --resume") ;;
*) fail "default -o: to go on '$go', want the command as given with -o $file --resume" ;;
esac
rm -f "$tmp/run/$file"
# shellcheck disable=SC2086
interrupt "--resume" "$file" $plan -o "$file" --resume
[ "$go" = "run $plan -o $file --resume" ] || fail "--resume: to go on '$go', want the command as given"
resume "--resume"

# Failed cells (left out of the file) are counted as failed, not as in the file: the line says how many
# of the cells that ended are there, as many as --resume then keeps (it said all, 4 where 2 were there).
(cd "$tmp/run" && RWLAB_FAULT_INJECT=worker=null exec "$rwlab" run -l pthread,null,rwsem -w locktest -t 1,2 -n 1 \
	-d 400ms --warmup 0 --order sequential --no-report -q -o fi.csv 2>"$tmp/err") &
signal_when INT $! 'cell null locktest t=2 failed' "$tmp/err"
n=$(cells "$tmp/run/fi.csv" | wc -l)
line=$(grep '^rwlab run: interrupted' "$tmp/err")
case $line in
"rwlab run: interrupted after "*" of 6 cells (2 failed: null locktest t=1, null locktest t=2); $n of them are in fi.csv; to go on: "*)
	cmd=${line#*; to go on: } ;;
*) cmd= && fail "failed cells: exit $rc, '$line', want '... (2 failed: ...); $n of them are in fi.csv; ...'" ;;
esac
if [ -n "$cmd" ]; then
	(cd "$tmp" && eval "$cmd" >/dev/null 2>"$tmp/resumed.err")
	grep -q "^rwlab run: resuming fi.csv: $n finished cells kept, $((6 - n)) of this matrix to run$" "$tmp/resumed.err" ||
		fail "failed cells: the line said $n in the file, --resume: $(head -n 1 "$tmp/resumed.err")"
fi

# Stopped before any cell ended (SIGINT, SIGTERM): -o FILE is made with the first rows, so an existing
# one stays byte for byte (no FILE.1, no header-only FILE), a new one is not made, the line says
# nothing was written, and the command it gives runs the same again (no --resume of an old FILE).
early="-l null -w locktest -t 1 -n 1 -d 5s --warmup 0 --no-report"
printf 'measured earlier\n' >"$tmp/run/kept.csv"
cp "$tmp/run/kept.csv" "$tmp/kept.ref"
for sig in INT TERM; do
	case $sig in
	INT) f=kept.csv left=" (left as it was)" ;;
	*) f=fresh.csv left= ;;
	esac
	: >"$tmp/err"
	# shellcheck disable=SC2086
	(cd "$tmp/run" && exec "$rwlab" run $early -o "$f" 2>"$tmp/err") &
	signal_when "$sig" $! '^\[cell 1/1\]' "$tmp/err"
	[ $rc = 130 ] || fail "SIG$sig before a cell ended: exit $rc, want 130: $(cat "$tmp/err")"
	want="rwlab run: interrupted before its 1 cell ended; nothing written to $f$left; to go on: cd $tmp/run && rwlab run $early -o $f"
	[ "$(grep '^rwlab run: interrupted' "$tmp/err")" = "$want" ] ||
		fail "SIG$sig before a cell ended: '$(grep -v '^\[cell' "$tmp/err")', want '$want'"
	[ ! -e "$tmp/run/$f.1" ] || fail "SIG$sig before a cell ended: $f kept as $f.1: $(cat "$tmp/err")"
done
# ... and to stdout, opened at once: the header only went there, and the line says so
: >"$tmp/err"
# shellcheck disable=SC2086
(cd "$tmp/run" && exec "$rwlab" run $early -o - >"$tmp/so" 2>"$tmp/err") &
signal_when INT $! '^\[cell 1/1\]' "$tmp/err"
want="rwlab run: interrupted before its 1 cell ended; only the header went to stdout"
[ $rc = 130 ] && [ "$(grep '^rwlab run: interrupted' "$tmp/err")" = "$want" ] && [ "$(grep -vc '^#' "$tmp/so")" = 1 ] ||
	fail "SIGINT before a cell ended, -o -: exit $rc, '$(grep -v '^\[cell' "$tmp/err")', want '$want'; $(wc -l <"$tmp/so") lines out"
cmp -s "$tmp/run/kept.csv" "$tmp/kept.ref" || fail "SIGINT before a cell ended: kept.csv changed: $(head -c 300 "$tmp/run/kept.csv")"
[ ! -e "$tmp/run/fresh.csv" ] || fail "SIGTERM before a cell ended: made fresh.csv: $(head -c 300 "$tmp/run/fresh.csv")"
# ... but a new FILE is claimed before any cell as an existing one is: a second run writing it is refused
# then, before it runs a cell (it ran its cells, then stopped at the first rows: 'is being written by
# another rwlab run')
: >"$tmp/err"
# shellcheck disable=SC2086
(cd "$tmp/run" && exec "$rwlab" run $early -o race.csv 2>"$tmp/err") &
pid=$!
until grep -q '^\[cell 1/1\]' "$tmp/err" 2>/dev/null; do sleep 0.05; done
"$rwlab" run -l null -w locktest -t 1 -n 1 -d 10ms --warmup 0 -q --no-report -o "$tmp/run/race.csv" 2>"$tmp/err2"
rc2=$?
signal_when INT $pid . "$tmp/err"
[ $rc2 = 2 ] && [ "$(cat "$tmp/err2")" = "rwlab run: '$tmp/run/race.csv' is being written by another rwlab run (it holds the file's lock): let it finish, or give another -o" ] ||
	fail "a second run -o of a new FILE being written: exit $rc2: $(cat "$tmp/err2")"
[ ! -e "$tmp/run/race.csv" ] || fail "SIGINT before a cell ended, a new FILE claimed: race.csv left: $(head -c 300 "$tmp/run/race.csv")"

# --resume of a file that does not exist: one line says so, and every cell runs (a shard's first run)
"$rwlab" run -l null -w locktest -t 1 -n 1 -d 10ms --warmup 0 -q --no-report -o "$tmp/run/new.csv" --resume \
	>/dev/null 2>"$tmp/err" || fail "--resume of a new file: exit $?: $(cat "$tmp/err")"
[ "$(grep -cv WARNING "$tmp/err")" = 1 ] &&	# a busy host's load warning aside
	grep -qxF "rwlab run: --resume: $tmp/run/new.csv does not exist: nothing to resume, every cell runs" "$tmp/err" &&
	[ "$(cells "$tmp/run/new.csv" | wc -l)" = 1 ] || fail "--resume of a new file: '$(cat "$tmp/err")'"

echo "interrupt-resume: $fails failures"
exit $((fails > 0))
