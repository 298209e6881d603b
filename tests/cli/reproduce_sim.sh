#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/reproduce NAME --sim for each of the four published tables, each made small:
# the simulated generic-8 instead of the table's machine, a few simulated milliseconds, and the
# runs cut down with --set or -- options. Checks what each run must show: a new directory under
# sim/, the CSV's variants, workloads and thread counts, the matrix as run, and a verdict on the
# rows that were compared.
# Usage: reproduce_sim.sh RWLAB SOURCE_ROOT [PART]: PART is a table's name, or native (the
# native loader's sim_* keys), or stop (a run stopped or refused: what it keeps); without it, all six. meson runs each part as a test of its own
# (reproduce-sim-PART), so they run in parallel.
set -u
rwlab=$1 root=$2 part=${3:-}
case $part in
'' | per-vma-locks | lazy-mm-hazptr | hugetlb-vmemmap | rwsem-rework | native | stop) ;;
*) echo "reproduce_sim.sh: unknown part '$part' (valid: per-vma-locks lazy-mm-hazptr hugetlb-vmemmap rwsem-rework native stop)" >&2; exit 2 ;;
esac
# want PART: that part runs (it was asked for, or every part was)
want() { [ -z "$part" ] || [ "$part" = "$1" ]; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }

if [ ! -x "$(dirname "$rwlab")/rwlab-sim" ]; then
	echo "no rwlab-sim beside $rwlab: skipped"
	exit 77
fi

# repro NAME [reproduce options] [-- run options]: one run into $tmp/NAME; sets $dir
# (empty, and nothing runs, when NAME is not a part that runs)
repro() {
	local name=$1
	shift
	dir=
	want "$name" || return 0
	RWLAB_RESULTS_DIR=$tmp/$name "$root/tools/reproduce" "$name" --sim generic-8 --no-plots --rwlab "$rwlab" "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err" || fail "$name --sim: $(tail -2 "$tmp/$name.err")"
	dir=$(find "$tmp/$name/sim" -mindepth 1 -maxdepth 1 -type d -name "$name-*" 2>/dev/null | head -1)
	[ -n "$dir" ] || fail "$name --sim made no sim/$name-* directory"
}
# cells DIR NAME: "variant workload threads" of every CSV row, sorted, unique
cells() { tail -n +2 "$1/$2.csv" | grep -v '^#' | cut -d, -f4-6 | tr ',' ' ' | sort -u | paste -sd';'; }
# verdict NAME CLIENTS: the report row for CLIENTS has a verdict
verdict() {
	grep -Eq "^$2 .*\| *[0-9]+ .*\| (agree|disagree|inconclusive|published-flat|scale-gap)" "$tmp/$1.out" ||
		fail "$1 --sim: no verdict on the $2-client row: $(grep -E "^$2 " "$tmp/$1.out" | head -2)"
}

# closing OUT MACHINE: per-vma-locks' rows that did not reproduce (the last tally's disagree +
# agree-direction, and the published-flat rows where rwlab's change is significant, from its
# direction line) are counted in one line that points to the table's own results/sim README, named
# for the table's machine since this run is on MACHINE; none, no line. Sets $off and $flat.
closing() {
	local t dis ad rows=rows line
	t=$(grep -E '^agree [0-9]+, agree-direction [0-9]+, disagree [0-9]+' "$1" | tail -1)
	dis=$(sed -nE 's/.*disagree ([0-9]+),.*/\1/p' <<<"$t") ad=$(sed -nE 's/.*agree-direction ([0-9]+),.*/\1/p' <<<"$t")
	flat=$(grep '^direction: ' "$1" | tail -1 | sed -nE 's/.*\(rwlab significant there: ([0-9]+)\)$/\1/p')
	[ -n "$flat" ] || fail "per-vma-locks on $2: no 'rwlab significant there' count in the report's direction line"
	off=$((dis + ad + flat))
	[ "$off" = 1 ] && rows=row	# not '1 rows'
	line="per-vma-locks: $off $rows did not reproduce \\(disagree $dis, agree-direction $ad, published flat but rwlab significant $flat\\); results/sim/per-vma-locks/README.md explains"
	if [ "$2" = icx-8336c-2s128 ]; then
		line+=" each from the model"
	else
		line+=" those of the table's own machine, icx-8336c-2s128, from the model \\(this run: $2\\)"
	fi
	if [ "$off" -gt 0 ]; then
		grep -Eq "^$line$" "$1" || fail "per-vma-locks on $2: $off rows off, no line counting them: $(tail -3 "$1")"
	elif grep -q 'did not reproduce' "$1"; then
		fail "per-vma-locks on $2: every row reproduced, yet: $(grep 'did not reproduce' "$1")"
	fi
}

# per-vma-locks: one run of the matrix (no sim_run), threads cut to 1 and 4.
repro per-vma-locks -- -n 2 -t 1,4 -q
if [ -n "$dir" ]; then
	want="rwsem:hung_task_blocker=0 pft 1;rwsem:hung_task_blocker=0 pft 4;rwsem:hung_task_blocker=0 pft:mm_lock=vma 1;rwsem:hung_task_blocker=0 pft:mm_lock=vma 4"
	[ "$(cells "$dir" per-vma-locks)" = "$want" ] || fail "per-vma-locks cells: $(cells "$dir" per-vma-locks)"
	verdict per-vma-locks 1
	verdict per-vma-locks 4
	closing "$tmp/per-vma-locks.out" generic-8
	grep -q 'did not reproduce' "$dir/per-vma-locks.report.txt" || [ "$off" -eq 0 ] ||
		fail "per-vma-locks: the pointer is not in per-vma-locks.report.txt"
	# the matrix's deviation lines describe its own run: this run's -- options are said after them
	grep -q "^- this run's own options: -- -n 2 -t 1,4 -q; where a line above says otherwise" "$tmp/per-vma-locks.out" ||
		fail "per-vma-locks: the deviations do not say this run's own options: $(grep -c '^- ' "$tmp/per-vma-locks.out") lines"
	# written outside a checkout: the matrix as run names the reference by an absolute path (a
	# relative one would break when the directory is moved), and report still reads it from a copy
	if ! git -C "$dir" rev-parse --show-toplevel >/dev/null 2>&1; then
		ref=$(sed -n 's/^reference *= *//p' "$dir/per-vma-locks.sim.matrix")
		case $ref in
		/*) [ -f "$ref" ] || fail "per-vma-locks: the matrix as run names a missing reference $ref" ;;
		*) fail "per-vma-locks: written outside a checkout, the matrix as run names the reference relatively: $ref" ;;
		esac
		mkdir -p "$tmp/a/b/c/d/e/f" && cp -r "$dir" "$tmp/a/b/c/d/e/f/moved"	# deeper than the run: a relative path breaks
		"$rwlab" report "$tmp/a/b/c/d/e/f/moved/per-vma-locks.csv" --matrix per-vma-locks >"$tmp/moved.out" 2>"$tmp/moved.err" ||
			fail "per-vma-locks: report on the moved directory: $(tail -1 "$tmp/moved.err")"
		grep -q 'does not load' "$tmp/moved.err" &&
			fail "per-vma-locks: report on the moved directory did not load its matrix as run: $(cat "$tmp/moved.err")"
	fi
fi

# per-vma-locks as committed (icx-8336c-2s128, reported from its CSV: no simulation here): the published
# row of the per-VMA throughput at 21 clients is flat, rwlab's change significant; that row did not
# reproduce either, and the closing line counts it.
if want per-vma-locks; then
	"$root/tools/reproduce" per-vma-locks --sim --no-plots --rwlab "$rwlab" --out "$tmp/pvl-committed" \
		--csv "$root/results/sim/per-vma-locks/reproduce-v64layout-20261204/per-vma-locks.csv" \
		>"$tmp/pvl-committed.out" 2>"$tmp/pvl-committed.err" || fail "per-vma-locks --csv: $(tail -2 "$tmp/pvl-committed.err")"
	closing "$tmp/pvl-committed.out" icx-8336c-2s128
	[ "${flat:-0}" -ge 1 ] || fail "per-vma-locks --csv: no published-flat row where rwlab is significant: $(grep '^direction: ' "$tmp/pvl-committed.out")"
fi

# lazy-mm-hazptr: sim_locks null, sim_options --pin cores, two sim_run pieces (context_switch,
# tlb_flush), both cut to 24 threads here.
repro lazy-mm-hazptr --set 'sim_run=context_switch | 24' --set 'sim_run=tlb_flush | 24 | -d 1ms' -- -n 2 -d 1ms --warmup 200us -q
if [ -n "$dir" ]; then
	want="hazptr context_switch 24;hazptr tlb_flush 24;refcount context_switch 24;refcount tlb_flush 24"
	[ "$(cells "$dir" lazy-mm-hazptr)" = "$want" ] || fail "lazy-mm-hazptr cells: $(cells "$dir" lazy-mm-hazptr)"
	[ "$(grep -c '^schema,' "$dir/lazy-mm-hazptr.csv")" = 1 ] || fail "lazy-mm-hazptr: the joined CSV has more than one header"
	grep -q "^- this run's own options: --set 'sim_run=context_switch | 24' --set 'sim_run=tlb_flush | 24 | -d 1ms' -- -n 2 -d 1ms" "$tmp/lazy-mm-hazptr.out" ||
		fail "lazy-mm-hazptr: the deviations do not say this run's --set and -- options"
	for w in context_switch tlb_flush; do	# each row's run: its context line says the pinning and the machine
		run=$(grep -m1 ",$w,24," "$dir/lazy-mm-hazptr.csv" | cut -d, -f2)
		grep -q "^# context,run=$run,pin=cores,cpus=8,\"cpu_model=sim generic-8: " "$dir/lazy-mm-hazptr.csv" ||
			fail "lazy-mm-hazptr: $w not pinned cores on generic-8"
	done
	grep -q '^locks *= *null$' "$dir/lazy-mm-hazptr.sim.matrix" || fail "lazy-mm-hazptr: sim_locks did not replace locks"
	grep -q '^threads *= 24,48,96,128,192$' "$dir/lazy-mm-hazptr.sim.matrix" ||
		fail "lazy-mm-hazptr: the matrix as run lacks sim_threads"
	verdict lazy-mm-hazptr 24
fi
if want lazy-mm-hazptr; then
	# -- -t LIST replaces the thread counts of the matrix's sim_run lines (both went to rwlab run:
	# 'thread count 24 given twice in -t'), and -- -t 0 is refused naming the user's list alone
	RWLAB_RESULTS_DIR=$tmp/own-t "$root/tools/reproduce" lazy-mm-hazptr --sim generic-8 --no-plots --rwlab "$rwlab" \
		-- -n 1 -d 1ms --warmup 200us -q -t 24 >"$tmp/own-t.out" 2>"$tmp/own-t.err" ||
		fail "lazy-mm-hazptr -- -t 24: $(tail -2 "$tmp/own-t.err")"
	dir=$(find "$tmp/own-t/sim" -mindepth 1 -maxdepth 1 -type d -name 'lazy-mm-hazptr-*' 2>/dev/null | head -1)
	[ -n "$dir" ] && [ "$(cells "$dir" lazy-mm-hazptr)" = "hazptr context_switch 24;hazptr tlb_flush 24;refcount context_switch 24;refcount tlb_flush 24" ] ||
		fail "lazy-mm-hazptr -- -t 24 cells: $(cells "$dir" lazy-mm-hazptr)"
	RWLAB_RESULTS_DIR=$tmp/zero-t "$root/tools/reproduce" lazy-mm-hazptr --sim generic-8 --no-plots --rwlab "$rwlab" \
		-- -t 0 >/dev/null 2>"$tmp/zero-t.err"
	[ $? = 2 ] && grep -q "^rwlab run: bad thread list '0': '0' is out of range" "$tmp/zero-t.err" ||
		fail "lazy-mm-hazptr -- -t 0: $(cat "$tmp/zero-t.err")"
	# every spelling of -t that rwlab run takes replaces sim_run's 2 (else the plan has 2 and 4), and
	# a value that looks like -t is an option's value (the plan keeps 2): --list-cells runs nothing
	for opts in '-qt 4' '-qt4' '--thread 4' '--thr=4' '-n 1 -t4' '-qn1 --t 4' '-qn1' '--csv -t' '-qo -t'; do
		want=4
		case $opts in *-qn1 | *-t) want=2 ;; esac
		# shellcheck disable=SC2086 # the options are words
		got=$(RWLAB_RESULTS_DIR=$tmp/spell-t "$root/tools/reproduce" lazy-mm-hazptr --sim generic-8 --no-plots \
			--rwlab "$rwlab" --set 'sim_run=context_switch | 2' -- --list-cells $opts 2>"$tmp/spell-t.err" |
			awk '/^[0-9]+\.[0-9]+ / { print $4 }' | sort -un | paste -sd,)
		[ "$got" = $want ] || fail "lazy-mm-hazptr -- $opts: the plan's thread counts are '$got', not $want: $(tail -1 "$tmp/spell-t.err")"
	done
	# -- --list-cells alone: the plan's cells, exit 0, no report tried (it said "rwlab report: cannot
	# read ...csv" and left the directory it made)
	RWLAB_RESULTS_DIR=$tmp/list "$root/tools/reproduce" lazy-mm-hazptr --sim generic-8 --no-plots --rwlab "$rwlab" \
		--set 'sim_run=context_switch | 2' -- --list-cells >"$tmp/list.out" 2>"$tmp/list.err"
	rc=$?
	[ $rc = 0 ] && [ ! -s "$tmp/list.err" ] && [ -z "$(find "$tmp/list" -mindepth 2 2>/dev/null)" ] &&
		[ "$(grep -c '^[0-9][0-9]*\.[0-9]* .* context_switch 2 ' "$tmp/list.out")" = 2 ] ||
		fail "lazy-mm-hazptr -- --list-cells: exit $rc, left $(find "$tmp/list" -mindepth 2 | head -2): $(cat "$tmp/list.err")"
	# an rwlab whose help --bash gives no run options (an older one; here one whose help fails): which
	# options give -t cannot be told, so one line and nothing run (the plan had sim_run's 2 and the 4)
	mkdir -p "$tmp/old rwlab"
	printf '#!/bin/sh\n[ "$1" = help ] && exit 2\nexec "%s" "$@"\n' "$rwlab" >"$tmp/old rwlab/rwlab"
	chmod +x "$tmp/old rwlab/rwlab"
	ln -s "$(dirname "$rwlab")/rwlab-sim" "$tmp/old rwlab/rwlab-sim"
	RWLAB_RESULTS_DIR=$tmp/old-t "$root/tools/reproduce" lazy-mm-hazptr --sim generic-8 --no-plots \
		--rwlab "$tmp/old rwlab/rwlab" --set 'sim_run=context_switch | 2' -- --list-cells -t 4 >"$tmp/old-t.out" 2>"$tmp/old-t.err"
	rc=$?
	[ $rc = 2 ] && [ ! -s "$tmp/old-t.out" ] && [ ! -e "$tmp/old-t" ] && [ "$(wc -l <"$tmp/old-t.err")" = 1 ] &&
		grep -q "^reproduce: cannot tell whether the options after -- give a thread list (it replaces sim_run's): '$tmp/old rwlab/rwlab help --bash' lists no option --threads of rwlab run" "$tmp/old-t.err" ||
		fail "lazy-mm-hazptr with an rwlab without run's completion, -- -t 4: exit $rc: $(head -c 300 "$tmp/old-t.out") $(cat "$tmp/old-t.err")"
fi

# hugetlb-vmemmap: 8 simulated CPUs (sim_threads = cpus), a 36 MiB region (4 MiB per process).
u=36
repro hugetlb-vmemmap --set "sim_workloads=vmscale:batch,unit_mb=$u, vmscale:sync,unit_mb=$u" \
	--set "sim_baseline=vmscale:batch,unit_mb=$u" \
	--set "sim_map.column=5a4d8944d6b1e(parent) -> vmscale:batch,unit_mb=$u" \
	--set "sim_map.column=bd225530a4c71(sync-rcu) -> vmscale:sync,unit_mb=$u" -- -n 2 -q
if [ -n "$dir" ]; then
	for p in batch sync; do	# (the label's comma is quoted in the CSV)
		grep -q "^[^,]*,[^,]*,[^,]*,null,\"vmscale:$p,unit_mb=$u\",8," "$dir/hugetlb-vmemmap.csv" ||
			fail "hugetlb-vmemmap: no vmscale:$p rows at 8 threads (sim_threads = cpus)"
	done
	[ "$(tail -n +2 "$dir/hugetlb-vmemmap.csv" | grep -v '^#' | grep -v ',null,"vmscale:[a-z]*,unit_mb=36",8,' | wc -l)" = 0 ] ||
		fail "hugetlb-vmemmap: rows of other cells"
	grep -q "^# --set sim_baseline=vmscale:batch,unit_mb=$u" "$dir/hugetlb-vmemmap.sim.matrix" ||
		fail "hugetlb-vmemmap: the matrix as run does not say what --set changed"
	grep -q "^baseline *= vmscale:batch,unit_mb=$u$" "$dir/hugetlb-vmemmap.sim.matrix" ||
		fail "hugetlb-vmemmap: sim_baseline did not replace baseline"
	[ "$(grep -c '^all .*| *8 .*| scale-gap' "$tmp/hugetlb-vmemmap.out")" = 2 ] ||
		fail "hugetlb-vmemmap: throughput and nvcsw rows want scale-gap at 8 of 128 CPUs: $(grep '^all' "$tmp/hugetlb-vmemmap.out")"
	grep -q '^  agree 0, .*, scale-gap 1 of 1 row (' "$tmp/hugetlb-vmemmap.out" ||
		fail "hugetlb-vmemmap: a block's one row not said in the singular: $(grep 'scale-gap' "$tmp/hugetlb-vmemmap.out" | head -n 1)"
fi

# rwsem-rework: two sim_run lines, reaim's unpinned; one CSV of both runs. pft as the matrix maps
# it (kernel=v5.0, the table's kernel); reaim without the knob (a quoted label would split cells' cut).
repro rwsem-rework --set 'sim_run=pft:kernel=v5.0 | 1,4' --set 'sim_run=reaim:compute | 1 | --pin none' -- -n 2 -d 2ms --warmup 1ms -q
if [ -n "$dir" ]; then
	want="rwsem-rspin pft:kernel=v5.0 1;rwsem-rspin pft:kernel=v5.0 4;rwsem-rspin reaim:compute 1;rwsem-xadd pft:kernel=v5.0 1;rwsem-xadd pft:kernel=v5.0 4;rwsem-xadd reaim:compute 1"
	[ "$(cells "$dir" rwsem-rework)" = "$want" ] || fail "rwsem-rework cells: $(cells "$dir" rwsem-rework)"
	[ "$(grep -c '^schema,' "$dir/rwsem-rework.csv")" = 1 ] || fail "rwsem-rework: the joined CSV has more than one header"
	run=$(grep -m1 ',reaim:compute,1,' "$dir/rwsem-rework.csv" | cut -d, -f2)
	grep -q "^# context,run=$run,pin=none,cpus=8," "$dir/rwsem-rework.csv" || fail "rwsem-rework: reaim was not run with --pin none"
	[ "$(grep -cE '^command:  (.*/)?rwlab run --sim generic-8 (.* )?--matrix [^ ]*rwsem-rework.sim.matrix -w ' "$dir/rwsem-rework.context.txt")" = 2 ] ||
		fail "rwsem-rework: the context file lacks the two runs' commands"
	verdict rwsem-rework 1
	verdict rwsem-rework 4
fi

# The native loader takes the sim_* keys and refuses an unknown one.
# tests/sim/tables.sh (benchmark sim-tables) checks its arguments before any table runs: a bad
# one is exit 2 at once (an unknown name was refused only when reached, after the tables before
# it; no rwlab was "$1: unbound variable", or every table FAILED in turn).
if want native; then
	for args in "" "/nonexistent/rwlab" "$rwlab per-vma-locks nosuch"; do
		# shellcheck disable=SC2086
		timeout 10 bash "$root/tests/sim/tables.sh" $args >"$tmp/tables.out" 2>&1
		rc=$?
		[ $rc = 2 ] && [ "$(wc -l <"$tmp/tables.out")" = 1 ] && grep -q '^tables.sh: ' "$tmp/tables.out" ||
			fail "tables.sh $args: exit $rc, want 2 and one line: $(head -c 300 "$tmp/tables.out")"
	done
	RWLAB_TABLES_JOBS=0 timeout 10 bash "$root/tests/sim/tables.sh" "$rwlab" hugetlb-vmemmap >"$tmp/tables.out" 2>&1
	rc=$?
	[ $rc = 2 ] && grep -q "^tables.sh: RWLAB_TABLES_JOBS='0'" "$tmp/tables.out" ||
		fail "tables.sh with RWLAB_TABLES_JOBS=0: exit $rc, want 2 and one line: $(head -c 300 "$tmp/tables.out")"
fi
if want native; then
	printf 'locks = null\nworkloads = locktest\nthreads = 1\nsim_bogus = 1\n' >"$tmp/bad.matrix"
	"$rwlab" run --matrix "$tmp/bad.matrix" --list-cells >/dev/null 2>"$tmp/bad.err" && fail "sim_bogus was accepted"
	grep -q "bad.matrix:4: unknown key 'sim_bogus'" "$tmp/bad.err" || fail "sim_bogus: $(cat "$tmp/bad.err")"
	for m in per-vma-locks lazy-mm-hazptr hugetlb-vmemmap rwsem-rework; do
		"$rwlab" run --matrix "$m" --list-cells >/dev/null 2>"$tmp/native.err" || fail "native $m: $(cat "$tmp/native.err")"
	done
	# a run refused before it measured anything leaves no results directory behind
	for bad in "--sim nosuch" "--sim generic-8 --set bogus_key=1"; do
		# shellcheck disable=SC2086
		RWLAB_RESULTS_DIR=$tmp/refused "$root/tools/reproduce" hugetlb-vmemmap $bad --no-plots --rwlab "$rwlab" \
			>/dev/null 2>"$tmp/refused.err"
		rc=$?
		[ $rc = 2 ] || fail "reproduce $bad: exit $rc, want 2: $(cat "$tmp/refused.err")"
		left=$(find "$tmp/refused" -mindepth 2 2>/dev/null | head -3)
		[ -z "$left" ] || fail "reproduce $bad left $left"
	done
	# an unknown machine is rwlab's one line, and no directory was made and removed to say it
	[ "$(RWLAB_RESULTS_DIR=$tmp/typo "$root/tools/reproduce" hugetlb-vmemmap --sim nosuch --no-plots --rwlab "$rwlab" \
		2>&1 >/dev/null | grep -c .)" = 1 ] || fail "reproduce --sim nosuch: not one line"
	[ -e "$tmp/typo" ] && fail "reproduce --sim nosuch made $(find "$tmp/typo" | head -3)"
	# a --set key the loader refuses: one line naming --set (it named a scratch file, then said the
	# results directory it had made was removed)
	RWLAB_RESULTS_DIR=$tmp/typo "$root/tools/reproduce" hugetlb-vmemmap --sim generic-8 --set bogus_key=1 --no-plots \
		--rwlab "$rwlab" >/dev/null 2>"$tmp/set.err"
	[ "$(wc -l <"$tmp/set.err")" = 1 ] && grep -q "^reproduce: --set: unknown key 'bogus_key' (valid: " "$tmp/set.err" ||
		fail "reproduce --set bogus_key=1: $(cat "$tmp/set.err")"
	[ -e "$tmp/typo" ] && fail "reproduce --set bogus_key=1 made $(find "$tmp/typo" | head -3)"
	# a --set KEY that a sim_ key takes the place of under --sim would change nothing: one line
	# naming the key to set (--set iterations=1 ran hugetlb-vmemmap's sim_iterations = 3)
	for kv in iterations=1 warmup=1ms threads=4 workloads=pft; do
		k=${kv%%=*}
		RWLAB_RESULTS_DIR=$tmp/shadow "$root/tools/reproduce" hugetlb-vmemmap --sim generic-8 --set "$kv" --no-plots \
			--rwlab "$rwlab" >/dev/null 2>"$tmp/shadow.err"
		rc=$?
		[ $rc = 2 ] && [ "$(wc -l <"$tmp/shadow.err")" = 1 ] &&
			grep -q "^reproduce: --set $k: under --sim .*sim_$k.*: give --set sim_$k=VALUE$" "$tmp/shadow.err" ||
			fail "reproduce --set $kv: exit $rc, want 2 and one line naming sim_$k: $(cat "$tmp/shadow.err")"
		[ -e "$tmp/shadow" ] && fail "reproduce --set $kv made $(find "$tmp/shadow" | head -3)"
	done
	# a sim_ key, or a key no sim_ key replaces, is taken
	# (the unknown machine, refused after the --set checks, stops it)
	RWLAB_RESULTS_DIR=$tmp/shadow "$root/tools/reproduce" hugetlb-vmemmap --sim nosuch --set sim_iterations=1 \
		--set significance=ci --no-plots --rwlab "$rwlab" >/dev/null 2>"$tmp/shadow.err"
	grep -q -- '--set' "$tmp/shadow.err" &&
		fail "reproduce --set sim_iterations=1 --set significance=ci: $(cat "$tmp/shadow.err")"
fi

if want stop; then
	# a refused run never removes a directory given with --out, nor what the user had in it
	mkdir -p "$tmp/mine" && echo keep >"$tmp/mine/notes.txt"
	"$root/tools/reproduce" hugetlb-vmemmap --sim nosuch --out "$tmp/mine" --no-plots --rwlab "$rwlab" >/dev/null 2>&1
	[ -f "$tmp/mine/notes.txt" ] || fail "reproduce --out DIR, refused, removed DIR's own file"
	# (a run option rwlab refuses: the directory is made first; a bad --set key is refused before)
	"$root/tools/reproduce" hugetlb-vmemmap --sim generic-8 --out "$tmp/new" --no-plots \
		--rwlab "$rwlab" -- -n 0 >/dev/null 2>&1
	[ -d "$tmp/new" ] || fail "reproduce --out NEWDIR, refused: the directory given was removed"

	# sim_run pieces into a results directory whose path holds '|', '&' and '\': each piece's
	# "results: <scratch CSV>" line says "piece N of M done" naming the CSV as written (a sed
	# filter broke on '|' and took rwlab down with SIGPIPE; '&' pasted the matched text in).
	# Not -q, which leaves that line out.
	odd="$tmp/odd|a&b\\c"
	RWLAB_RESULTS_DIR=$odd "$root/tools/reproduce" per-vma-locks --sim generic-8 --no-plots --rwlab "$rwlab" \
		--set 'sim_run=pft | 1' --set 'sim_run=pft | 2' -- -n 1 >"$tmp/odd.out" 2>"$tmp/odd.err" ||
		fail "reproduce into '$odd': exit $?: $(tail -2 "$tmp/odd.err")"
	dir=$(find "$odd/sim" -mindepth 1 -maxdepth 1 -type d -name 'per-vma-locks-*' 2>/dev/null | head -1)
	for i in 1 2; do
		[ "$(grep -cxF "piece $i of 2 done (joined into $dir/per-vma-locks.csv at the end)" "$tmp/odd.err")" = 1 ] ||
			fail "reproduce into '$odd': no one line 'piece $i of 2 done': $(cat "$tmp/odd.err")"
	done
	grep -q 'results: /' "$tmp/odd.err" && fail "reproduce: a piece's scratch CSV named: $(grep 'results: ' "$tmp/odd.err")"
	[ "$(tail -n +2 "$dir/per-vma-locks.csv" | grep -v '^#' | cut -d, -f6 | sort -u | paste -sd,)" = 1,2 ] ||
		fail "reproduce into '$odd': the joined CSV lacks the two pieces' rows"

	# Ctrl-C in piece 2 of 2: piece 1's rows (measured, in a scratch file until the join) and
	# piece 2's finished cells are joined into the CSV, and the directory stays (all of it was
	# removed, the rows with it)
	RWLAB_RESULTS_DIR=$tmp/stop setsid "$root/tools/reproduce" per-vma-locks --sim generic-8 --no-plots \
		--rwlab "$rwlab" --set 'sim_run=pft | 1 | -n 1' --set 'sim_run=pft | 4 | -n 200' -- -q \
		>"$tmp/stop.out" 2>"$tmp/stop.err" &
	pid=$!
	for _ in $(seq 600); do grep -q '^piece 1 of 2 done' "$tmp/stop.err" && break; sleep 0.1; done
	sleep 1
	kill -INT -- -$pid
	wait $pid
	rc=$?
	[ $rc = 130 ] || fail "reproduce stopped with Ctrl-C in piece 2: exit $rc, want 130: $(cat "$tmp/stop.err")"
	dir=$(find "$tmp/stop/sim" -mindepth 1 -maxdepth 1 -type d -name 'per-vma-locks-*' 2>/dev/null | head -1)
	if [ -z "$dir" ]; then
		fail "reproduce stopped in piece 2 removed its results directory, piece 1's rows with it"
	else
		[ "$(tail -n +2 "$dir/per-vma-locks.csv" | grep -v '^#' | grep -c ',pft,1,')" -gt 0 ] ||
			fail "reproduce stopped in piece 2: piece 1's rows are not in the CSV"
		[ "$(grep -c '^schema,' "$dir/per-vma-locks.csv")" = 1 ] || fail "reproduce stopped: the CSV has more than one header"
		grep -q "^reproduce: stopped in piece 2 of 2 (1 finished); the [0-9]* rows* measured \(is\|are\) in $dir/per-vma-locks.csv$" \
			"$tmp/stop.err" || fail "reproduce stopped: no line saying where the rows are: $(cat "$tmp/stop.err")"
		# rwlab run's own line: its count of cells, and no command that would go on in a scratch file
		grep -q "^rwlab run: interrupted in piece 2 of 2 [a-z0-9 ]*; its finished cells go into $dir/per-vma-locks.csv with the pieces before it$" \
			"$tmp/stop.err" || fail "reproduce stopped, rwlab run's line: $(grep 'rwlab run: interrupted' "$tmp/stop.err")"
	fi
	grep -q '/run-[0-9]*\.csv' "$tmp/stop.err" && fail "reproduce stopped: names a scratch file: $(cat "$tmp/stop.err")"

	# A piece whose cells fail (a must-be-zero count that is not): rwlab's line saying where they are
	# left out names the results CSV's piece, not the scratch file removed at exit
	RWLAB_FAULT_INJECT=must_be_zero RWLAB_RESULTS_DIR=$tmp/failing "$root/tools/reproduce" per-vma-locks --sim generic-8 \
		--no-plots --rwlab "$rwlab" --set 'sim_run=pft | 1 | -n 1' --set 'sim_run=pft | 2 | -n 1' -- -q \
		>"$tmp/failing.out" 2>"$tmp/failing.err"
	rc=$?
	[ $rc = 1 ] || fail "reproduce with a failing piece: exit $rc, want 1: $(cat "$tmp/failing.err")"
	dir=$(find "$tmp/failing/sim" -mindepth 1 -maxdepth 1 -type d -name 'per-vma-locks-*' 2>/dev/null | head -1)
	grep -qF "cells failed (left out of $dir/per-vma-locks.csv's piece 1 of 2, or marked cell_failed there): " \
		"$tmp/failing.err" || fail "reproduce with a failing piece: no line naming its piece: $(cat "$tmp/failing.err")"
	grep -q '/run-[0-9]*\.csv' "$tmp/failing.err" &&
		fail "reproduce with a failing piece: names a scratch file: $(grep '/run-[0-9]*\.csv' "$tmp/failing.err")"
	# ... and says that it failed, not that it was done (it said "piece 1 of 2 done", then "stopped
	# in piece 1 of 2 (0 finished)")
	grep -q '^piece 1 of 2 done' "$tmp/failing.err" && fail "reproduce with a failing piece: it says the piece was done"
	grep -q "^reproduce: piece 1 of 2 failed (exit 1), and the pieces after it were not run; the [0-9]* rows* measured \(is\|are\) in $dir/per-vma-locks.csv$" \
		"$tmp/failing.err" || fail "reproduce with a failing piece: no line saying so: $(tail -n 1 "$tmp/failing.err")"

	# A stop sent to the script alone (kill PID, not its group): the rwlab run in progress stops
	# at once too (it ran to its end first), the rows are kept as on a group's stop, and the exit
	# status is 128 + the signal. Job control gives the script a group of its own and leaves its
	# SIGINT as it is (a background job of a shell without it ignores SIGINT).
	# alone NAME SIG STATUS PATTERN [reproduce options]: start, wait for PATTERN in its stderr, send
	# SIG to the script alone; fails when it still runs 10 s later; sets $dir
	alone() {
		local name=$1 sig=$2 want=$3 pat=$4 pid rc
		shift 4
		set -m
		RWLAB_RESULTS_DIR=$tmp/$name "$root/tools/reproduce" per-vma-locks --sim generic-8 --no-plots \
			--rwlab "$rwlab" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
		pid=$!
		set +m
		for _ in $(seq 600); do grep -q "$pat" "$tmp/$name.err" 2>/dev/null && break; sleep 0.1; done
		sleep 1
		kill -"$sig" $pid 2>/dev/null
		for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
		if kill -0 $pid 2>/dev/null; then
			fail "reproduce given SIG$sig alone: still running 10 s later (its rwlab run was not stopped)"
			kill -TERM -- -$pid
		fi
		wait $pid
		rc=$?
		[ $rc = "$want" ] || fail "reproduce given SIG$sig alone: exit $rc, want $want: $(cat "$tmp/$name.err")"
		dir=$(find "$tmp/$name/sim" -mindepth 1 -maxdepth 1 -type d -name 'per-vma-locks-*' 2>/dev/null | head -1)
		[ -n "$dir" ] || fail "reproduce given SIG$sig alone removed its results directory, the rows with it"
	}
	# SIGTERM in piece 2 of 2: piece 1's rows and piece 2's finished cells joined, as on a group's stop
	alone alone-term TERM 143 '^piece 1 of 2 done' --set 'sim_run=pft | 1 | -n 1' --set 'sim_run=pft | 4 | -n 200' -- -q
	if [ -n "$dir" ]; then
		[ "$(tail -n +2 "$dir/per-vma-locks.csv" | grep -v '^#' | grep -c ',pft,1,')" -gt 0 ] ||
			fail "reproduce given SIGTERM alone in piece 2: piece 1's rows are not in the CSV"
		grep -q "^reproduce: stopped in piece 2 of 2 (1 finished); the [0-9]* rows* measured \(is\|are\) in $dir/per-vma-locks.csv$" \
			"$tmp/alone-term.err" || fail "reproduce given SIGTERM alone: no line saying where the rows are: $(cat "$tmp/alone-term.err")"
	fi
	# SIGINT in a run of one piece (16 cells, one at a time), once a cell is in the CSV: it stays
	alone alone-int INT 130 '^\[cells 1/' -j 1 -- -n 3 -t 1-8
	if [ -n "$dir" ]; then
		[ "$(tail -n +2 "$dir/per-vma-locks.csv" | grep -vc '^#')" -gt 0 ] ||
			fail "reproduce given SIGINT alone: the finished cells are not in the CSV: $(cat "$tmp/alone-int.err")"
	fi

	# Ctrl-C before any cell finished: no row, so the directory it made goes, and it says so
	RWLAB_RESULTS_DIR=$tmp/early setsid "$root/tools/reproduce" per-vma-locks --sim generic-8 --no-plots \
		--rwlab "$rwlab" --set 'sim_run=pft | 4 | -n 200' -- -q >"$tmp/early.out" 2>"$tmp/early.err" &
	pid=$!
	for _ in $(seq 100); do [ -n "$(find "$tmp/early" -name '*.sim.matrix' 2>/dev/null)" ] && break; sleep 0.1; done
	sleep 0.5
	kill -INT -- -$pid
	wait $pid
	rc=$?
	[ $rc = 130 ] || fail "reproduce stopped before a row: exit $rc, want 130"
	left=$(find "$tmp/early" -mindepth 2 2>/dev/null | head -3)
	[ -z "$left" ] || fail "reproduce stopped before a row left $left"
	grep -q '^reproduce: no row was measured; .* removed$' "$tmp/early.err" ||
		fail "reproduce stopped before a row: no line saying so: $(cat "$tmp/early.err")"
fi

exit $failed
