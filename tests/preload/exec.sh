#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rwlab exec: interleaved runs, rusage and --metric rows (with their units),
# the preload's rows merged in, the no-preload baseline column, a failing
# command reported; programs it cannot interpose refused before any run; the
# recursive-read note once; a creation site named from the program's own
# symbols; and the preload's own bad input.
#   exec.sh RWLAB PRELOAD OSSL_DRIVER SITE_PROGRAM AT_ONCE_PROGRAM FORK_PROGRAM [STATIC_SITE_PROGRAM]
set -u
rwlab=$(realpath "$1") preload=$(realpath "$2") driver=$(realpath "$3") site=$(realpath "$4")
at_once=$(realpath "$5") forks=$(realpath "$6") static=${7:+$(realpath "$7")}
# A sanitizer build's preload needs its runtime first in LD_PRELOAD, from its ldd line.
rt=$(ldd "$preload" 2>/dev/null | awk '/lib[at]san\.so/ {print $3; exit}')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
die() { echo "FAIL: $*"; fail=1; }
col() {	# col METRIC: "variant value" per row of METRIC, in file order
	awk -F, -v m="$1" '$8 == m {print $4, $9}' "$tmp/x.csv"
}

RWLAB_PRELOAD=$preload "$rwlab" exec -l passthrough,rwsem -n 2 -t 2 -q \
	--metric 'digests/s:higher=digests/s: ([0-9.]+)' --metric 'digests: ([0-9]+)' \
	-o "$tmp/x.csv" -- "$driver" 2 500 >"$tmp/out" 2>"$tmp/err" || { die "exit $?"; cat "$tmp/err"; }
[ "$(col wall_s | cut -d' ' -f1 | tr '\n' ' ')" = "passthrough rwsem passthrough rwsem " ] ||
	die "wall_s rows not interleaved: $(col wall_s | tr '\n' ' ')"
[ "$(col metric2 | cut -d' ' -f2 | sort -u)" = 1000 ] || die "metric2 (digests) rows: $(col metric2 | tr '\n' ' ')"
[ "$(col digests/s | wc -l)" = 4 ] || die "digests/s rows: $(col digests/s | wc -l), want 4"
col preload.acquisitions | while read -r v n; do
	[ "${n%.*}" -ge 1000 ] || echo "FAIL: $v: preload.acquisitions $n below the 1000 fetches"
done | grep FAIL && fail=1
awk -F, '$8 == "threads" || ($8 == "wall_s" && $6 != 2) {bad = 1} END {exit bad}' "$tmp/x.csv" ||
	die "threads column is not 2"
grep -q 'digests/s' "$tmp/out" || die "no table with digests/s on stdout"
"$rwlab" report "$tmp/x.csv" -m preload.contended >/dev/null || die "report cannot read the CSV"

# Without -t the threads column is the preload's measure, the most threads that used locks at once
# (it was 1, -t's default): 3 threads that hold a read lock together are 3 threads in every row,
# none's too; -t N still sets it; with none alone nothing measures: 1, and a note says so.
RWLAB_PRELOAD=$preload "$rwlab" exec -l none,rwsem,passthrough -n 2 -q --no-report -o "$tmp/t.csv" -- "$at_once" 3 \
	>/dev/null 2>"$tmp/err" || die "at_once 3: exit $?: $(cat "$tmp/err")"
[ "$(awk -F, '$1 == 4 {print $4 "," $6}' "$tmp/t.csv" | sort -u | tr '\n' ' ')" = "none,3 passthrough,3 rwsem,3 " ] ||
	die "at_once 3 without -t: variant,threads $(awk -F, '$1 == 4 {print $4 "," $6}' "$tmp/t.csv" | sort -u | tr '\n' ' ')"
# A forked child's thread is counted once: main forks before any lock, the child takes one, the parent
# none: 1 thread on every variant (it was 2: the child started at 1 and counted its thread again).
RWLAB_PRELOAD=$preload "$rwlab" exec -l passthrough,rwsem -n 1 -q --no-report -o "$tmp/fork.csv" -- "$forks" \
	>/dev/null 2>"$tmp/err" || die "fork: exit $?: $(cat "$tmp/err")"
[ "$(awk -F, '$1 == 4 {print $4 "," $6}' "$tmp/fork.csv" | sort -u | tr '\n' ' ')" = "passthrough,1 rwsem,1 " ] ||
	die "fork without -t: variant,threads $(awk -F, '$1 == 4 {print $4 "," $6}' "$tmp/fork.csv" | sort -u | tr '\n' ' ')"
RWLAB_PRELOAD=$preload "$rwlab" exec -l none,rwsem -n 1 -t 5 -q --no-report -o "$tmp/t5.csv" -- "$at_once" 3 \
	>/dev/null 2>&1 || die "at_once 3 -t 5: exit $?"
[ "$(awk -F, '$1 == 4 {print $6}' "$tmp/t5.csv" | sort -u)" = 5 ] || die "-t 5 is not the threads column"
"$rwlab" exec -l none -n 1 --no-report -o "$tmp/t1.csv" -- "$at_once" 3 >/dev/null 2>"$tmp/err" || die "none alone: exit $?"
[ "$(awk -F, '$1 == 4 {print $6}' "$tmp/t1.csv" | sort -u)" = 1 ] &&
	grep -q "^rwlab exec: note: no run of the first round measured .*: the threads column is 1; -t N sets it$" "$tmp/err" ||
	die "none alone: threads $(awk -F, '$1 == 4 {print $6}' "$tmp/t1.csv" | sort -u), $(cat "$tmp/err")"

# Interrupted (SIGTERM to exec alone, passed on to CMD; or Ctrl-C) within the first round, whose rows
# wait for the threads column: the finished runs are written with the threads measured so far, the run
# in progress is not, and exec exits 130 with the count (it died with every row of the round lost).
# term_after VARIANT OUT EXEC_ARGS...: rwlab exec EXEC_ARGS in the background (stdout to OUT, stderr to
# $tmp/err) on 3 threads that hold a read lock together, then 0.5 s more; SIGTERM once VARIANT's first
# run has ended; $rc is exec's exit status
term_after() {
	v=$1 out=$2
	shift 2
	RWLAB_PRELOAD=$preload "$rwlab" exec "$@" --force --no-report -- sh -c "\"$at_once\" 3 && sleep 0.5" \
		>"$out" 2>"$tmp/err" &
	pid=$!
	for _ in $(seq 200); do
		grep -q "$v  *iteration 0: wall" "$tmp/err" && break
		sleep 0.05
	done
	kill -TERM $pid
	wait $pid
	rc=$?
}
term_after rwsem /dev/null -l rwsem,passthrough,none -n 2 -o "$tmp/i.csv"
runs=$(awk -F, '$1 == 4 && $8 == "wall_s" {print $4 "/" $7}' "$tmp/i.csv" | sort -u | wc -l)
[ $rc = 130 ] && [ "$runs" -ge 1 ] && [ "$runs" -lt 6 ] ||
	die "SIGTERM: exit $rc (want 130), $runs runs written: $(tail -2 "$tmp/err")"
grep -q "^rwlab exec: interrupted after $runs of 6 runs; they are in $tmp/i.csv (the run in progress is not)$" "$tmp/err" ||
	die "SIGTERM: no 'interrupted after $runs of 6 runs' line: $(tail -2 "$tmp/err")"
[ "$(awk -F, '$1 == 4 {print $6}' "$tmp/i.csv" | sort -u)" = 3 ] ||
	die "SIGTERM: the held rows' threads column is $(awk -F, '$1 == 4 {print $6}' "$tmp/i.csv" | sort -u | tr '\n' ' ')"

# Interrupted after none's run alone, to stdout: the held rows' threads column is 1 and the note says
# why, as after a whole round (it was left out on this path), and the line says where the rows went as
# run's does (it said 'they are in -').
term_after none "$tmp/s.csv" -l none,rwsem -n 1 -o -
[ $rc = 130 ] && [ "$(awk -F, '$1 == 4 {print $4 "," $6}' "$tmp/s.csv" | sort -u)" = "none,1" ] ||
	die "SIGTERM after none alone: exit $rc, variant,threads $(awk -F, '$1 == 4 {print $4 "," $6}' "$tmp/s.csv" | sort -u)"
grep -q "^rwlab exec: note: no run of the first round measured .*: the threads column is 1; -t N sets it$" "$tmp/err" ||
	die "SIGTERM after none alone: no note on the threads column: $(cat "$tmp/err")"
grep -q "^rwlab exec: interrupted after 1 of 2 runs; they went to stdout (the run in progress did not)$" "$tmp/err" ||
	die "SIGTERM, -o -: $(tail -n 1 "$tmp/err")"

# Interrupted before any run ended (SIGINT or SIGTERM to exec alone, passed on to CMD): an existing -o
# FILE is left as it was and nothing is written (it was kept as FILE.1 and FILE had the header alone),
# one line says so in run's words, exit 130 (its Ctrl-C line).
# sleeper LOCKS CSV: exec -l LOCKS -o CSV in the background (its pid in $pid) of a command that makes
# $tmp/mark, then sleeps; back once the command has started
sleeper() {
	rm -f "$tmp/mark"
	RWLAB_PRELOAD=$preload "$rwlab" exec -l "$1" -n 1 --force -q --no-report -o "$2" -- \
		sh -c ': >"$0"; exec sleep 10' "$tmp/mark" >/dev/null 2>"$tmp/err" &
	pid=$!
	for _ in $(seq 200); do
		[ -e "$tmp/mark" ] && break
		sleep 0.05
	done
}
for sig in INT TERM; do
	rm -f "$tmp/kept.csv"*
	echo 'measured earlier' >"$tmp/kept.csv"
	sleeper rwsem,none "$tmp/kept.csv"
	kill -$sig $pid
	wait $pid
	rc=$?
	[ $rc = 130 ] && [ "$(cat "$tmp/kept.csv")" = 'measured earlier' ] && [ ! -e "$tmp/kept.csv.1" ] &&
		[ "$(cat "$tmp/err")" = "rwlab exec: interrupted before any of its 2 runs ended; nothing written to $tmp/kept.csv (left as it was)" ] ||
		die "SIG$sig before a run ended: exit $rc, $(ls "$tmp" | grep kept | tr '\n' ' '), $(cat "$tmp/err")"
done

# -o FILE where there is none is claimed before any run as an existing one is: a second exec writing
# it is refused then, its CMD not run (it ran, and was refused at its first rows: 'stopped at rwsem,
# iteration 0, which is not written'), and an -o that cannot be made is refused before any run;
# stopped before a run ended, exec leaves no FILE.
rm -f "$tmp/new.csv"* "$tmp/second"
sleeper rwsem "$tmp/new.csv"
RWLAB_PRELOAD=$preload "$rwlab" exec -l rwsem -n 1 --force -q --no-report -o "$tmp/new.csv" -- \
	sh -c ': >"$0"' "$tmp/second" >/dev/null 2>"$tmp/err2"
rc=$?
[ $rc = 2 ] && [ ! -e "$tmp/second" ] &&
	[ "$(cat "$tmp/err2")" = "rwlab exec: '$tmp/new.csv' is being written by another rwlab run (it holds the file's lock): let it finish, or give another -o" ] ||
	die "a second exec -o of a new FILE being written: exit $rc, its CMD $([ -e "$tmp/second" ] || echo 'not ')run: $(cat "$tmp/err2")"
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] && [ ! -e "$tmp/new.csv" ] &&
	[ "$(cat "$tmp/err")" = "rwlab exec: interrupted before its 1 run ended; nothing written to $tmp/new.csv" ] ||
	die "SIGINT before a run ended, a new -o: exit $rc, $(ls "$tmp" | grep new | tr '\n' ' '), $(cat "$tmp/err")"
rm -f "$tmp/second"
RWLAB_PRELOAD=$preload "$rwlab" exec -l rwsem -n 1 --force -q --no-report -o '' -- sh -c ': >"$0"' "$tmp/second" \
	>/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && [ ! -e "$tmp/second" ] && [ "$(cat "$tmp/err")" = "rwlab exec: cannot write results to '': No such file or directory" ] ||
	die "exec -o '': exit $rc, its CMD $([ -e "$tmp/second" ] || echo 'not ')run: $(cat "$tmp/err")"

# -l all: every variant with exclusion, not null, whose runs corrupted the program's data (and the
# preload blamed the program for the misuse), named in one line as run does; -l null alone: nothing to run.
# (under the sanitizers a list without ck-*: ThreadSanitizer cannot see ck_pr's atomics and reports races)
all=all
[ -n "${RWLAB_TEST_SANITIZED:-}" ] && all=pthread,rwsem,null
RWLAB_PRELOAD=$preload "$rwlab" exec -l $all -n 1 -t 2 -q --no-report -o "$tmp/all.csv" -- "$driver" 2 20 \
	>/dev/null 2>"$tmp/err" || die "-l $all: exit $?: $(cat "$tmp/err")"
[ "$(cat "$tmp/err")" = "rwlab exec: null left out: a variant that claims no exclusion would corrupt the data the program's locks protect" ] ||
	die "-l all: stderr $(cat "$tmp/err")"
awk -F, '$8 == "wall_s" {print $4}' "$tmp/all.csv" >"$tmp/ran"
grep -qx rwsem "$tmp/ran" && ! grep -qx null "$tmp/ran" && ! grep -qx busted "$tmp/ran" ||
	die "-l all ran $(tr '\n' ' ' <"$tmp/ran")"
RWLAB_PRELOAD=$preload "$rwlab" exec -l null -n 1 -o "$tmp/null.csv" -- "$driver" 2 20 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/out" ] && [ ! -e "$tmp/null.csv" ] &&
	[ "$(cat "$tmp/err")" = "rwlab exec: nothing to run: null left out: a variant that claims no exclusion would corrupt the data the program's locks protect" ] ||
	die "-l null: exit $rc, $(cat "$tmp/err")"

# busted named: left out too (it claims exclusion and breaks it: a program under it spun for ever)
RWLAB_PRELOAD=$preload "$rwlab" exec -l busted -n 1 -o "$tmp/busted.csv" -- "$driver" 2 20 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && [ ! -e "$tmp/busted.csv" ] &&
	[ "$(cat "$tmp/err")" = "rwlab exec: nothing to run: busted left out: a variant that claims no exclusion would corrupt the data the program's locks protect (busted claims it and breaks it: torture's negative control)" ] ||
	die "-l busted: exit $rc, $(cat "$tmp/err")"

# CMD found through an empty PATH entry (the current directory, as execvp takes it; it tried /CMD),
# and a program set-user-ID to another user (the loader ignores LD_PRELOAD for it: refused, not measured)
mkdir -p "$tmp/pathdir"
printf '#!/bin/sh\nexit 0\n' >"$tmp/pathdir/rwlab-here"
chmod +x "$tmp/pathdir/rwlab-here"
for p in ":/usr/bin:/bin" "/usr/bin:/bin:" "/usr/bin::/bin"; do
	(cd "$tmp/pathdir" && PATH=$p RWLAB_PRELOAD=$preload "$rwlab" exec -l none -n 1 --force -q --no-report \
		-o "$tmp/here.csv" -- rwlab-here >/dev/null 2>"$tmp/err") || die "PATH=$p: exit $?: $(cat "$tmp/err")"
	rm -f "$tmp/here.csv"
done
cp /bin/true "$tmp/suid"
if [ "$(id -u)" = 0 ] && chown nobody "$tmp/suid" && chmod u+s "$tmp/suid"; then
	RWLAB_PRELOAD=$preload "$rwlab" exec -l rwsem,none -n 1 -o "$tmp/suid.csv" -- "$tmp/suid" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && [ ! -e "$tmp/suid.csv" ] && grep -q "^rwlab exec: cannot run '$tmp/suid' under the preload: it is set-user-ID or set-group-ID to another user" "$tmp/err" ||
		die "set-user-ID CMD: exit $rc, $(cat "$tmp/err")"
else
	echo "(not root: the set-user-ID refusal is not checked here)"
fi

# -q --no-report: nothing on stdout, nor on stderr but errors and warnings ('results in FILE' was printed).
RWLAB_PRELOAD=$preload "$rwlab" exec -l rwsem -n 1 -t 2 -q --no-report -o "$tmp/q.csv" -- "$driver" 2 100 \
	>"$tmp/out" 2>"$tmp/err" || die "-q --no-report: exit $?"
[ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ] || die "-q --no-report printed: $(cat "$tmp/out" "$tmp/err")"

# The unit of a --metric: NAME's by default, or NAME:UNIT's.
grep -q ',digests/s,[0-9.e+]*,digests/s,[^,]*,higher$' "$tmp/x.csv" || die "digests/s rows without their unit"
grep -q ',metric2,[0-9.e+]*,value,[^,]*,none$' "$tmp/x.csv" || die "an unnamed --metric without the unit 'value'"

# none: the program without the preload, the baseline column; the recursive-read note once.
RWLAB_PRELOAD=$preload "$rwlab" exec -l none,rwsem,rwsem-xadd,bravo -n 1 -t 2 \
	--metric 'rate:digests/s:higher=digests/s: ([0-9.]+)' -o "$tmp/n.csv" -- "$driver" 2 200 >"$tmp/out" 2>"$tmp/err" ||
	{ die "-l none,...: exit $?"; cat "$tmp/err"; }
awk -F, '$4 == "none" && $8 ~ /^preload\./ { bad = 1 } END { exit bad }' "$tmp/n.csv" || die "none has preload rows"
grep -q '^4,[^,]*,[^,]*,none,.*,rate,[0-9.e+]*,digests/s,[^,]*,higher$' "$tmp/n.csv" || die "none: no rate row in digests/s"
grep -q 'rate (digests/s, higher is better).*change vs none' "$tmp/out" || die "the table's baseline is not none: $(grep 'rate' "$tmp/out")"
[ "$(grep -c 'note: .* would deadlock a recursive read' "$tmp/err")" = 1 ] ||
	die "recursive-read note $(grep -c 'note: .* would deadlock' "$tmp/err") times, want once"
grep -q 'note: rwsem, rwsem-xadd, bravo would deadlock a recursive read' "$tmp/err" ||
	die "the note does not name the variants: $(grep 'note:' "$tmp/err")"

# The baseline is none wherever it is in -l, in exec's table and in report's of the same file (report
# took the file's first column, passthrough): exec records it, report takes it; -b still chooses.
RWLAB_PRELOAD=$preload "$rwlab" exec -l passthrough,none -n 1 -t 2 -q -o "$tmp/b.csv" -- "$driver" 2 100 \
	>"$tmp/out" 2>"$tmp/err" || die "-l passthrough,none: exit $?: $(cat "$tmp/err")"
"$rwlab" report "$tmp/b.csv" -m wall_s >"$tmp/rep" 2>"$tmp/err" || die "report of -l passthrough,none: exit $?"
for f in out rep; do
	[ "$(grep -c 'wall_s (s, lower is better)' "$tmp/$f")" = 1 ] && grep -A1 'wall_s (s, lower is better)' "$tmp/$f" |
		grep -q 'gain vs none' || die "$f: the wall_s table is not against none: $(grep -A1 wall_s "$tmp/$f" | head -2)"
done
"$rwlab" report "$tmp/b.csv" -b passthrough -m wall_s | grep -q 'gain vs passthrough' || die "report -b passthrough"

# Programs the preload cannot act on: one line, exit 2, nothing run (no CSV).
RWLAB_PRELOAD=$preload "$rwlab" exec -l rwsem -n 1 -o "$tmp/r.csv" -- sh -c 'echo ran' >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] && [ ! -e "$tmp/r.csv" ] ||
	{ die "sh (no pthread_rwlock import): exit $rc"; cat "$tmp/err"; }
grep -q "^rwlab exec: 'sh' imports no pthread_rwlock_\* function, nor do the [0-9]* libraries it loads" "$tmp/err" ||
	die "sh refused without saying why: $(cat "$tmp/err")"
if [ -n "$static" ]; then
	RWLAB_PRELOAD=$preload "$rwlab" exec -l rwsem -n 1 -o "$tmp/r.csv" -- "$static" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] && [ ! -e "$tmp/r.csv" ] ||
		{ die "a static program: exit $rc"; cat "$tmp/err"; }
	grep -q "^rwlab exec: '$(basename "$static")' is statically linked" "$tmp/err" ||
		die "a static program refused without saying why: $(cat "$tmp/err")"
else
	echo "(no static program in a sanitizer build: that refusal is not checked here)"
fi
# A CMD execvp cannot run: one line naming why, exit 2, nothing run (a directory ran every run with
# exit 127, wrote its CSV and printed a table).
mkdir "$tmp/dir"
: >"$tmp/plain"
chmod 644 "$tmp/plain"
for c in "$tmp/dir|a directory, not a program" "$tmp/plain|no execute permission (chmod +x it" \
	"/dev/null|not a regular file, so not a program" "$tmp/nosuch|not an executable file (nor in PATH)"; do
	RWLAB_PRELOAD=$preload "$rwlab" exec -l rwsem -n 1 --force -o "$tmp/r.csv" -- "${c%%|*}" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] && [ ! -e "$tmp/r.csv" ] &&
		grep -qF "rwlab exec: cannot run '${c%%|*}': ${c#*|}" "$tmp/err" ||
		die "CMD ${c%%|*}: exit $rc, $(wc -l <"$tmp/err") lines, $(head -2 "$tmp/err")"
	rm -f "$tmp/r.csv"
done

# --force runs it anyway, and says when no run took a pthread_rwlock.
RWLAB_PRELOAD=$preload "$rwlab" exec -l rwsem -n 1 --force -q --no-report -o "$tmp/r.csv" -- sh -c 'exit 0' \
	>/dev/null 2>"$tmp/err" || die "--force: exit $?: $(cat "$tmp/err")"
grep -q "^rwlab exec: WARNING: \(no run of 'sh' left preload statistics\|'sh' took no pthread_rwlock in any run\)" "$tmp/err" ||
	die "--force on sh: no note that the variants cannot differ: $(cat "$tmp/err")"

# The rwlock user outlives the run (a child CMD left running, its statistics written at its exit, after
# the run's file is gone): the warning names that cause too (it named _exit and signals alone).
RWLAB_PRELOAD=$preload "$rwlab" exec -l rwsem -n 1 --force -q --no-report -o "$tmp/outlived.csv" -- \
	sh -c '(sleep 0.3; exec "$0" 2) >/dev/null 2>&1 & exit 0' "$at_once" >/dev/null 2>"$tmp/err" ||
	die "a child outliving the run: exit $?: $(cat "$tmp/err")"
[ "$(cat "$tmp/err")" = "rwlab exec: WARNING: no run of 'sh' left preload statistics (each left through _exit or a signal, or outlived the run in a child it left running): the table has no preload.* rows" ] ||
	die "a child outliving the run: $(cat "$tmp/err")"

# A lock made in a static function: named from the program's .symtab, as perf would.
LD_PRELOAD=${rt:+$rt:}$preload RWLAB_LOCK=rwsem "$site" >/dev/null 2>"$tmp/err" || die "site program: exit $?: $(head -3 "$tmp/err")"
grep -q '^  make_lock+0x[0-9a-f]*<main+0x' "$tmp/err" || die "creation site not named make_lock: $(grep -A2 hottest "$tmp/err")"

# Its rows hold the lock events the variant counts, those that stayed 0 too, and no other's.
LD_PRELOAD=${rt:+$rt:}$preload RWLAB_LOCK=rwsem RWLAB_CSV="$tmp/site.csv" RWLAB_QUIET=1 "$site" >/dev/null 2>&1 ||
	die "site program with RWLAB_CSV: exit $?"
want=$("$rwlab" list --verbose | sed -n '/^  rwsem  /,/lock events:/s/^      lock events: //p' | tr -d ' ' | tr ',' '\n' | sort)
got=$(awk -F, '$8 ~ /^event\./ { sub(/^event\./, "", $8); print $8 }' "$tmp/site.csv" | sort)
[ -n "$want" ] && [ "$got" = "$want" ] || die "RWLAB_CSV's event rows for rwsem: $(echo $got), want $(echo $want)"

# A failing command: exit 1, its status in the CSV, and its run marked cell_failed as run marks a failed
# cell, so the table leaves the variant out and names it (its wall_s was compared, starred).
RWLAB_PRELOAD=$preload "$rwlab" exec -l rwsem -n 1 -q --no-report --force -o "$tmp/f.csv" -- sh -c 'exit 3' \
	>/dev/null 2>"$tmp/err"
[ $? = 1 ] || die "a failing command did not make exec exit 1"
grep -q ',exit_status,3,' "$tmp/f.csv" || die "no exit_status 3 row"
grep -q ',rwsem,.*,cell_failed,1,count,' "$tmp/f.csv" || die "a failed run not marked cell_failed: $(cat "$tmp/f.csv")"
# rwsem exits 3, passthrough is killed by a signal, none exits 0: none alone in the table.
RWLAB_PRELOAD=$preload "$rwlab" exec -l none,rwsem,passthrough -n 2 -q --force -w fails -o "$tmp/f2.csv" -- \
	sh -c 'case "$RWLAB_LOCK" in rwsem) exit 3 ;; passthrough) kill -KILL $$ ;; esac' >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] || die "runs that failed on two variants: exit $rc"
[ "$(grep -c ',cell_failed,1,' "$tmp/f2.csv")" = 4 ] || die "want 4 cell_failed rows: $(grep -c cell_failed "$tmp/f2.csv")"
for v in rwsem passthrough; do
	grep -q "^rwlab exec: $tmp/f2.csv: cell $v fails t=1 failed (a run's exit_status was not 0): left out" "$tmp/err" ||
		die "$v's failed runs not named: $(grep -v exited "$tmp/err")"
done
grep -q '^ *none$' "$tmp/out" && ! grep -q 'rwsem\|passthrough' "$tmp/out" ||
	die "the table has a failed variant: $(grep -A2 wall_s "$tmp/out")"
# Every variant failed: no table, one line says so; rwlab report --include-failed compares them.
RWLAB_PRELOAD=$preload "$rwlab" exec -l none,rwsem -n 2 -q --force -o "$tmp/f3.csv" -- sh -c 'echo rate: 5; exit 3' \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && [ ! -s "$tmp/out" ] && [ "$(grep -c '^rwlab report' "$tmp/err")" = 0 ] &&
	grep -qxF "rwlab exec: no table: every variant had a failed run, which tables leave out (rwlab report --include-failed $tmp/f3.csv compares them)" "$tmp/err" ||
	die "every run failed: exit $rc, stdout $(wc -l <"$tmp/out") lines, $(grep -v 'exited\|^rate' "$tmp/err")"
"$rwlab" report "$tmp/f3.csv" --include-failed -m wall_s 2>/dev/null | grep -q 'none  *rwsem' ||
	die "report --include-failed leaves the failed runs out"

# A --metric that matched in no run: one WARNING naming it and its regex, the table of the others,
# exit 0 with the table or without (the table was refused: nothing on stdout, exit 1).
for r in "" --no-report; do
	RWLAB_PRELOAD=$preload "$rwlab" exec -l rwsem -n 2 -t 2 -q $r --metric 'x=nomatch ([0-9]+)' \
		--metric 'digests: ([0-9]+)' -o "$tmp/m$r.csv" -- "$driver" 2 20 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 0 ] && [ "$(grep -c WARNING "$tmp/err")" = 1 ] &&
		grep -qxF "rwlab exec: WARNING: --metric x never matched the output of '$driver' (regex 'nomatch ([0-9]+)'): it has no rows, nor a table" "$tmp/err" ||
		die "--metric x never matched ${r:-with the table}: exit $rc, $(grep -v 'no match for' "$tmp/err")"
	[ -z "$r" ] || continue
	grep -q ': metric2 (value' "$tmp/out" && grep -q ': wall_s (s' "$tmp/out" ||
		die "--metric x never matched: the other tables missing: $(head -5 "$tmp/out")"
done

# Options end at CMD (no --): CMD's own -n and --metric go to CMD, not to exec.
RWLAB_PRELOAD=$preload "$rwlab" exec -l rwsem -n 1 -q --no-report --force -o "$tmp/o.csv" sh -c 'echo "$0 $1"' -n --metric \
	>/dev/null 2>"$tmp/err" || { die "CMD's own options were taken by exec"; cat "$tmp/err"; }
grep -q ',exit_status,0,' "$tmp/o.csv" || die "CMD with its own options: no exit_status 0 row"

# The preload's bad input: one line, exit 2, the program not run.
for spec in nosuch percpu-rwsem 'rwsem:nosuch=1'; do
	LD_PRELOAD=${rt:+$rt:}$preload RWLAB_LOCK=$spec sh -c 'echo ran' >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] ||
		{ die "RWLAB_LOCK=$spec: exit $rc"; cat "$tmp/err"; }
	grep -q '^rwlab-preload: ' "$tmp/err" || die "RWLAB_LOCK=$spec: message without the rwlab-preload: prefix"
done

# The valid names the preload's and exec's messages list are exactly the ones each takes: the
# preload passthrough and the variants with both trylocks (not all, not percpu-rwsem), exec -l
# those and all and none. "valid: a, b, c)" of FILE's first line, one a line, sorted:
valid() { sed -n '1s/.*(valid: \(.*\))$/\1/p' "$1" | tr -d ' ' | tr ',' '\n' | sort; }
names="all passthrough none nosuch $("$rwlab" list --names | sed -n 's/^variant //p')"
: >"$tmp/pre.ok"
: >"$tmp/exec.ok"
for v in $names; do
	LD_PRELOAD=${rt:+$rt:}$preload RWLAB_LOCK=$v RWLAB_QUIET=1 sh -c 'echo ran' >"$tmp/out" 2>/dev/null &&
		grep -qx ran "$tmp/out" && echo "$v" >>"$tmp/pre.ok"
	"$rwlab" exec -l "$v" >/dev/null 2>"$tmp/err"	# no command: said once -l is taken
	grep -q '^rwlab exec: no command to run' "$tmp/err" && echo "$v" >>"$tmp/exec.ok"
done
LD_PRELOAD=${rt:+$rt:}$preload RWLAB_LOCK=all sh -c 'echo ran' >/dev/null 2>"$tmp/err"
[ "$(valid "$tmp/err")" = "$(sort "$tmp/pre.ok")" ] ||
	die "RWLAB_LOCK=all: the valid names are not what the preload takes ($(sort "$tmp/pre.ok" | tr '\n' ' ')): $(cat "$tmp/err")"
"$rwlab" exec -l nosuch -- true >/dev/null 2>"$tmp/err"
[ "$(valid "$tmp/err")" = "$(sort "$tmp/exec.ok")" ] ||
	die "exec -l nosuch: the valid names are not what -l takes ($(sort "$tmp/exec.ok" | tr '\n' ' ')): $(cat "$tmp/err")"
grep -qx busted "$tmp/pre.ok" && grep -qx passthrough "$tmp/pre.ok" && ! grep -qx percpu-rwsem "$tmp/pre.ok" ||
	die "the preload takes $(sort "$tmp/pre.ok" | tr '\n' ' ')"

# A process that outlives its run (sleep in the background) leaves no statistics file in $TMPDIR: exec
# removes the run's file when the command ends, and the late process's exit re-created it (one per run).
mkdir "$tmp/late"
TMPDIR=$tmp/late RWLAB_PRELOAD=$preload "$rwlab" exec -l rwsem -n 2 --force -q --no-report -o "$tmp/late.csv" -- \
	sh -c 'sleep 0.3 >/dev/null 2>&1 & echo hi' >/dev/null 2>"$tmp/err" || die "late process: exit $?: $(cat "$tmp/err")"
sleep 1
[ -z "$(ls -A "$tmp/late")" ] || die "a process that outlived its run left $(ls -A "$tmp/late" | tr '\n' ' ')in \$TMPDIR"
# -o that cannot take more rows (a file size limit, as a full disk): one line naming where it stopped,
# no run after it, exit 1 (it went on run after run, each saying it could not write, and exited 0)
(trap '' XFSZ; ulimit -f 8; RWLAB_PRELOAD=$preload exec "$rwlab" exec -l none,pthread -n 40 --force -q --no-report \
	-o "$tmp/full.csv" -- true >/dev/null 2>"$tmp/err")
st=$?
[ $st = 1 ] && [ "$(grep -c 'cannot write' "$tmp/err")" = 1 ] &&
	grep -q "^rwlab exec: cannot write $tmp/full.csv: File too large; stopped at [a-z]*, iteration [0-9]*, which is not written (nor any after)$" "$tmp/err" ||
	die "-o over a file size limit: exit $st: $(grep -v WARNING "$tmp/err" | head -3)"
exit $fail
