#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Streams: `run -o -` writes the CSV, and only the CSV, to
# stdout; `run -o /dev/null` or a FIFO is written as it is (no table read
# back, --resume refused; a reader that stalls or quits ends the run in one line);
# `report -` reads it from stdin (and a FIFO or /dev/stdin); report pools several CSVs of one
# host and refuses one cell from two hosts unless --by has host.
#   usage: streams.sh RWLAB DATA-DIR
. "${0%/*}/../lib.sh"
rwlab=$1 data=$2
case $rwlab in /*) ;; *) rwlab=$PWD/$rwlab ;; esac
run="$rwlab run -l pthread,null -w locktest -t 1 -n 2 -d 10ms --warmup 0"

(cd "$tmp" && $run -o - >"$tmp/out.csv" 2>"$tmp/err") || fail "run -o - exited $?"
head -n 1 "$tmp/out.csv" | grep -q '^schema,run,' || fail "stdout does not start with the CSV header"
[ "$(grep -vc '^4,\|^# context,' "$tmp/out.csv")" = 1 ] || fail "stdout holds lines that are not CSV rows or the run's context"
[ "$(grep -c '^# context,' "$tmp/out.csv")" = 1 ] || fail "stdout does not hold the run's context line once"
[ "$(ls "$tmp" | grep -c '^rwlab-.*\.csv$')" = 0 ] || fail "run -o - also wrote a file"
grep -q 'total_rate' "$tmp/err" || fail "the per-cell lines did not go to stderr"
"$rwlab" report - <"$tmp/out.csv" >"$tmp/rep" 2>&1 || fail "report - exited $?"
grep -q 'pthread' "$tmp/rep" && grep -q 'null' "$tmp/rep" || fail "report - did not tabulate both variants"
# A FIFO and /dev/stdin on a pipe are read once too, though report reads its inputs more than once
# (--by's header check, merge's shard checks, the load): the FIFO's second open waited for a
# writer for ever, and /dev/stdin's read as an empty file.
mkfifo "$tmp/rfifo"
cat "$tmp/out.csv" >"$tmp/rfifo" &
timeout 20 "$rwlab" report "$tmp/rfifo" --by variant >"$tmp/rep" 2>&1
rc=$?
[ $rc = 0 ] && grep -q 'pthread' "$tmp/rep" && grep -q 'null' "$tmp/rep" ||
	fail "report FIFO: exit $rc (124: it hung opening the FIFO again): $(head -c 300 "$tmp/rep")"
kill $! 2>/dev/null
cat "$tmp/out.csv" | timeout 20 "$rwlab" report /dev/stdin >"$tmp/rep" 2>&1
rc=$?
[ $rc = 0 ] && grep -q 'pthread' "$tmp/rep" && grep -q 'null' "$tmp/rep" ||
	fail "report /dev/stdin from a pipe: exit $rc: $(head -c 300 "$tmp/rep")"

# -o /dev/null (a device): the run goes on and exits 0, with no table read back from it; --resume is refused.
mkfifo "$tmp/fifo" && timeout 60 cat "$tmp/fifo" >"$tmp/fifo.csv" &
(cd "$tmp" && $run -o /dev/null >"$tmp/dn" 2>&1) || fail "run -o /dev/null exited $?: $(cat "$tmp/dn")"
grep -q 'total_rate' "$tmp/dn" || fail "run -o /dev/null printed no per-cell line"
grep -q 'empty file' "$tmp/dn" && fail "run -o /dev/null read the table back from the device: $(cat "$tmp/dn")"
(cd "$tmp" && $run -q -o "$tmp/fifo" >"$tmp/ff" 2>&1) || fail "run -o FIFO exited $?: $(cat "$tmp/ff")"
wait
grep -q '^4,.*,pthread,locktest,1,1,total_rate,' "$tmp/fifo.csv" && grep -q '^4,.*,null,locktest,1,1,total_rate,' "$tmp/fifo.csv" ||
	fail "the FIFO did not carry both variants' rows: $(head -c 300 "$tmp/fifo.csv")"
# A FIFO with no reader is refused at once; one whose reader stalls (the pipe fills) still ends on Ctrl-C.
mkfifo "$tmp/noreader" "$tmp/stall"
$run -o "$tmp/noreader" >"$tmp/nr" 2>&1
[ $? = 2 ] || fail "run -o FIFO without a reader did not exit 2"
grep -q "a FIFO with no reader" "$tmp/nr" || fail "run -o FIFO without a reader: $(cat "$tmp/nr")"
# proc_state PID: where a process that did not stop is (its state, wait channel, signal masks,
# kernel stack where readable) and the same for its children, for the failure line
proc_state() {
	local p
	for p in $1 $(pgrep -P "$1"); do
		printf '[pid %s %s wchan=%s %s' "$p" "$(tr -d '\0' </proc/$p/comm 2>/dev/null)" \
			"$(cat /proc/$p/wchan 2>/dev/null)" \
			"$(grep -E '^(State|SigPnd|ShdPnd|SigBlk|SigIgn|SigCgt):' /proc/$p/status 2>/dev/null | tr -s '\t\n' '  ')"
		printf 'stack: %s] ' "$(head -n 6 /proc/$p/stack 2>/dev/null | tr '\n' ' ')"
	done
}
# interrupt_after SECS WHAT CMD...: CMD in the background, SIGINT after SECS, killed if it is still
# there 20 s later; its exit status in $stopped, its output in $tmp/st
interrupt_after() {
	local secs=$1 what=$2 pid k=0
	shift 2
	"$@" >"$tmp/st" 2>&1 &
	pid=$!
	sleep "$secs"
	kill -INT $pid
	while kill -0 $pid 2>/dev/null && [ $k -lt 100 ]; do sleep 0.2; k=$((k + 1)); done
	if kill -0 $pid 2>/dev/null; then
		fail "$what ignored SIGINT for 20 s: $(proc_state $pid)"
		kill -KILL $pid
	fi
	wait $pid
	stopped=$?
}
timeout 60 sleep 60 <"$tmp/stall" &
reader=$!
interrupt_after 3 "run -o FIFO with a stalled reader" \
	"$rwlab" run -l pthread,null -w locktest -t 1,2 -n 200 -d 1ms --warmup 0 -q -o "$tmp/stall"
[ $stopped = 130 ] || fail "run -o FIFO with a stalled reader, SIGINT: exit status not 130: $(tail -n 2 "$tmp/st")"
# ... saying so in one line, not a "cell ... failed: writing FIFO: Interrupted system call" per open cell
grep -q 'failed' "$tmp/st" && fail "run -o FIFO with a stalled reader, SIGINT: a cell failed: $(cat "$tmp/st")"
[ "$(grep -vc '^WARNING: ' "$tmp/st")" = 1 ] && grep -q '^rwlab run: interrupted' "$tmp/st" ||
	fail "run -o FIFO with a stalled reader, SIGINT: not one line saying it was interrupted: $(cat "$tmp/st")"
kill $reader 2>/dev/null
# ... and a FIFO already full when the run opens it (a reader that never read, another writer
# before): the header waits for room, and Ctrl-C ends that wait too (it was made before the
# run's SIGINT handler and stop flag existed: a shell's background job, which ignores SIGINT,
# then ignored it for good).
mkfifo "$tmp/full"
timeout 60 sleep 60 <"$tmp/full" &
reader=$!
timeout 60 head -c 100000 /dev/zero >"$tmp/full" &
filler=$!
sleep 0.5
interrupt_after 1 "run -o FIFO already full" "$rwlab" run -l null -w locktest -t 1 -n 1 -d 1ms --warmup 0 -q \
	-o "$tmp/full"
[ $stopped = 130 ] && [ "$(grep -vc '^WARNING: ' "$tmp/st")" = 1 ] && grep -q '^rwlab run: interrupted' "$tmp/st" ||
	fail "run -o FIFO already full, SIGINT: not exit 130 with one line: exit $stopped: $(cat "$tmp/st")"
kill $filler $reader 2>/dev/null
# ... and under --sim, whose cell loop blocks SIGINT and SIGTERM outside its wait (the stalled
# write waited on with them blocked: SIGINT ignored until the reader went). A FIFO of its own: the
# one above may still be held, full, by a reader that has not died yet.
mkfifo "$tmp/stall2"
if [ -x "$(dirname "$rwlab")/rwlab-sim" ]; then
	timeout 60 sleep 60 <"$tmp/stall2" &
	reader=$!
	interrupt_after 5 "run --sim -o FIFO with a stalled reader" \
		"$rwlab" run --sim generic-8 -l rwsem,null -w locktest -t 1,2 -n 50 -d 1ms --warmup 0 -q -o "$tmp/stall2"
	[ $stopped = 130 ] && grep -q '^rwlab run: interrupted' "$tmp/st" ||
		fail "run --sim -o FIFO with a stalled reader, SIGINT: not exit 130 with one line: $(cat "$tmp/st")"
	kill $reader 2>/dev/null
fi
# The same with -o - into a pipe that stalls: stdout's file description is blocking (it was a
# write() blocked in the kernel: SIGINT waited for the reader, then exit 1, "reader went away").
( "$rwlab" run -l pthread,null -w locktest -t 1,2 -n 200 -d 1ms --warmup 0 -q -o - 2>"$tmp/so" &
  echo $! >"$tmp/spid"; wait $!; echo $? >"$tmp/src" ) | timeout 60 sleep 60 &
reader=$! k=0
sleep 3
kill -INT "$(cat "$tmp/spid")"
while [ ! -s "$tmp/src" ] && [ $k -lt 100 ]; do sleep 0.2; k=$((k + 1)); done
[ -s "$tmp/src" ] || { fail "run -o - into a stalled pipe ignored SIGINT for 20 s"; kill -KILL "$(cat "$tmp/spid")"; }
[ "$(cat "$tmp/src")" = 130 ] && grep -q '^rwlab run: interrupted' "$tmp/so" ||
	fail "run -o - into a stalled pipe, SIGINT: exit $(cat "$tmp/src"), want 130: $(cat "$tmp/so")"
kill $reader 2>/dev/null
# A FIFO whose reader quits mid-run: one line naming the FIFO and its reader, exit 1 (it was
# SIGPIPE: exit 141, nothing said); what the reader read is whole, from the header on.
mkfifo "$tmp/quit"
head -n 3 <"$tmp/quit" >"$tmp/quit.csv" &
reader=$!
sleep 0.5	# the reader waits in open(): a FIFO with no reader is refused
"$rwlab" run -l pthread,null -w locktest -t 1,2 -n 2 -d 100ms --warmup 0 -q -o "$tmp/quit" >"$tmp/qo" 2>"$tmp/qe"
rc=$?
wait $reader
[ $rc = 1 ] || fail "run -o FIFO whose reader quit: exit status $rc, want 1: $(cat "$tmp/qe")"
[ "$(grep -vc '^WARNING: ' "$tmp/qe")" = 1 ] && grep -q "^rwlab run: .*$tmp/quit.*reader went away" "$tmp/qe" ||
	fail "run -o FIFO whose reader quit: not one line naming the FIFO and its reader: $(cat "$tmp/qe")"
head -n 1 "$tmp/quit.csv" | grep -q '^schema,run,' && [ "$(wc -l <"$tmp/quit.csv")" = 3 ] ||
	fail "run -o FIFO whose reader quit: the reader did not get the header and the rows: $(head -c 300 "$tmp/quit.csv")"
# ... and one that quit before the header (`-o - | true`) too: exit 1 and one line (it was exit 2,
# "cannot write results to '-': Broken pipe", a usage error's status).
( sleep 0.5; "$rwlab" run -l null -w locktest -t 1 -n 1 -d 1ms --warmup 0 -q -o - 2>"$tmp/te"; echo $? >"$tmp/trc" ) | true
wait
[ "$(cat "$tmp/trc")" = 1 ] && [ "$(grep -vc '^WARNING: ' "$tmp/te")" = 1 ] && grep -q '^rwlab run: stdout: its reader went away' "$tmp/te" ||
	fail "run -o - | true: exit status $(cat "$tmp/trc"), want 1 and one line: $(cat "$tmp/te")"
# rwlab exec writes a FIFO or stdout so too: no table read back from it (it waited forever in
# open() on the FIFO; read stdin for -o -, exit 1), and a reader that quits ends it in one line.
mkfifo "$tmp/efifo" "$tmp/equit"
cat <"$tmp/efifo" >"$tmp/efifo.csv" &
reader=$!
sleep 0.5
timeout 20 "$rwlab" exec -l none,rwsem -n 1 -q --force -o "$tmp/efifo" -- true >"$tmp/eo" 2>&1
rc=$?
wait $reader
[ $rc = 0 ] || fail "exec -o FIFO: exit status $rc, want 0 (124: it hung reading the FIFO back): $(cat "$tmp/eo")"
grep -q '^4,.*,rwsem,true,' "$tmp/efifo.csv" || fail "exec -o FIFO: the reader got no rows: $(head -c 300 "$tmp/efifo.csv")"
timeout 20 "$rwlab" exec -l none,rwsem -n 1 -q --force -o - -- true >"$tmp/eo" 2>"$tmp/ee"
[ $? = 0 ] && ! grep -q 'rwlab report' "$tmp/ee" || fail "exec -o -: read a table back from stdin: $(cat "$tmp/ee")"
head -n 2 <"$tmp/equit" >/dev/null &
reader=$!
sleep 0.5
timeout 20 "$rwlab" exec -l none,rwsem -n 3 -q --force -o "$tmp/equit" -- sleep 0.2 >"$tmp/eo" 2>&1
rc=$?
wait $reader
[ $rc = 1 ] && [ "$(wc -l <"$tmp/eo")" = 1 ] && grep -q "^rwlab exec: FIFO $tmp/equit: its reader went away" "$tmp/eo" ||
	fail "exec -o FIFO whose reader quit: exit status $rc, want 1 and one line: $(cat "$tmp/eo")"
# bench and bench-lazy -o -: stdout is the CSV alone (their tables go to stderr), so it pipes into report.
"$rwlab" bench -l rwsem,null --pairs 1000 -n 1 -o - 2>"$tmp/be" | "$rwlab" report - >"$tmp/bo" 2>&1 ||
	fail "bench -o - | report -: exit status $?: $(cat "$tmp/bo")"
grep -q 'read_pair_ns' "$tmp/bo" && grep -q '^variant ' "$tmp/be" ||
	fail "bench -o -: no report of its CSV, or its table not on stderr: $(cat "$tmp/bo" "$tmp/be")"
"$rwlab" bench-lazy -m refcount --round-trips 200 --switches 1000 -n 1 -o - 2>"$tmp/be" | "$rwlab" report - >"$tmp/bo" 2>&1 ||
	fail "bench-lazy -o - | report -: exit status $?: $(cat "$tmp/bo")"
grep -q 'round_trip_ns' "$tmp/bo" && grep -q '^lazy-mm cost at one pair' "$tmp/be" ||
	fail "bench-lazy -o -: no report of its CSV, or its table not on stderr: $(cat "$tmp/bo" "$tmp/be")"
$run -o /dev/null --resume >"$tmp/dr" 2>&1
[ $? = 2 ] || fail "run -o /dev/null --resume did not exit 2"
grep -q "device or pipe" "$tmp/dr" || fail "the --resume refusal does not say why: $(cat "$tmp/dr")"

# Two files of one host pool; a third from another host is refused, and taken with --by.
$run -q --no-report -o "$tmp/a.csv" 2>/dev/null || fail "run a"
$run -q --no-report -o "$tmp/b.csv" 2>/dev/null || fail "run b"
"$rwlab" report "$tmp/a.csv" "$tmp/b.csv" -f csv >"$tmp/ab" 2>&1 || fail "report a b exited $?: $(cat "$tmp/ab")"
"$rwlab" report "$data/good.csv" "$data/other-host.csv" >"$tmp/gh" 2>&1
[ $? = 1 ] || fail "report of one cell from two hosts did not exit 1"
grep -q "measured on hosts 'host' and 'host2'" "$tmp/gh" || fail "the refusal does not name the hosts: $(cat "$tmp/gh")"
"$rwlab" report "$data/good.csv" "$data/other-host.csv" --by variant,host >"$tmp/gh" 2>&1 ||
	fail "report --by variant,host exited $?"
grep -q "host2" "$tmp/gh" || fail "--by variant,host does not show host2"
echo "streams: $fails failures"
exit $((fails > 0))
