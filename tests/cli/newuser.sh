#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The rough edges a new user met, one check per item: what the
# user typed, and what must come back now. Native runs are tiny (-d 10ms);
# the simulated ones take a few host milliseconds.
# Usage: newuser.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1
case $rwlab in /*) ;; *) rwlab=$PWD/$rwlab ;; esac
cd "$tmp" || exit 1
tiny=(-n 1 -d 10ms --warmup 0)

# 1. One thread limit, the real one, at parse time, native and simulated alike.
expect "-t 1024 natively" 2 "^rwlab run: bad thread list '1024': .*counts 1\.\.1023\)$" \
	"$rwlab" run -l rwsem,null -w locktest -t 1024 "${tiny[@]}" -o t.csv
[ -e t.csv ] && fail "-t 1024: a CSV was started"
expect "-t 1024 under --sim" 2 "^rwlab run: bad thread list '1024': .*counts 1\.\.1023\)$" \
	"$rwlab" run --sim generic-8 -l rwsem -w locktest -t 1024 "${tiny[@]}" -o t.csv
expect "context_switch pairs" 2 "^rwlab run: -t 256: context_switch runs at most 255 pairs .*\(valid: 1\.\.255\)$" \
	"$rwlab" run -w context_switch -m refcount -t 2,256 "${tiny[@]}" -o t.csv
expect "context_switch pairs under --sim" 2 "^rwlab run: -t 256: context_switch runs at most 255 pairs" \
	"$rwlab" run --sim generic-8 -w context_switch -m refcount -t 256 "${tiny[@]}" -o t.csv
expect "tlb_flush" 2 "^rwlab run: -t 512: tlb_flush runs at most 511 threads" \
	"$rwlab" run -w tlb_flush -m refcount -t 512 "${tiny[@]}" -o t.csv
# none where an mm is released under load: refused with the plan, naming --unsafe (its cell failed,
# exit 1, the results file made); --unsafe runs it
for sim in "" "--sim generic-8"; do
	expect "-m none with recreate_hz=100${sim:+ under $sim}" 2 \
		"^rwlab run: context_switch:recreate_hz=100: none keeps no lazy mm alive: .*\(give --unsafe to run it anyway" \
		"$rwlab" run $sim -w context_switch:recreate_hz=100 -m none -t 1 "${tiny[@]}" -o unsafe.csv
	[ -e unsafe.csv ] && fail "-m none with recreate_hz=100${sim:+ under $sim}: unsafe.csv made" && rm -f unsafe.csv
done
"$rwlab" run -w context_switch:recreate_hz=100 -m none --unsafe -t 1 --list-cells >/dev/null 2>"$tmp/e" ||
	fail "-m none with recreate_hz=100 --unsafe: $(cat "$tmp/e")"
# ... and the limit is real: the largest counts run (natively and simulated).
"$rwlab" run -l rwsem -w locktest -t 1023 "${tiny[@]}" -q --no-report -o n1023.csv 2>"$tmp/e" ||
	fail "locktest -t 1023 natively: $(tail -n 2 "$tmp/e")"
"$rwlab" run --sim generic-8 -l rwsem -w locktest -t 1023 -n 1 -d 100us --warmup 0 -q --no-report \
	-o s1023.csv 2>"$tmp/e" || fail "locktest -t 1023 under --sim: $(tail -n 2 "$tmp/e")"
"$rwlab" run -w tlb_flush -m refcount -t 511 "${tiny[@]}" -q --no-report -o tf511.csv 2>"$tmp/e" ||
	fail "tlb_flush -t 511 natively: $(tail -n 2 "$tmp/e")"
"$rwlab" run -w context_switch -m refcount -t 255 "${tiny[@]}" -q --no-report -o cs255.csv 2>"$tmp/e" ||
	fail "context_switch -t 255 natively: $(tail -n 2 "$tmp/e")"

# 2. A simulated run's per-cell line names its machine.
"$rwlab" run --sim generic-8 -l rwsem -t 2 -n 2 -d 100us --warmup 0 -o sim.csv >"$tmp/o" 2>"$tmp/e" ||
	fail "--sim run: $(tail -n 2 "$tmp/e")"
grep -Eq '^rwsem +locktest +t=2 .*  \[sim generic-8\]' "$tmp/o" || fail "per-cell line without [sim generic-8]: $(head -n 3 "$tmp/o")"

# Noise: one load-average warning for the first loaded cell, one count at the end.
RWLAB_FAULT_INJECT=loadavg "$rwlab" run -l rwsem,null -t 1,2 "${tiny[@]}" -q --no-report -o load.csv 2>"$tmp/e"
[ "$(grep -c 'WARNING: load average' "$tmp/e")" = 1 ] || fail "load warnings: $(grep -c 'WARNING: load average' "$tmp/e"), want 1"
grep -q '^WARNING: 4 of the 4 cells started with the load average above' "$tmp/e" ||
	fail "no end-of-run count of loaded cells: $(cat "$tmp/e")"
# Noise: the load is held against the CPUs as printed: 2.004 on 2 CPUs is no warning (it read
# "load average 2.00 above the 2 CPUs"), 2.006 is "2.01 above" (RWLAB_FAULT_LOADAVG, N.00x on N CPUs).
ncpu=$(sed -n 's/^# context,.*,cpus=\([0-9]*\),.*/\1/p' load.csv | head -n 1)
[ -n "$ncpu" ] || fail "load.csv: no cpus in its context"
RWLAB_FAULT_INJECT=loadavg RWLAB_FAULT_LOADAVG=$ncpu.004 "$rwlab" run -l rwsem -t 1 "${tiny[@]}" -q --no-report \
	-o l4.csv 2>"$tmp/e" || fail "run at load $ncpu.004: $(cat "$tmp/e")"
grep 'load average' "$tmp/e" && fail "load $ncpu.004 on $ncpu CPUs warned (above)"
RWLAB_FAULT_INJECT=loadavg RWLAB_FAULT_LOADAVG=$ncpu.006 "$rwlab" run -l rwsem -t 1 "${tiny[@]}" -q --no-report \
	-o l6.csv 2>"$tmp/e" || fail "run at load $ncpu.006: $(cat "$tmp/e")"
grep -q "^WARNING: load average $ncpu\.01 above the $ncpu CPUs\? " "$tmp/e" ||
	fail "load $ncpu.006 on $ncpu CPUs: $(cat "$tmp/e")"
# Noise: -l beside -m alone is said to have no effect.
"$rwlab" run -l rwsem -m refcount -t 1 "${tiny[@]}" -q --no-report -o lm.csv 2>"$tmp/e"
grep -q "^rwlab run: WARNING: -l has no effect: context_switch and tlb_flush run the lazy-mm schemes of -m" "$tmp/e" ||
	fail "-l with -m: $(cat "$tmp/e")"
# Noise: under --sim each cell's own process was started with -l null and said "-l has no effect"
# again, once a cell, even when the user gave no -l: now the run's process alone says it, once.
"$rwlab" run --sim generic-8 -w context_switch -m refcount,hazptr -t 1,2 -n 1 -d 100us --warmup 0 -j 1 -q \
	--no-report -o csnl.csv 2>"$tmp/e" || fail "context_switch --sim without -l: $(tail -n 2 "$tmp/e")"
grep -q 'has no effect' "$tmp/e" && fail "context_switch --sim without -l: warned about -l: $(head -n 2 "$tmp/e")"
"$rwlab" run --sim generic-8 -l null -w context_switch -m refcount,hazptr -t 1,2 -n 1 -d 100us --warmup 0 -j 1 -q \
	--no-report -o csl.csv 2>"$tmp/e" || fail "context_switch --sim -l null: $(tail -n 2 "$tmp/e")"
[ "$(grep -c '^rwlab run: WARNING: -l has no effect' "$tmp/e")" = 1 ] ||
	fail "context_switch --sim -l null: $(grep -c 'has no effect' "$tmp/e") '-l has no effect' lines, want 1"
# Noise: an unknown option names the command and its options; a missing value its option.
expect "report -z" 2 "^rwlab report: unknown option '-z' \(valid: -f/--format, .*; rwlab report --help\)$" \
	"$rwlab" report load.csv -z x
expect "run -l without a value" 2 "^rwlab run: -l needs a value \(LIST: " "$rwlab" run -l
expect "torture --kill=1" 2 "^rwlab torture: --kill takes no value \(a flag: --kill alone; rwlab torture --help\)$" \
	"$rwlab" torture --kill=1
# torture --sim -l all leaves out what run --sim leaves out, and says so as run does (it was silent).
"$rwlab" torture --sim generic-4 -l all -d 1ms --readers 1 --writers 1 >"$tmp/o" 2>"$tmp/e" ||
	fail "torture --sim -l all: exit $?: $(cat "$tmp/e")"
grep -q '^rwlab torture: under --sim, -l all leaves out pthread, pthread-wp and ck-\*: ' "$tmp/e" ||
	fail "torture --sim -l all: no line saying what it leaves out: $(cat "$tmp/e")"
grep -q '^pthread-torture\|^ck-' "$tmp/o" && fail "torture --sim -l all ran pthread or ck-*"
"$rwlab" torture --sim generic-4 -l rwsem -d 1ms --readers 1 --writers 1 >"$tmp/o" 2>"$tmp/e"
grep -q 'leaves out' "$tmp/e" && fail "torture --sim -l rwsem: the -l all line without -l all"
expect "run --resume=yes" 2 "^rwlab run: --resume takes no value \(" "$rwlab" run --resume=yes
expect "run --bogus=1" 2 "^rwlab run: unknown option '--bogus' \(valid: " "$rwlab" run --bogus=1
# --help is a flag of every command, as --kill is (it was "unknown option '--help'"); rwlab's own
# --help takes a command, as `rwlab help COMMAND` does, in either spelling
expect "report --help=2" 2 "^rwlab report: --help takes no value \(a flag: --help alone; rwlab report --help\)$" \
	"$rwlab" report --help=2
expect "rwlab --help=2" 2 "^rwlab: no help for '2' \(valid: list, run, " "$rwlab" --help=2
"$rwlab" --help=report | grep -q '^usage: rwlab report' || fail "rwlab --help=report: not report's help"

# Noise: --list-cells under --sim lists, and says nothing about simulated time.
"$rwlab" run --sim generic-8 -l rwsem -t 1,2 --list-cells >"$tmp/o" 2>"$tmp/e" || fail "--sim --list-cells: exit $?"
[ -s "$tmp/e" ] && fail "--sim --list-cells printed on stderr: $(cat "$tmp/e")"
# sim list fits 80 columns.
"$rwlab" sim list | awk 'length > 80 { print "FAIL: sim list line of " length " columns"; bad = 1 } END { exit bad }' ||
	fails=$((fails + 1))

# 2. The table of a simulated run names the machine and the engine, above the table.
"$rwlab" report sim.csv >"$tmp/o" 2>"$tmp/e"
head -n 1 "$tmp/o" | grep -q '^simulated: generic-8 on rwlab-sim sim-[0-9]* \(engine [0-9a-f]* machine [0-9a-f]* \)\{0,1\}seed 1 ' ||
	fail "report of a simulated run: first line '$(head -n 1 "$tmp/o")'"
"$rwlab" report sim.csv -f mmtests | head -n 1 | grep -q '^simulated: generic-8 ' || fail "mmtests format of a simulated run: no mark"
# ... and run's own closing table stars no change below the minimum effect: near-identical simulated
# iterations pass the t-test, so the 1-thread cell's +0.073% (3 operations in its window) was starred.
"$rwlab" run --sim generic-8 -l rwsem,rwsem-xadd -w locktest -t 1 -d 50ms --warmup 10ms -o me.csv >"$tmp/o" 2>"$tmp/e" ||
	fail "--sim run, 1 thread: $(tail -n 2 "$tmp/e")"
grep -Eq '^1 thread +[0-9,]+ ±0\.0% +[0-9,]+ ±0\.0% +\+0\.0[0-9]+%$' "$tmp/o" ||
	fail "run's table: the 1-thread change is starred, or not there: $(grep '^1 thread' "$tmp/o")"
# ... and a native run's names the host, its CPUs and kernel, and the build (it named nothing).
"$rwlab" report lm.csv >"$tmp/o" 2>"$tmp/e"
head -n 1 "$tmp/o" | grep -q "^measured: host $(uname -n), $(nproc) CPUs* .*, Linux .*, [a-z]* build\$" ||
	fail "report of a native run: first line '$(head -n 1 "$tmp/o")'"
# 7. --matrix NAME over simulated rows read the native NAME.matrix, whose client mapping is for a
# native machine, and said nothing of the NAME.sim.matrix that tools/reproduce --sim writes beside
# the CSV. Now a NAME reads that one, in one line; a path is read as given, with one line; and a
# native matrix (one with sim_* keys) for simulated rows is said with or without a file beside.
mkdir -p mx && printf 'locks = rwsem\nworkloads = locktest\nthreads = 1\nreport = locktest\nsim_threads = 2\n' >mx/t.matrix
printf 'locks = rwsem\nworkloads = locktest\nthreads = 2\nreport = mmtests\n' >t.sim.matrix
expect "--matrix NAME, simulated rows, NAME.sim.matrix beside" 0 \
	"^rwlab report: note: sim.csv is simulated \(sim generic-8\), so matrix t is read from t.sim.matrix, the matrix as tools/reproduce --sim ran it \(the native one: --matrix .*mx/t.matrix\)$" \
	env RWLAB_MATRIX_DIR="$tmp/mx" "$rwlab" report sim.csv --matrix t
grep -q '^Hmean ' "$tmp/o" || fail "--matrix t over simulated rows: not t.sim.matrix's mmtests format: $(head -n 3 "$tmp/o")"
expect "--matrix PATH, simulated rows" 0 \
	"^rwlab report: note: sim.csv is simulated \(sim generic-8\) but mx/t.matrix is the native matrix, whose sim_\* keys report does not apply \(t.sim.matrix beside the CSV is the matrix as run\)$" \
	"$rwlab" report sim.csv --matrix mx/t.matrix
grep -q '^Running locktest with rwsem' "$tmp/o" || fail "--matrix mx/t.matrix: not that matrix's locktest format"
printf 'reference = nowhere.csv\n' >>t.sim.matrix
expect "--matrix NAME, a NAME.sim.matrix beside whose table is gone" 0 \
	"^rwlab report: note: sim.csv is simulated \(sim generic-8\) but .*mx/t.matrix is the native matrix, .*\(t.sim.matrix beside the CSV is the matrix as run, but it does not load or its published table is not where it says\)$" \
	env RWLAB_MATRIX_DIR="$tmp/mx" "$rwlab" report sim.csv --matrix t
rm t.sim.matrix
expect "--matrix NAME, simulated rows, nothing beside" 0 \
	"^rwlab report: note: sim.csv is simulated \(sim generic-8\) but .*mx/t.matrix is the native matrix, whose sim_\* keys report does not apply \(tools/reproduce t --sim writes the matrix as run, t.sim.matrix, beside its CSV\)$" \
	env RWLAB_MATRIX_DIR="$tmp/mx" "$rwlab" report sim.csv --matrix t
RWLAB_MATRIX_DIR=$tmp/mx "$rwlab" report load.csv --matrix t >/dev/null 2>"$tmp/e" || fail "--matrix t, native rows: exit $?"
[ -s "$tmp/e" ] && fail "--matrix t over native rows said: $(cat "$tmp/e")"
# 2. Fault paths: compared side by side, by the kernel's names, after run and in report.
"$rwlab" run -l rwsem -w pft:size_mb=4 --mm-lock mmap,vma,vma-refcnt -t 1 -n 1 --warmup 0 -o mm.csv >"$tmp/o" 2>"$tmp/e" ||
	fail "--mm-lock run: $(tail -n 2 "$tmp/e")"
grep -q '^rwsem pft:size_mb=4: faults/sec (faults/s, higher is better), .*change vs mmap_lock$' "$tmp/o" ||
	fail "--mm-lock: no side-by-side table against mmap_lock: $(grep faults/sec "$tmp/o")"
grep -Eq '^ +mmap_lock +per-VMA +vm_refcnt$' "$tmp/o" || fail "--mm-lock: columns not named mmap_lock, per-VMA, vm_refcnt"
"$rwlab" report mm.csv --by variant -m faults/sec | grep -q '^pft:size_mb=4,mm_lock=vma: faults/sec' ||
	fail "--by variant: the per-mode tables are gone"
# 6. --by fault_path over rows without a fault path printed one column of "-": now one line naming
# the workloads that record it, exit 2 (a usage error, as a metric the file lacks), and no table.
expect "--by fault_path on locktest rows" 2 \
	"^rwlab report: --by fault_path: column fault_path has no values in load.csv \(only workloads with an mm_lock knob record it: (.*, )?pft(, .*)?; the workloads here: locktest\)$" \
	"$rwlab" report load.csv --by fault_path
[ -s "$tmp/o" ] && fail "--by fault_path on locktest rows printed a table anyway: $(head -n 3 "$tmp/o")"
expect "--by fault_path -w locktest beside pft rows" 2 "^rwlab report: --by fault_path: column fault_path has no values in " \
	"$rwlab" report mm.csv load.csv --by fault_path -w locktest
# Both files at once: each table shows the columns it has (no all-"-" column), the rows without a
# fault path stand under "no fault path", and a table whose baseline column is empty claims no change.
"$rwlab" report mm.csv load.csv --by fault_path >"$tmp/o" 2>"$tmp/e" || fail "--by fault_path, pft and locktest: exit $?"
grep -Eq '^ +mmap_lock +per-VMA +vm_refcnt$' "$tmp/o" || fail "--by fault_path, mixed: pft's columns: $(cat "$tmp/o")"
grep -Eq '^ +no fault path$' "$tmp/o" || fail "--by fault_path, mixed: locktest's column: $(cat "$tmp/o")"
grep -E '^ +-$| -$' "$tmp/o" && fail "--by fault_path, mixed: a column of '-' is left: $(cat "$tmp/o")"
grep -q 'locktest: .*change vs' "$tmp/o" && fail "--by fault_path, mixed: locktest's title names a change vs a column it lacks"
# -f duration: a column with no cell of a group is not a sum of nothing (0.00); it is left out
# (it printed '-' there before the columns of '-' went).
"$rwlab" report mm.csv load.csv --by fault_path -f duration >"$tmp/o" 2>"$tmp/e" || fail "-f duration, mixed: exit $?"
awk '/^[^ ].* locktest$/ { g = 1 } g && /^User/ { print; exit }' "$tmp/o" | grep -Eq '^User +!?[0-9.]+$' ||
	fail "-f duration, mixed: locktest's User row: $(cat "$tmp/o")"
# -f lkp compares each column with the first: the groups without a baseline cell are named on stderr, not dropped silently.
"$rwlab" report mm.csv load.csv --by fault_path -f lkp >"$tmp/o" 2>"$tmp/e" || fail "-f lkp, mixed: exit $?"
grep -q "^rwlab report: lkp: 2 groups without a cell in the baseline column 'mmap_lock' not shown .*'rwsem locktest'" "$tmp/e" ||
	fail "-f lkp, mixed: no note of the groups left out: $(cat "$tmp/e")"
# -f speedup likewise: no empty table headed "change vs mmap_lock" for locktest, and the same note.
"$rwlab" report mm.csv load.csv --by fault_path -f speedup >"$tmp/o" 2>"$tmp/e" || fail "-f speedup, mixed: exit $?"
grep -q 'locktest' "$tmp/o" && fail "-f speedup, mixed: a locktest table without its baseline: $(cat "$tmp/o")"
grep -q "^rwlab report: speedup: 2 groups without a cell in the baseline column 'mmap_lock'" "$tmp/e" ||
	fail "-f speedup, mixed: no note of the groups left out: $(cat "$tmp/e")"
# -f markdown and -f mmtests leave out a column a table has no cell in, as the table does (they
# printed a column of '-': null beside pft, which only rwsem ran), and keep the others (locktest's null).
for f in markdown mmtests; do
	"$rwlab" report mm.csv load.csv --by variant -f $f >"$tmp/o" 2>"$tmp/e" || fail "-f $f, mixed: exit $?"
	awk '/^(### )?[a-z]/ { g = $0 } g ~ /^(### )?pft/' "$tmp/o" | grep -q 'null' &&
		fail "-f $f, mixed: pft's tables have a column for null, which did not run pft: $(cat "$tmp/o")"
	awk '/^(### )?[a-z]/ { g = $0 } g ~ /^(### )?locktest/' "$tmp/o" | grep -q 'null' ||
		fail "-f $f, mixed: locktest's null column is gone: $(cat "$tmp/o")"
done
# -f duration, -f lkp and -f speedup likewise (they printed null's column of '-' beside pft, and
# speedup a pft table of nothing but '-'): speedup names the groups only the baseline ran.
"$rwlab" report mm.csv load.csv --by variant -f duration >"$tmp/o" 2>"$tmp/e" || fail "-f duration, mixed: exit $?"
awk '/^[a-z]/ { g = $0 } g ~ /^pft/' "$tmp/o" | grep -q 'null' &&
	fail "-f duration, mixed: pft's tables have a column for null: $(cat "$tmp/o")"
awk '/^[a-z]/ { g = $0 } g ~ /^locktest/' "$tmp/o" | grep -q 'null' ||
	fail "-f duration, mixed: locktest's null column is gone: $(cat "$tmp/o")"
"$rwlab" report mm.csv load.csv --by variant -f lkp >"$tmp/o" 2>"$tmp/e" || fail "-f lkp, mixed: exit $?"
awk '/testcase:$/ { getline; g = $0 } g ~ /\/pft/' "$tmp/o" | grep -q 'null' &&
	fail "-f lkp, mixed: pft's blocks have a commit or column for null: $(cat "$tmp/o")"
awk '/testcase:$/ { getline; g = $0 } g ~ /\/locktest$/' "$tmp/o" | grep -q '%change .*%stddev' ||
	fail "-f lkp, mixed: locktest's null column is gone: $(cat "$tmp/o")"
"$rwlab" report mm.csv load.csv --by variant -f speedup >"$tmp/o" 2>"$tmp/e" || fail "-f speedup, mixed: exit $?"
grep -q '^pft' "$tmp/o" && fail "-f speedup, mixed: a pft table, which only rwsem ran: $(cat "$tmp/o")"
grep -q "^rwlab report: speedup: 3 groups that only the baseline column 'rwsem' ran not shown (nothing to compare): 'pft:" \
	"$tmp/e" || fail "-f speedup, mixed: no note of the groups only the baseline ran: $(cat "$tmp/e")"
grep -Eq '^Threads +null$' "$tmp/o" || fail "-f speedup, mixed: locktest's null column is gone: $(cat "$tmp/o")"
# 6. No --by over pft in several fault paths beside locktest compared the fault paths, so each
# locktest variant stood alone under "no fault path": now variants side by side, as for either file
# alone under --by variant; -w pft (every row kept has a fault path) still compares the paths.
"$rwlab" report mm.csv load.csv >"$tmp/o" 2>"$tmp/e" || fail "report pft and locktest, no --by: exit $?"
grep -Eq '^ +rwsem +null$' "$tmp/o" || fail "report pft and locktest, no --by: locktest's variants not side by side: $(cat "$tmp/o")"
grep -q 'no fault path' "$tmp/o" && fail "report pft and locktest, no --by: a 'no fault path' column: $(cat "$tmp/o")"
"$rwlab" report mm.csv load.csv -w pft >"$tmp/o" 2>"$tmp/e" || fail "report pft and locktest -w pft: exit $?"
grep -Eq '^ +mmap_lock +per-VMA +vm_refcnt$' "$tmp/o" || fail "report -w pft: the fault paths not side by side: $(cat "$tmp/o")"
# ... but with one variant in the file, by variant compares nothing: the paths stay side by side.
"$rwlab" run -l rwsem -w locktest -t 1 -n 1 -d 10ms --warmup 0 -q --no-report -o lt1.csv >/dev/null 2>"$tmp/e" ||
	fail "locktest, rwsem alone: $(tail -n 2 "$tmp/e")"
"$rwlab" report mm.csv lt1.csv >"$tmp/o" 2>"$tmp/e" || fail "report pft and locktest, one variant: exit $?"
grep -Eq '^ +mmap_lock +per-VMA +vm_refcnt$' "$tmp/o" ||
	fail "report pft and locktest, one variant, no --by: the fault paths not side by side: $(cat "$tmp/o")"
# 6. An unknown --by column lists every column --by takes (fault_path was missing) and exits 2,
# as usage errors do (it exited 1); plot's --by likewise.
expect "--by bogus" 2 "^rwlab report: --by 'bogus': no column 'bogus' in load.csv \(valid: run, variant, workload, .*, host, .*, fault_path\)$" \
	"$rwlab" report load.csv --by bogus
grep -q 'valid:.*, value,' "$tmp/e" 2>/dev/null && fail "--by bogus lists value, which --by refuses"
# A row's own key or measurement is not a column to compare by (it was taken: --by value made a column per value).
for col in value iteration threads metric; do
	expect "--by $col" 2 "^rwlab report: --by '$col': a row's own key or measurement, not a column to compare side by side " \
		"$rwlab" report load.csv --by "$col"
done
expect "--by bogus -o FILE" 2 "^rwlab report: --by 'bogus': no column 'bogus' in load.csv " \
	"$rwlab" report load.csv --by bogus -o by.txt
[ -e by.txt ] && fail "--by bogus -o by.txt wrote by.txt"
expect "plot --by bogus" 2 "^rwlab plot: --by 'bogus': no column 'bogus' in load.csv \(valid: .*, fault_path\)$" \
	"$rwlab" plot load.csv --by bogus -o by.png
expect "a variant spec ending in ':'" 2 "^rwlab run: bad lock variant spec 'rwsem:' \(expected NAME or NAME:key=val,\.\.\.\)$" \
	"$rwlab" run -l rwsem: -w locktest "${tiny[@]}"
# A machine file's cost that is negative or not a number is refused where it is read.
mkdir -p neg && sed 's/^cost.kpath.fault_account_ns = [0-9.]*/cost.kpath.fault_account_ns = -5/' \
	"${0%/*}/../../sim/machines/epyc-2vcpu.machine" >neg/epyc-2vcpu.machine
expect "a negative cost in a machine file" 2 \
	"^rwlab run: .*neg/epyc-2vcpu.machine:[0-9]+: cost.kpath.fault_account_ns = -5: not a finite number of 0 or more$" \
	"$rwlab" run --sim neg/epyc-2vcpu.machine -l rwsem -w locktest "${tiny[@]}" -o neg.csv
expect "--mm-lock with locktest" 2 "^rwlab run: locktest has no knob 'mm_lock' to vary \(valid: -w with pft, reaim, gitcheckout\)$" \
	"$rwlab" run --mm-lock vma -l rwsem -t 1 "${tiny[@]}" -o t.csv
# gitcheckout's --repo is checked before any cell (the cell failed with git's "fatal:" line, a CSV made),
# natively and under --sim; the ceiling keeps git from finding a repository above $tmp.
mkdir -p norepo
for sim in "" "--sim generic-8"; do
	expect "--repo /nonexist${sim:+ under $sim}" 2 \
		"^rwlab run: --repo /nonexist: no such directory \(valid: a git repository's directory; without --repo, " \
		"$rwlab" run $sim -w gitcheckout --repo /nonexist -l rwsem -t 1 "${tiny[@]}" -o repo.csv
	expect "--repo norepo${sim:+ under $sim}" 2 "^rwlab run: --repo norepo: not a git repository \(valid: " \
		env GIT_CEILING_DIRECTORIES="$tmp" "$rwlab" run $sim -w gitcheckout --repo norepo -l rwsem -t 1 \
		"${tiny[@]}" -o repo.csv
	[ -e repo.csv ] && fail "a bad --repo${sim:+ under $sim}: repo.csv made" && rm -f repo.csv
done
# ... and so is one with fewer than the two commits the cell takes without --commits (each cell failed,
# 'has fewer than two commits', an empty repository with git's usage lines), and an empty --repo.
git init -q onecommit && git init -q nocommit && echo x >onecommit/x && git -C onecommit add x &&
	git -C onecommit -c user.name=t -c user.email=t@t commit -q -m one || fail "cannot make the test repositories"
for r in onecommit nocommit; do
	for sim in "" "--sim generic-8"; do
		expect "--repo $r${sim:+ under $sim}" 2 \
			"^rwlab run: --repo $r: fewer than two commits in HEAD's first-parent history \(valid: --commits " \
			"$rwlab" run $sim -w gitcheckout --repo $r -l rwsem -t 1 "${tiny[@]}" -o repo.csv
		[ -e repo.csv ] && fail "--repo $r${sim:+ under $sim}: repo.csv made" && rm -f repo.csv
	done
done
"$rwlab" run -w gitcheckout --repo onecommit --commits HEAD,HEAD -l rwsem -t 1 "${tiny[@]}" -q --no-report \
	-o repo.csv 2>"$tmp/e" || fail "--repo onecommit --commits HEAD,HEAD: $(tail -n 2 "$tmp/e")"
rm -f repo.csv
expect "--repo=" 2 "^rwlab run: --repo is empty \(valid: a git repository's directory; " \
	"$rwlab" run -w gitcheckout --repo= -l rwsem -t 1 "${tiny[@]}" -o repo.csv
# --commits too: each item resolves where the cell reads it, and there are two or more (each cell failed,
# exit 1 with git's "fatal:" line or "needs at least two", a CSV made).
git -C onecommit ls-tree -r -l HEAD >one.manifest
: >empty.manifest
{ head -n 1 one.manifest; echo 'not a manifest line'; } >bad.manifest
for sim in "" "--sim generic-8"; do
	expect "--commits v9.9${sim:+ under $sim}" 2 \
		"^rwlab run: --commits v9.9: no such manifest file or shipped release \(shipped: v2.20.0 .*; --repo DIR " \
		"$rwlab" run $sim -w gitcheckout --commits v2.20.0,v9.9 -l rwsem -t 1 "${tiny[@]}" -o repo.csv
	expect "--repo onecommit --commits HEAD,v9.9${sim:+ under $sim}" 2 \
		"^rwlab run: --commits v9.9: not a commit or tree of onecommit nor a manifest file \(valid: its commits, " \
		"$rwlab" run $sim -w gitcheckout --repo onecommit --commits HEAD,v9.9 -l rwsem -t 1 "${tiny[@]}" -o repo.csv
	# a manifest file is read up front as the cell reads it; a directory is said to be one
	expect "--commits one.manifest,empty.manifest${sim:+ under $sim}" 2 \
		"^rwlab run: --commits empty.manifest: an empty manifest file \(valid: lines mode<TAB>size<TAB>path " \
		"$rwlab" run $sim -w gitcheckout --commits one.manifest,empty.manifest -l rwsem -t 1 "${tiny[@]}" -o repo.csv
	expect "--commits one.manifest,bad.manifest${sim:+ under $sim}" 2 \
		"^rwlab run: --commits bad.manifest: line 2 is not a manifest line \(mode<TAB>size<TAB>path or ls-tree " \
		"$rwlab" run $sim -w gitcheckout --commits one.manifest,bad.manifest -l rwsem -t 1 "${tiny[@]}" -o repo.csv
	expect "--commits one.manifest,onecommit${sim:+ under $sim}" 2 \
		"^rwlab run: --commits onecommit: a directory, not a manifest file nor a shipped release \(shipped: " \
		"$rwlab" run $sim -w gitcheckout --commits one.manifest,onecommit -l rwsem -t 1 "${tiny[@]}" -o repo.csv
	for c in v2.20.0 HEAD ,; do
		r=; [ "$c" = HEAD ] && r=onecommit
		expect "${r:+--repo $r }--commits $c${sim:+ under $sim}" 2 \
			"^rwlab run: --commits '$c': (one item|no item), and a checkout goes from one to another \(valid: two " \
			"$rwlab" run $sim -w gitcheckout ${r:+--repo $r} --commits $c -l rwsem -t 1 "${tiny[@]}" -o repo.csv
	done
	# --commits and --repo are gitcheckout's: a run without it refuses them, before their items (which
	# were checked, so a bad one named the item, not that the options are gitcheckout's, and a good one
	# was silently ignored)
	for o in "--commits v9.9" "--commits v2.20.0,v2.30.0" "--repo onecommit"; do
		expect "-w locktest $o${sim:+ under $sim}" 2 \
			"^rwlab run: ${o%% *} is for gitcheckout, which is not in this run's workloads: add gitcheckout to -w, or leave ${o%% *} out$" \
			"$rwlab" run $sim -w locktest $o -l rwsem -t 1 "${tiny[@]}" -o repo.csv
	done
	[ -e repo.csv ] && fail "a bad --commits${sim:+ under $sim}: repo.csv made" && rm -f repo.csv
done
# The check and the cell load an item with one function: a tree-ish that is not a commit (HEAD:d, a
# directory's tree) runs, as the cell reads it (the check refused it, 'not a commit of'), natively and
# under --sim; a commit whose tree is empty is refused up front, named, whether --commits gives it or it
# is the root commit --repo's default takes (the check let it by, then each cell failed, 'empty tree',
# exit 1 with a CSV made); a blob (HEAD:d/y) is no tree.
git init -q emptyroot && git -C emptyroot -c user.name=t -c user.email=t@t commit -q --allow-empty -m root &&
	mkdir emptyroot/d && echo y >emptyroot/d/y && git -C emptyroot add d &&
	git -C emptyroot -c user.name=t -c user.email=t@t commit -q -m d || fail "cannot make emptyroot"
for sim in "" "--sim generic-8"; do
	"$rwlab" run $sim -w gitcheckout --repo emptyroot --commits HEAD,HEAD:d -l rwsem -t 1 "${tiny[@]}" -q \
		--no-report -o tree.csv 2>"$tmp/e" || fail "--commits HEAD,HEAD:d${sim:+ under $sim}: $(tail -n 2 "$tmp/e")"
	grep -q ',gitcheckout,1,0,elapsed,' tree.csv || fail "--commits HEAD,HEAD:d${sim:+ under $sim}: no elapsed row"
	rm -f tree.csv
	expect "--commits HEAD,HEAD~1 (an empty tree)${sim:+ under $sim}" 2 \
		"^rwlab run: --commits HEAD~1: an empty tree in emptyroot: no file to check out \(valid: commits and trees with files\)$" \
		"$rwlab" run $sim -w gitcheckout --repo emptyroot --commits HEAD,HEAD~1 -l rwsem -t 1 "${tiny[@]}" -o repo.csv
	expect "--repo emptyroot (its root's tree empty)${sim:+ under $sim}" 2 \
		"^rwlab run: --repo emptyroot, the commits taken without --commits \(.*\): [0-9a-f]{40}: an empty tree in emptyroot: " \
		"$rwlab" run $sim -w gitcheckout --repo emptyroot -l rwsem -t 1 "${tiny[@]}" -o repo.csv
	expect "--commits HEAD,HEAD:d/y (a blob)${sim:+ under $sim}" 2 \
		"^rwlab run: --commits HEAD:d/y: not a commit or tree of emptyroot nor a manifest file \(valid: .*HEAD:Documentation" \
		"$rwlab" run $sim -w gitcheckout --repo emptyroot --commits HEAD,HEAD:d/y -l rwsem -t 1 "${tiny[@]}" -o repo.csv
	[ -e repo.csv ] && fail "an empty tree${sim:+ under $sim}: repo.csv made" && rm -f repo.csv
done
# --repo a subdirectory of a work tree reads each item whole, as git checkout there checks out the whole
# tree (ls-tree run there listed the subdirectory's part only: HEAD:d was 'an empty tree in emptyroot/d'
# and HEAD a part of its tree).
for sim in "" "--sim generic-8"; do
	"$rwlab" run $sim -w gitcheckout --repo emptyroot/d --commits HEAD,HEAD:d -l rwsem -t 1 "${tiny[@]}" -q \
		--no-report -o sub.csv 2>"$tmp/e" || fail "--repo emptyroot/d${sim:+ under $sim}: $(tail -n 2 "$tmp/e")"
	grep -q ',gitcheckout,1,0,files_written,2,' sub.csv ||
		fail "--repo emptyroot/d${sim:+ under $sim}: y and d/y in turn are not two files written"
	rm -f sub.csv
done
# ... a matrix whose workloads include gitcheckout takes them (its options, or the command line's)
printf 'workloads = locktest, gitcheckout\nlocks = rwsem\nthreads = 1\noptions = --commits v2.20.0,v2.30.0\n' \
	>git.matrix
for extra in "" "--repo onecommit --commits HEAD,one.manifest"; do
	"$rwlab" run --matrix git.matrix $extra --list-cells >/dev/null 2>"$tmp/e" ||
		fail "--matrix git.matrix (gitcheckout) $extra: $(cat "$tmp/e")"
done
"$rwlab" run -w gitcheckout --repo onecommit --commits HEAD,one.manifest -l rwsem -t 1 --list-cells >/dev/null \
	2>"$tmp/e" || fail "--repo onecommit --commits HEAD,one.manifest: $(cat "$tmp/e")"

# 2. A lower-is-better change: the header says it is the gain, so a worse result reads as worse.
{
	echo "schema,run,timestamp,variant,workload,threads,iteration,metric,value,unit,better"
	for i in 0 1 2; do
		echo "3,r,t,old,w,1,$i,elapsed,$((10 + i)),s,lower"
		echo "3,r,t,new,w,1,$i,elapsed,$((14 + i)),s,lower"
		echo "3,r,t,old,w,1,$i,nvcsw,$((100 + i)),count,none"
		echo "3,r,t,new,w,1,$i,nvcsw,$((150 + i)),count,none"
	done
} >lower.csv
"$rwlab" report lower.csv -m elapsed,nvcsw >"$tmp/o" 2>"$tmp/e" || fail "report lower.csv: $(cat "$tmp/e")"
tr '\n' ' ' <"$tmp/o" | grep -q 'w: elapsed (s, lower is better), Amean ±CoeffVar, *gain vs old (+ = lower = better; - = higher = worse)' ||
	fail "lower-is-better header: $(grep elapsed "$tmp/o")"
grep -Eq '^1 thread .* -36\.4%\*?$' "$tmp/o" || fail "15 s against 11 s is not a gain of -36.4%: $(grep '^1 thread' "$tmp/o" | head -1)"
grep -q '^w: nvcsw (count, informational), Amean ±CoeffVar, change vs old (+ = higher)$' "$tmp/o" ||
	fail "informational header: $(grep nvcsw "$tmp/o")"
grep -Eq '^1 thread .* \+49\.[0-9]%\*?$' "$tmp/o" || fail "151 against 101 is not +49.5%: $(grep '^1 thread' "$tmp/o" | tail -1)"

# 4b. --matrix is found by the option parser, not by a scan of the raw words: a value that reads
# "--matrix" is -l's value (so "quick" is an operand), not a matrix to expand.
expect "-l --matrix quick" 2 "^rwlab run: unexpected argument 'quick' \\(see 'rwlab run --help'\\)$" \
	"$rwlab" run -l --matrix quick

# 5. report --reference: a bad name is one line and no table; a published table's name is found.
expect "--reference nosuch.csv" 2 "^rwlab report: --reference 'nosuch.csv': no such file, nor a published table or matrix of that name \(valid: a path, or .*per-vma-locks-pft.*\)$" \
	"$rwlab" report mm.csv --reference nosuch.csv
[ -s "$tmp/o" ] && fail "--reference nosuch.csv printed a table anyway"
"$rwlab" report mm.csv --reference per-vma-locks-pft >"$tmp/o" 2>"$tmp/e"
grep -q 'results/reference/per-vma-locks-pft.csv\|share/rwlab/reference/per-vma-locks-pft.csv' "$tmp/e" ||
	fail "--reference per-vma-locks-pft: the table was not found: $(cat "$tmp/e")"

# Noise: help about help, plot's usage errors, --keep-script's names, a header-only file.
"$rwlab" help help >"$tmp/o" 2>&1 || fail "rwlab help help exited $?"
"$rwlab" help --help >"$tmp/o" 2>&1 || fail "rwlab help --help exited $?"
grep -q '^usage: rwlab help \[COMMAND' "$tmp/o" || fail "help --help does not say what help takes"
expect "plot -o x.jpg" 2 "^rwlab plot: output 'x.jpg' must end in .png or .svg" "$rwlab" plot load.csv -o x.jpg
"$rwlab" plot --help | grep -q 'OUT.png.gp' || fail "plot --help: --keep-script does not name OUT.png.gp"
head -n 1 load.csv >header-only.csv
"$rwlab" report header-only.csv >"$tmp/o" 2>"$tmp/e"
grep -q 'merge' "$tmp/e" && fail "report header-only.csv speaks as merge: $(cat "$tmp/e")"
# Noise: without -l every variant runs, and the run says so first; a tiny -d is not mostly warm-up.
"$rwlab" run -w locktest -t 1 -n 1 -d 4ms --no-report -o all.csv 2>"$tmp/e" >/dev/null
grep -q "^rwlab run: -l not given, so every variant runs: [0-9]* cells" "$tmp/e" || fail "no hint without -l: $(head -n 2 "$tmp/e")"
"$rwlab" run -l rwsem -w locktest -t 1 -n 1 -d 4ms --no-report -o all.csv 2>"$tmp/e" >/dev/null
grep -q "^rwlab run: -l not given" "$tmp/e" && fail "the -l hint with -l given"
"$rwlab" run -w context_switch -m refcount,hazptr -t 1 -n 1 -d 4ms --no-report -o cs.csv 2>"$tmp/e" >/dev/null
grep -q "^rwlab run: -l not given" "$tmp/e" && fail "the -l hint for a lazy-mm workload, which runs no variant"
grep -q 'd=0.004s warmup=0.001s ' all.csv || fail "-d 4ms: the default warm-up is not a quarter of it: $(sed -n 2p all.csv | grep -o 'd=[^,]*')"

# 3. The host inventory, and merge comparing the inventories beside the shards' files.
"$rwlab" list --host >inv
for k in host cpu_model sockets cores threads_per_core numa_nodes kernel governor smt; do
	grep -q "^$k: ." inv || fail "list --host: no '$k:' line"
done
mkdir -p a b
"$rwlab" run -l rwsem -w locktest -t 1,2 "${tiny[@]}" -q --no-report --shard 1/2 -o a/s1.csv 2>/dev/null
"$rwlab" run -l rwsem -w locktest -t 1,2 "${tiny[@]}" -q --no-report --shard 2/2 -o b/s2.csv 2>/dev/null
cp inv a/inventory
sed 's/^governor: .*/governor: powersave-test/' inv >b/inventory
"$rwlab" merge -o m.csv a/s1.csv b/s2.csv 2>"$tmp/e" || fail "merge: exit $?: $(cat "$tmp/e")"
grep -q "^rwlab merge: WARNING: the hosts differ: governor is '.*' on .* (a/inventory) but 'powersave-test' on .* (b/inventory)$" "$tmp/e" ||
	fail "merge did not compare the inventories: $(cat "$tmp/e")"

# 5. Completion: every option value that has a list, and the operands.
"$rwlab" help --bash >comp.bash || fail "rwlab help --bash exited $?"
: >results.csv; : >notes.txt
# complete WORDS...: the completions of the last word (may be empty) after the others.
complete_words() {
	bash -c '. ./comp.bash; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _rwlab; printf "%s\n" "${COMPREPLY[@]}"' _ "$@"
}
has() {	# has WHAT WORD... -- CMDLINE...: each WORD among the completions
	local what=$1 out w
	shift
	local words=()
	while [ "$1" != -- ]; do words+=("$1"); shift; done
	shift
	out=$(complete_words "$@")
	for w in "${words[@]}"; do
		printf '%s\n' "$out" | grep -qx -- "$w" || fail "completion $what: no '$w' in: $(echo $out | head -c 300)"
	done
}
hasnt() {	# hasnt WHAT WORD -- CMDLINE...
	local what=$1 w=$2
	shift 3
	complete_words "$@" | grep -qx -- "$w" && fail "completion $what offers '$w'"
}
has "--sim" generic- icx-8336c-2s128 -- rwlab run --sim ''
has "torture --sim" generic- -- rwlab torture --sim ''
has "--matrix" quick rwsem-rework -- rwlab run --matrix ''
hasnt "--matrix" results.csv -- rwlab run --matrix ''
has "sim" list show validate -- rwlab sim ''
has "sim show" generic- -- rwlab sim show ''
has "exec -l" passthrough none rwsem -- rwlab exec -l ''
hasnt "exec -l" percpu-rwsem -- rwlab exec -l ''
has "report operand" results.csv -- rwlab report ''
hasnt "report operand" notes.txt -- rwlab report ''
has "merge operand" results.csv -- rwlab merge ''
has "report -f" table mmtests lkp json -- rwlab report -f ''
has "report --by" fault_path -- rwlab report --by ''
has "slurm takes run's -l" rwsem -- rwlab slurm -l ''
has "slurm takes run's options" --lock --threads --partition -- rwlab slurm --''
has "help" --man --bash run -- rwlab help ''
has "run -l list" pthread,rwsem -- rwlab run -l pthread,rw
# 5. The man page: ENVIRONMENT, FILES, EXAMPLES, EXIT STATUS; rendered by man where there is one.
"$rwlab" help --man >rwlab.1
for sec in ENVIRONMENT FILES EXAMPLES "EXIT STATUS"; do
	grep -qx "\.SH $sec" rwlab.1 || fail "man page: no $sec section"
done
grep -q 'RWLAB_SIM_MACHINES' rwlab.1 || fail "man page: RWLAB_SIM_MACHINES not in it"

echo "newuser: $([ $fails = 0 ] && echo passed || echo "$fails failures")"
exit $((fails > 0))
