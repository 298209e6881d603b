#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Shards without Slurm: run --list-cells, --shard I/N (the shards together
# are the plan, each comparison block in one shard), rwlab merge (a complete
# merge, a missing shard named, a tampered CPU model and another --seed
# warned about with both values, a cell pooled across hosts refused, two
# plans refused), report over several shard files, and the sbatch script
# rwlab slurm writes (without submitting it).
# Usage: shard.sh RWLAB
. "${0%/*}/../lib.sh"
set -o pipefail
rwlab=$1
case $rwlab in /*) ;; *) rwlab=$PWD/$rwlab ;; esac
cd "$tmp" || exit 1

printf 'locks = pthread, ck-rwlock\nworkloads = locktest:load=10, pft:size_mb=4\nthreads = 1, 2\nreport = mmtests\n' >tiny.matrix
opts=(--matrix ./tiny.matrix -d 50ms -n 2 --warmup 0 -q --no-report)

"$rwlab" run "${opts[@]}" --list-cells >plan || fail "--list-cells: exit $?"
[ "$(grep -vc '^#' plan)" = 8 ] || fail "--list-cells: $(grep -vc '^#' plan) cells, want 8"
grep -qx '4.2 - pft:size_mb=4 2 ck-rwlock' plan || fail "--list-cells: no '4.2 - pft:size_mb=4 2 ck-rwlock': $(cat plan)"
for i in 1 2 3; do "$rwlab" run "${opts[@]}" --shard $i/3 --list-cells; done | grep -v '^#' >sharded
[ "$(awk '{ print $1, $3, $4, $5 }' sharded | sort)" = "$(grep -v '^#' plan | awk '{ print $1, $3, $4, $5 }' | sort)" ] ||
	fail "the shards of 3 together are not the plan"
# A block's variants all land in one shard.
[ "$(awk '{ split($1, b, "."); print b[1], $2 }' sharded | sort -u | awk '{ print $1 }' | uniq -d)" = "" ] ||
	fail "a comparison block is split over shards"
# The plan leaves out what the runner leaves out: null on a workload whose data needs exclusion.
"$rwlab" run -l pthread,null -w gitcheckout,locktest -t 1 --list-cells >unsafe || fail "--list-cells (null): exit $?"
[ "$(grep -v '^#' unsafe | awk '{ print $3 "/" $5 }' | tr '\n' ' ')" = "gitcheckout/pthread locktest/pthread locktest/null " ] ||
	fail "--list-cells with null on gitcheckout: $(cat unsafe)"

for i in 1 2; do "$rwlab" run "${opts[@]}" --shard $i/2 -o s$i.csv 2>/dev/null || fail "shard $i/2: exit $?"; done
grep -q '^# context,.*,settings=d=0.05s warmup=0s n=2 seed=1 order=interleaved,.*,shard=1/2,plan=fp=[0-9a-f]\{16\} cells=8 blocks=4$' s1.csv ||
	fail "settings/shard/plan values: $(sed -n 2p s1.csv)"

"$rwlab" merge -o m.csv s1.csv s2.csv 2>err; rc=$?
[ $rc = 0 ] || fail "merge of both shards exited $rc: $(cat err)"
grep -q 'merge: 2 files, 8 cells, complete' err || fail "merge: $(cat err)"
[ "$(grep -vc '^#' m.csv)" = "$(($(grep -vc '^#' s1.csv) + $(grep -vc '^#' s2.csv) - 1))" ] || fail "merged rows != the shards' rows"
[ "$(grep -c '^# context,' m.csv)" = 2 ] || fail "merged file: not one context line per shard's run"

# -o - is stdout (it wrote a file named -); -o DIR refused before any file is read, naming the choice
"$rwlab" merge -o - s1.csv s2.csv >mo.csv 2>err
cmp -s mo.csv m.csv && [ ! -e ./- ] && grep -q 'merge: 2 files, 8 cells, complete: stdout$' err ||
	fail "merge -o -: not the merged rows on stdout: $(cat err)"
mkdir -p outdir
expect "merge -o DIR" 2 "^rwlab merge: -o outdir: is a directory \(give a file name\)$" "$rwlab" merge -o outdir nosuch.csv
expect "run -o DIR" 2 "^rwlab run: cannot open 'outdir': Is a directory \(give a file name\)$" \
	"$rwlab" run -l null -w locktest -t 1 -n 1 -d 10ms -o outdir -q
"$rwlab" merge s1.csv 2>err; rc=$?
[ $rc = 1 ] || fail "merge with a shard missing exited $rc, want 1"
grep -q 'missing shard 2/2 (comparison blocks 2, 4): no file holds it' err || fail "missing shard not named: $(cat err)"

# A shard whose last line is torn (its run killed mid-write): named, and the merge is incomplete
# (it said complete and exit 0, the torn row's cell unfinished in the merged file without a word).
# The unfinished cell is left out whole and named (its other rows were merged, and report of
# the merged file showed it unflagged); so is one cut at a line's end, with no torn line.
last=$(tail -1 s2.csv | cut -d, -f4-6 | tr , ' ')	# variant workload threads of the last cell
first=$(grep -n ",${last// /,},0,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*\$" s2.csv | head -1 | cut -d: -f1)
set -- $last
head -c -15 s2.csv >torn2.csv
"$rwlab" merge -o torn.csv s1.csv torn2.csv 2>err; rc=$?
[ $rc = 1 ] || fail "merge with a torn last line exited $rc, want 1: $(cat err)"
grep -qx "rwlab merge: torn2.csv:$(wc -l <s2.csv): the last line is incomplete (an interrupted write); left out, and with it the $(($(wc -l <s2.csv) - first)) rows of unfinished cell $1 $2 t=$3 from line $first (not iterations 0..1 with as many rows each)" err ||
	fail "merge: the torn line and its cell are not named: $(cat err)"
grep -qx "rwlab merge: missing cell $1 $2 t=$3 (failed or interrupted)" err || fail "merge of a torn shard: its cell not missing: $(cat err)"
grep -q 'merge: 2 files, 7 cells, INCOMPLETE: torn.csv' err || fail "merge of a torn shard: $(cat err)"
[ "$(grep -vc '^#' torn.csv)" = "$(($(grep -vc '^#' m.csv) - $(wc -l <s2.csv) + first - 1))" ] ||
	fail "merge of a torn shard: not the whole rows of finished cells"
grep -q ",${last// /,}," torn.csv && fail "merge of a torn shard: rows of its unfinished cell written"
"$rwlab" report torn.csv >/dev/null 2>err
grep -qx "rwlab report: missing cell $1 $2 t=$3 (failed or interrupted)" err || fail "report of the merged torn shard: $(cat err)"
head -n -2 s2.csv >cut2.csv
"$rwlab" merge -o cut.csv s1.csv cut2.csv 2>err; rc=$?
[ $rc = 1 ] || fail "merge with an unfinished last cell exited $rc, want 1: $(cat err)"
grep -qx "rwlab merge: cut2.csv:$first: cell $1 $2 t=$3 is unfinished (not iterations 0..1 with as many rows each: an interrupted write); its $(($(wc -l <s2.csv) - 2 - first + 1)) rows left out" err ||
	fail "merge: the unfinished cell is not named: $(cat err)"
cmp -s cut.csv torn.csv || fail "merge of a cut shard: not the merge of the torn one"

# One of a thing is not '1 things': a missing shard of one block, a plan of one block.
"$rwlab" run -l pthread -w locktest -t 1,2 -d 20ms -n 1 --warmup 0 -q --no-report --shard 1/2 -o one1.csv 2>/dev/null ||
	fail "shard 1/2 of two blocks: exit $?"
"$rwlab" merge one1.csv 2>err
grep -qx 'rwlab merge: missing shard 2/2 (comparison block 2): no file holds it' err || fail "one missing block: $(cat err)"
expect "--shard 1/2 of one block" 2 "^rwlab run: --shard 1/2: the plan has only 1 comparison block \(workload x thread count\)" \
	"$rwlab" run -l pthread -w locktest -t 1 --shard 1/2 --list-cells
expect "slurm --shards 2 of one block" 2 "^rwlab slurm: --shards 2, but the plan has only 1 comparison block \(workload x" \
	"$rwlab" slurm -l pthread -w locktest -t 1 --shards 2 --dir "$tmp/sl1"

# Another --seed and a tampered CPU model: warned, each naming both values.
"$rwlab" run "${opts[@]}" --shard 2/2 --seed 7 -o t2.csv 2>/dev/null
sed -i 's/^\(# context,.*,cpu_model=\)[^,]*,/\1Tampered CPU 9000,/' t2.csv
"$rwlab" merge s1.csv t2.csv 2>err; rc=$?
[ $rc = 0 ] || fail "merge with warnings exited $rc: $(cat err)"
grep -q "WARNING: the hosts differ in cpu_model: s1.csv:3 (shard 1/2, host .*) has '.*', t2.csv:3 (shard 2/2, host .*) has 'Tampered CPU 9000'" err ||
	fail "no cpu_model warning: $(cat err)"
grep -q "WARNING: the shards' settings differ in seed: .* has '1', t2.csv:3 .* has '7'" err || fail "no seed warning: $(cat err)"
[ "$(grep -c WARNING err)" = 2 ] || fail "$(grep -c WARNING err) warnings, want 2: $(cat err)"

# One cell from two hosts: refused, in merge and in report.
# (host is the column before better, the last)
{ cat s1.csv; tail -n +2 s1.csv | sed "s/,$(uname -n),\([a-z]*\)\$/,otherhost,\1/"; } >pooled.csv
grep -q ',otherhost,[a-z]*$' pooled.csv || fail "pooled.csv: the host column was not replaced"
"$rwlab" report pooled.csv >/dev/null 2>err; rc=$?
[ $rc = 1 ] || fail "report of a pooled cell exited $rc, want 1"
grep -q "^rwlab report: cell .* is in pooled.csv:.* (shard 1/2, host .*) and in pooled.csv:.* (shard 1/2, host .*): a cell is never pooled across files or hosts" err ||
	fail "pooled cell not refused by report, in report's words: $(cat err)"
"$rwlab" report pooled.csv --by variant,host >/dev/null 2>err || fail "report --by variant,host of two hosts' cells exited $?: $(cat err)"
# A mistyped --by column is said first, before merge's refusal (exit 2, the columns --by takes).
expect "report pooled.csv --by kern" 2 "^rwlab report: --by 'kern': no column 'kern' in pooled\.csv \(valid: run, variant, .*, fault_path\)$" \
	"$rwlab" report pooled.csv --by kern
# report over one shard names the shard it lacks, in lines of report's (merge's checks said "rwlab merge:").
"$rwlab" report s1.csv >/dev/null 2>err || fail "report of one shard exited $?"
grep -q '^rwlab report: missing shard 2/2 (comparison blocks 2, 4): no file holds it$' err ||
	fail "report: missing shard not named in report's words: $(cat err)"
grep -q 'rwlab merge' err && fail "report: a line of merge's: $(cat err)"
# ... read from stdin too (it skipped merge's checks: stdin was read once, by the load)
"$rwlab" report - <s1.csv >/dev/null 2>err || fail "report - of one shard exited $?"
grep -q 'missing shard 2/2 (comparison blocks 2, 4): no file holds it' err || fail "report -: missing shard not named: $(cat err)"
"$rwlab" merge pooled.csv 2>err; rc=$?
[ $rc = 2 ] || fail "merge of a pooled cell exited $rc, want 2"
grep -q 'a cell is never pooled across files or hosts' err || fail "pooled cell not refused by merge: $(cat err)"
"$rwlab" merge s1.csv s1.csv 2>err; [ $? = 2 ] || fail "one shard twice not refused"
grep -q 'shard 1/2 is in both s1.csv and s1.csv' err || fail "shard twice: $(cat err)"
# Another plan: refused.
"$rwlab" run "${opts[@]}" -t 1,3 --shard 2/2 -o other.csv 2>/dev/null
"$rwlab" merge s1.csv other.csv 2>err; [ $? = 2 ] || fail "two plans not refused"
grep -q 'are not shards of one plan' err || fail "two plans: $(cat err)"
# A file of no plan (bench-lazy's): refused in one line naming it, nothing written (it warned that
# five settings differ, merged its rows and said INCOMPLETE, exit 1).
"$rwlab" bench-lazy -m hazptr --round-trips 200 --switches 1000 -n 1 -o lazy.csv >/dev/null 2>&1 || fail "bench-lazy: exit $?"
for order in "s1.csv lazy.csv" "lazy.csv s1.csv"; do
	expect "merge $order" 2 "^rwlab merge: lazy\.csv:3 \(shard -, host .*\) is not a shard of the run of s1\.csv:3 \(shard 1/2, host .*\): its rows record no plan \(not written by rwlab run\); merge takes the shards of one run's plan$" \
		"$rwlab" merge -o lazy-m.csv $order
	[ -e lazy-m.csv ] && fail "merge $order wrote lazy-m.csv"
done
# ... files none of which records a plan are merged as before (an older rwlab's, bench-lazy's)
"$rwlab" merge -o lazy-m.csv lazy.csv 2>err || fail "merge of a bench-lazy file alone: exit $?: $(cat err)"

# report over the shards = report over the merged file.
"$rwlab" report s1.csv s2.csv --matrix ./tiny.matrix >r1 2>/dev/null || fail "report over 2 shards: exit $?"
"$rwlab" report m.csv --matrix ./tiny.matrix >r2 2>/dev/null
grep -q '^Hmean' r1 && cmp -s r1 r2 || fail "report over the shards differs from report over the merged file"

# --time in none of sbatch's forms: refused before the plan is read (the job failed later, or
# --submit said sbatch's error, exit 1); each form it takes is written
for t in abc 1:2:3:4 1: 2-1-2 1h; do
	expect "slurm --time $t" 2 "^rwlab slurm: bad --time '$t' \(valid: Slurm's MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, INFINITE or UNLIMITED\)$" \
		"$rwlab" slurm --matrix ./tiny.matrix --time "$t" --dir "$tmp/slt"
done
for t in 30 30:00 1:00:00 2-12 2-12:30 2-12:30:00 INFINITE UNLIMITED; do
	"$rwlab" slurm --matrix ./tiny.matrix --time "$t" --dir "$tmp/slt" >/dev/null 2>err || fail "slurm --time $t: exit $?: $(cat err)"
	grep -qxF -- "#SBATCH --time=$t" "$tmp/slt/rwlab.sbatch" || fail "slurm --time $t: not in the script"
done

# one shard said in the singular (it said "1 of 1 shards to run")
"$rwlab" slurm --matrix ./tiny.matrix --shards 1 --dir "$tmp/sl1" >out 2>err || fail "slurm --shards 1: exit $?: $(cat err)"
grep -q ': 1 of 1 shard to run (array ' out || fail "slurm --shards 1: $(grep 'to run' out)"

# The sbatch script, not submitted.
"$rwlab" slurm --matrix ./tiny.matrix --shards 2 --constraint skylake --dir "$tmp/sl" -- -d 50ms -n 2 >out 2>err ||
	fail "slurm (write only): $(cat err)"
s=$tmp/sl/rwlab.sbatch
for want in '#SBATCH --array=1,2' '#SBATCH --exclusive' '#SBATCH --constraint=skylake' "#SBATCH --output=$tmp/sl/shard-%a.log"; do
	grep -qxF -- "$want" "$s" || fail "script: no '$want'"
done
grep -q -- "bind=--cpu-bind=none" "$s" || fail "script: no --cpu-bind=none where the cluster binds tasks"
grep -q -- "--shard \"\$i/2\" -o \"\$d/\$h/shard-\$i.csv\" --resume --no-report" "$s" || fail "script: no --shard/--resume line"
sh -n "$s" || fail "script: not valid sh"
echo 0 >"$tmp/sl/shard-1.status"
"$rwlab" slurm --matrix ./tiny.matrix --shards 2 --dir "$tmp/sl" -- -d 50ms -n 2 >out 2>err
grep -qx '#SBATCH --array=2' "$s" || fail "with shard 1 finished the array is not 2: $(grep array "$s")"
"$rwlab" slurm --matrix ./tiny.matrix --shards 5 --dir "$tmp/sl" >out 2>err; [ $? = 2 ] || fail "--shards 5 of 4 blocks not refused"
grep -q 'the plan has only 4 comparison blocks' err || fail "--shards 5: $(cat err)"
# run's lines (the plan) pass through a file in $TMPDIR (it was tmpfile()'s, in /tmp whatever TMPDIR said):
# one that exists is used, run's refusal said as slurm's; one that does not is named, nothing written
mkdir "$tmp/td"
TMPDIR=$tmp/td "$rwlab" slurm --matrix ./tiny.matrix --shards 2 --dir "$tmp/sl" -- -d 50ms -n 2 >out 2>err ||
	fail "slurm with TMPDIR=$tmp/td: exit $?: $(cat err)"
TMPDIR=$tmp/td expect "slurm -l nosuch with a TMPDIR" 2 "^rwlab slurm: unknown lock variant 'nosuch' \(valid: all, " \
	"$rwlab" slurm -l nosuch --dir "$tmp/sl"
[ -z "$(ls -A "$tmp/td")" ] || fail "slurm left files in TMPDIR: $(ls -A "$tmp/td")"
rm "$s"
TMPDIR=$tmp/none expect "slurm with TMPDIR=$tmp/none" 1 "^rwlab slurm: cannot make a temporary file in $tmp/none: No such file or directory$" \
	"$rwlab" slurm --matrix ./tiny.matrix --shards 2 --dir "$tmp/sl" -- -d 50ms -n 2
[ -e "$s" ] && fail "slurm with TMPDIR=$tmp/none wrote its script"
# a plan run refuses, or no temporary file: --dir is not created (it was, empty, before the plan was read)
expect "slurm -l nosuch, a new --dir" 2 "^rwlab slurm: unknown lock variant 'nosuch' \(valid: all, " \
	"$rwlab" slurm -l nosuch --dir "$tmp/new-dir"
TMPDIR=$tmp/none expect "slurm with TMPDIR=$tmp/none, a new --dir" 1 "^rwlab slurm: cannot make a temporary file" \
	"$rwlab" slurm --matrix ./tiny.matrix --dir "$tmp/new-dir2"
[ -e "$tmp/new-dir" ] || [ -e "$tmp/new-dir2" ] && fail "slurm created --dir for a plan it did not write"

[ $fails = 0 ] && echo "all shard and merge checks passed"
exit $((fails > 0))
