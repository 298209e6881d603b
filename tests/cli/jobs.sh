#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# run -j N: simulated cells in N rwlab-sim processes at once (harness/sim_cell.h).
# - -j 1, -j 2 and -j 3 write the same CSV, byte for byte but the run id and the
#   timestamps, and print the same per-cell lines, for a plan of several variants x
#   thread counts; the progress line counts cells done of all;
# - a failing cell under -j fails loudly (exit 1, named) and the other cells' rows are
#   written, the same as under -j 1; so does a cell whose process is killed (SIGKILL);
#   the run's process killed (SIGKILL) leaves no cell's process running;
# - --resume under -j carries on a file cut inside a cell: the same rows as one run;
#   a run killed (SIGTERM) under -j keeps its finished cells, says how many, and the
#   command it gives to go on (--sim and --resume in it) completes the file;
# - -q is quiet: no progress and no cell's host-time line (the same CSV);
# - bad -j values are refused in one line (exit 2, nothing written); natively -j N > 1
#   says in one line that native cells run one at a time, and runs;
# - tools/reproduce --sim passes -j: -j 1 and -j 2 give the same CSV.
# With "small" (the ThreadSanitizer tree runs suite cli): only -j 1 against -j 3 on a few
# tiny cells and the SIGTERM under -j, to check the parent's process pool there.
# Usage: jobs.sh RWLAB [small]
set -u
rwlab=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") small=${2:-}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

if [ ! -x "$(dirname "$rwlab")/rwlab-sim" ]; then
	echo "no rwlab-sim beside $rwlab: skipped"
	exit 77
fi

# mask FILE: the CSV with the run id and the timestamps (when it ran) replaced
mask() { sed -E 's/^(# context,run=)[^,]*/\1RUN/; s/^([0-9]+),[^,]*,[^,]*,/\1,RUN,TS,/' "$1"; }
# rows FILE: its rows, masked, without the header and context lines
rows() { mask "$1" | grep -v '^#' | tail -n +2; }

if [ -n "$small" ]; then
	plan=(-l rwsem,rwsem-xadd -w locktest:rpct=90 -t 1,2 -d 1ms --warmup 500us -n 1 --no-report)
else
	plan=(-l rwsem,rwsem-xadd,bravo -w locktest:rpct=90 -t 1,3,6 -d 3ms --warmup 1ms -n 2 --no-report)
fi
ncells=$(( ${#small} ? 4 : 9 ))

# -j 1, 2, 3: the same CSV and the same per-cell lines
for j in 1 2 3; do
	[ -n "$small" ] && [ $j = 2 ] && continue
	"$rwlab" run --sim generic-8 "${plan[@]}" -j $j -o j$j.csv >j$j.out 2>j$j.err ||
		fail "-j $j: exit $?: $(tail -2 j$j.err)"
	mask j$j.csv >j$j.masked
done
[ "$(rows j1.csv | cut -d, -f4,6 | sort -u | wc -l)" = $ncells ] ||
	fail "-j 1 wrote $(rows j1.csv | cut -d, -f4,6 | sort -u | wc -l) cells, not $ncells"
for j in 2 3; do
	[ -f j$j.masked ] || continue
	cmp -s j1.masked j$j.masked || fail "-j $j wrote another CSV than -j 1: $(diff j1.masked j$j.masked | head -3)"
	cmp -s j1.out j$j.out || fail "-j $j printed other per-cell lines than -j 1: $(diff j1.out j$j.out | head -3)"
done
[ "$(wc -l <j1.out)" = $ncells ] || fail "-j 1 printed $(wc -l <j1.out) per-cell lines, not $ncells"
grep -q "^\[cells $ncells/$ncells done, 0 running\]" j3.err ||
	fail "-j 3: no progress line counting $ncells cells done: $(grep -m2 cells j3.err)"
# -q: quiet, the cells' own processes too (each printed its host-time line before); without -q they do
grep -q 'of host time$' j1.err || fail "-j 1 without -q: no cell's host-time line: $(head -2 j1.err)"
"$rwlab" run --sim generic-8 "${plan[@]}" -j 3 -q -o q.csv >q.out 2>q.err || fail "-j 3 -q: exit $?: $(tail -2 q.err)"
! grep -q 'host time\|cells' q.err q.out || fail "-j 3 -q is not quiet: $(grep 'host time\|cells' q.err q.out | head -2)"
mask q.csv | cmp -s - j1.masked || fail "-j 3 -q wrote another CSV than -j 1"

# A run killed with SIGTERM under -j 2 (the signal to the run's process alone reaches its
# cells): exit 130, finished cells kept whole, and --resume completes the file. The small
# plan's t=1 cells end long before its t=8 ones, so the kill lands while two run: a t=8 cell
# took 0.22 s of host time at 400 ms in the plain tree; in a sanitizer tree (RWLAB_TEST_SANITIZED)
# 100 ms take longer still (0.28 s under ASan, 2.5 s under TSan, against 9 s at 400 ms there).
long=(-l rwsem,rwsem-xadd,bravo -w locktest:rpct=90 -t 4,6,8 -d 100ms --warmup 1ms -n 2 --no-report -q)
[ -n "$small" ] && long=(-l rwsem,rwsem-xadd -w locktest:rpct=90 -t 1,8 -d "$([ -n "${RWLAB_TEST_SANITIZED:-}" ] && echo 100 || echo 400)ms"
	--warmup 1ms -n 1 --no-report -q)
total=$(( ${#small} ? 4 : 9 ))
[ -n "$small" ] || "$rwlab" run --sim generic-8 "${long[@]}" -j 1 -o whole.csv >/dev/null 2>whole.err ||
	fail "the long plan: $(tail -2 whole.err)"
"$rwlab" run --sim generic-8 "${long[@]}" -j 2 -o killed.csv >/dev/null 2>killed.err &
pid=$!
for _ in $(seq 3000); do	# until the first cell is written (at most 60 s)
	grep -q '^[0-9]' killed.csv 2>/dev/null && break
	sleep 0.02
done
kill -TERM $pid
wait $pid
st=$?
[ $st = 130 ] || fail "SIGTERM under -j 2: exit $st, not 130: $(tail -2 killed.err)"
[ "$(grep -c 'interrupted' killed.err)" = 1 ] || fail "SIGTERM under -j 2: not one line: $(grep interrupted killed.err)"
kept=$(rows killed.csv | cut -d, -f4,6 | sort -u | wc -l)
[ "$kept" -ge 1 ] && [ "$kept" -lt "$total" ] || fail "SIGTERM under -j 2 kept $kept of $total cells (want some, not all)"
# the line counts the cells written and gives the command that goes on: the run's own, --sim (which
# the run's process did not get) in it, with --resume; run as printed, it completes the file
go="rwlab run --sim generic-8 ${long[*]} -j 2 -o killed.csv --resume"
grep -qxF "rwlab run: interrupted after $kept of $total cells; they are in killed.csv; to go on: cd $tmp && $go" killed.err ||
	fail "SIGTERM under -j 2: $(tail -1 killed.err)"
# shellcheck disable=SC2086
"$rwlab" ${go#rwlab } >/dev/null 2>resumed.err || fail "--resume -j 2 after SIGTERM: exit $?: $(tail -2 resumed.err)"
grep -q "^rwlab run: resuming killed.csv: $kept finished cells kept, $((total - kept)) of this matrix to run" resumed.err ||
	fail "--resume -j 2 after SIGTERM: $(head -1 resumed.err)"
# --resume once more finds every cell whole, each once (it refuses a cell twice), nothing to run
"$rwlab" run --sim generic-8 "${long[@]}" -j 2 -o killed.csv --resume >/dev/null 2>again.err
grep -q "^rwlab run: resuming killed.csv: $total finished cells kept, 0 of this matrix to run" again.err ||
	fail "--resume -j 2 after SIGTERM: not $total whole cells: $(head -1 again.err)"
rows whole.csv 2>/dev/null | sort >whole.rows
if [ -z "$small" ]; then	# each cell's rows those of one uninterrupted run
	rows killed.csv | sort >resumed.rows
	cmp -s resumed.rows whole.rows || fail "--resume -j 2 after SIGTERM: not the rows of one run: $(diff whole.rows resumed.rows | head -3)"
fi

if [ -n "$small" ]; then
	[ $fails = 0 ] && echo "run -j (small): the same CSV under -j 1 and -j 3; SIGTERM keeps finished cells, --resume completes"
	exit $((fails > 0))
fi

# A failing cell under -j 3: named, exit 1, every other cell written as under -j 1
RWLAB_FAULT_INJECT=prepare=rwsem-xadd "$rwlab" run --sim generic-8 "${plan[@]}" -j 3 -q -o failed.csv >/dev/null 2>failed.err
st=$?
[ $st = 1 ] || fail "a failing cell under -j 3: exit $st, not 1"
grep -q '^rwlab run: 3 of 9 cells failed (left out of failed.csv, or marked cell_failed there): rwsem-xadd locktest:rpct=90 t=1, rwsem-xadd locktest:rpct=90 t=3, rwsem-xadd locktest:rpct=90 t=6$' failed.err ||
	fail "a failing cell under -j 3 is not named: $(tail -2 failed.err)"
grep -q 'failed: prepare: Input/output error' failed.err || fail "a failing cell under -j 3 does not say why: $(head -3 failed.err)"
grep -q 'cells failed (left out of -' failed.err && fail "a failing cell's own process sums up its pipe: $(grep 'left out of -' failed.err | head -1)"
rows j1.csv | grep -v ',rwsem-xadd,' >others.rows
rows failed.csv >failed.rows
cmp -s others.rows failed.rows || fail "a failing cell under -j 3: the other cells' rows differ from -j 1's: $(diff others.rows failed.rows | head -3)"

# A cell's process killed halfway through writing its rows (RWLAB_FAULT_INJECT=killed_mid_rows): the
# signal is the reason given (not the torn rows it left), and none of its rows are kept
RWLAB_FAULT_INJECT=killed_mid_rows=rwsem-xadd "$rwlab" run --sim generic-8 -l rwsem,rwsem-xadd -w locktest:rpct=90 \
	-t 1 -n 1 -d 10ms --warmup 0 -j 2 -q --no-report -o torn.csv >/dev/null 2>torn.err
st=$?
[ $st = 1 ] && grep -qx 'rwlab run: cell rwsem-xadd locktest:rpct=90 t=1 failed: its rwlab-sim was killed by signal 9 (Killed)' torn.err &&
	[ "$(rows torn.csv | grep -c ',rwsem-xadd,')" = 0 ] && [ "$(rows torn.csv | grep -c ',rwsem,')" -gt 0 ] ||
	fail "a cell killed while writing its rows: exit $st: $(grep -v WARNING torn.err | head -2)"

# A cell's process killed (SIGKILL: it cannot say why) under -j 2: named with the signal, exit 1,
# the other 8 cells written as in one uninterrupted run
"$rwlab" run --sim generic-8 "${long[@]}" -j 2 -o crashed.csv >/dev/null 2>crashed.err &
pid=$!
killed=
for _ in $(seq 3000); do	# until one cell's process is killed while it runs (at most 60 s)
	child=$(pgrep -P $pid | head -1)	# it may end before the kill lands: then the next one
	# Stopped first, so that it cannot end between the check and the kill: kill(2) succeeds on a
	# zombie, and a cell that had just ended would not fail (the run then exited 0). A process
	# that ended before the stop is a zombie ('Z', not 'T'): let it be and try the next one.
	if [ -n "$child" ] && kill -STOP "$child" 2>/dev/null; then
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			state=$(cut -d' ' -f3 /proc/$child/stat 2>/dev/null)
			[ "$state" = T ] || [ "$state" = Z ] || [ -z "$state" ] && break
			sleep 0.01
		done
		if [ "$state" = T ]; then
			kill -KILL "$child" && killed=$child && break
		fi
		kill -CONT "$child" 2>/dev/null
	fi
	kill -0 $pid 2>/dev/null || break
	sleep 0.02
done
[ -n "$killed" ] || fail "a cell's process killed under -j 2: no cell's process could be killed while the run went on"
wait $pid
st=$?
cell=$(sed -n 's/^rwlab run: cell \([^ ]*\) locktest:rpct=90 t=\([0-9]*\) failed: its rwlab-sim was killed by signal 9 (Killed)$/\1,\2/p' crashed.err)
[ $st = 1 ] && [ -n "$cell" ] || fail "a cell's process killed under -j 2: exit $st: $(grep -v 'host time' crashed.err | head -2)"
rows crashed.csv | sort >crashed.rows
awk -F, -v c="$cell" '$4 "," $6 != c' whole.rows >others.rows
[ -n "$cell" ] && cmp -s others.rows crashed.rows ||
	fail "a cell's process killed under -j 2: the other cells' rows are not one run's: $(diff others.rows crashed.rows | head -3)"

# The run's process killed (SIGKILL: it cannot stop its cells) under -j 2: its cells' processes
# end with it (parent-death signal), none runs its cell on to the end (these take seconds)
"$rwlab" run --sim generic-8 -l rwsem,rwsem-xadd -w locktest:rpct=90 -t 8 -d 3s --warmup 1ms -n 1 --seed 7391 \
	--no-report -q -o orphan.csv >/dev/null 2>orphan.err &
pid=$!
for _ in $(seq 3000); do	# until both cells' processes run (at most 60 s)
	[ "$(pgrep -P $pid | wc -l)" = 2 ] && break
	sleep 0.02
done
kill -KILL $pid
wait $pid 2>/dev/null
for _ in $(seq 100); do	# at most 2 s
	pgrep -f -- '--seed 7391 ' >/dev/null || break
	sleep 0.02
done
pgrep -af -- '--seed 7391 ' && fail "the run's process killed under -j 2: its cells' processes run on"

# --resume under -j 3 of a file cut inside the fourth cell: the rows of one run, in its order
n4=$(awk -F, '/^[0-9]/ && !(($4 "," $6) in seen) { seen[$4 "," $6]; n++ } n == 4 { print NR; exit }' j1.csv)
head -n $((n4 + 5)) j1.csv >cut.csv
printf '4,20261202T000000-1,2026-12-02T00:00:00Z,rwsem-x' >>cut.csv	# and a torn line
"$rwlab" run --sim generic-8 "${plan[@]}" -j 3 -q -o cut.csv --resume >/dev/null 2>cut.err || fail "--resume -j 3: exit $?: $(tail -2 cut.err)"
grep -q 'resuming cut.csv: 3 finished cells kept, 6 of this matrix to run' cut.err || fail "--resume -j 3: $(head -2 cut.err)"
rows cut.csv >cut.rows
rows j1.csv >j1.rows
cmp -s j1.rows cut.rows || fail "--resume -j 3: not the rows of one run, in its order: $(diff j1.rows cut.rows | head -3)"

# Bad -j values: one line, exit 2, nothing written
for v in 0 -1 abc 99999; do
	"$rwlab" run --sim generic-8 "${plan[@]}" -j "$v" -o bad.csv >bad.out 2>bad.err
	st=$?
	[ $st = 2 ] && [ "$(cat bad.err)" = "rwlab run: bad value '$v' for -j/--jobs (an integer in 1..1024)" ] && [ ! -e bad.csv ] ||
		fail "-j $v: exit $st, $(wc -l <bad.err) lines: $(head -2 bad.err)"
done
# Natively -j stays 1 and says so in one line
"$rwlab" run -l pthread -w locktest -t 1 -d 10ms --warmup 0 -n 1 -q --no-report -j 4 -o native.csv >/dev/null 2>native.err ||
	fail "native -j 4: exit $?: $(head -2 native.err)"
[ "$(grep -c -- '-j' native.err)" = 1 ] && grep -q '^rwlab run: WARNING: -j 4: native cells run one at a time, .*; running -j 1' native.err ||
	fail "native -j 4: no one line saying cells run one at a time: $(head -2 native.err)"
grep -q ',pthread,locktest,1,0,' native.csv || fail "native -j 4 did not run"

# tools/reproduce --sim passes -j (its default nproc): -j 1 and -j 2 give the same CSV. pft's
# region cut to 16 MiB (-w after the matrix replaces its workloads; --mm-lock still makes two
# cells of each): pft faults every page whatever -d says, and the simulated default (256 MiB)
# made this part half of the test's time; four cells still let -j 2 run two at once.
for j in 1 2; do
	RWLAB_RESULTS_DIR=$tmp/r$j "$root/tools/reproduce" per-vma-locks --sim generic-8 -j $j --no-plots --rwlab "$rwlab" \
		-- -n 1 -t 1,4 -d 2ms -w pft:size_mb=16 -q >r$j.out 2>r$j.err || fail "reproduce --sim -j $j: $(tail -2 r$j.err)"
	dir=$(find "$tmp/r$j/sim" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | head -1)
	mask "$dir/per-vma-locks.csv" >r$j.masked 2>/dev/null
	grep -q "^command: .* run --sim generic-8 -j $j " "$dir/per-vma-locks.context.txt" 2>/dev/null ||
		fail "reproduce --sim -j $j: the command recorded has no -j $j"
done
[ -s r1.masked ] && cmp -s r1.masked r2.masked || fail "reproduce --sim: -j 1 and -j 2 wrote other CSVs: $(diff r1.masked r2.masked | head -3)"
"$root/tools/reproduce" per-vma-locks -j 2 --rwlab "$rwlab" >/dev/null 2>rn.err && fail "reproduce -j without --sim ran"
grep -q '^reproduce: -j runs simulated cells at once, with --sim only' rn.err || fail "reproduce -j without --sim: $(head -2 rn.err)"

[ $fails = 0 ] && echo "run -j: the same CSV under -j 1, 2 and 3; failure, --resume, SIGTERM, bad values, native, reproduce"
exit $((fails > 0))
