#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# rwlab slurm against a real Slurm: a one-node cluster started here by the
# user tool tools/slurm-one-node, a 4-shard job array of a small matrix
# submitted and waited for (with progress), merged, and compared with a local
# run of the same matrix: the same cells, the same metrics per cell and
# iteration, the same work where the work is deterministic (pft pages); the
# result root holds the host's directory and inventory. Then one shard is
# marked failed after its first cell and the same command resubmits only that
# shard, which resumes its CSV. Then an ad-hoc run (no matrix, run's own
# options, -t as run's) with the default result root. The cluster is torn
# down on every exit. Skips (exit 77, one line saying why) only when Slurm
# cannot start.
# Usage: slurm.sh RWLAB
set -uo pipefail
rwlab=$1
case $rwlab in /*) ;; *) rwlab=$PWD/$rwlab ;; esac
one_node=$(cd "$(dirname "$0")/../../tools" && pwd)/slurm-one-node
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rwlab-slurm-test.XXXXXX")
trap '"$one_node" stop "$tmp/cluster" 2>/dev/null; rm -rf "$tmp"' EXIT
t0=$(date +%s.%N)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

if ! up=$("$one_node" start "$tmp/cluster" 2>"$tmp/up.err"); then
	echo "SKIP: Slurm cannot start here: $(cat "$tmp/up.err")"
	exit 77
fi
eval "$up"
echo "one-node cluster up ($(sinfo -h -o '%N %c CPUs %T'), $SLURM_CONF) in $(since "$t0") s"

# 2 workloads x 2 thread counts = 4 comparison blocks of 3 variants.
printf 'locks = pthread, ck-rwlock, rwsem\nworkloads = locktest:load=10, pft:size_mb=16\nthreads = 1, 2\n%s\n' \
	'report = mmtests' >"$tmp/tiny.matrix"
run_opts=(-d 200ms -n 2 --warmup 0 -q)
cd "$tmp" || exit 1

# cells FILE: "variant,workload,threads" of each cell (labels here hold no comma).
cells() { awk -F, 'NR > 1 && !/^#/ { print $4 "," $5 "," $6 }' "$1" | sort -u; }
# keys FILE: "variant,workload,threads,iteration,metric" of each row.
keys() { awk -F, 'NR > 1 && !/^#/ { print $4 "," $5 "," $6 "," $7 "," $8 }' "$1" | sort; }

ts=$(date +%s.%N)
"$rwlab" slurm --matrix "$tmp/tiny.matrix" --shards 4 --dir "$tmp/run" --submit -- "${run_opts[@]}" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
echo "rwlab slurm --submit, 4 shards: exit $rc in $(since "$ts") s"
[ $rc = 0 ] || fail "rwlab slurm --submit exited $rc: $(cat "$tmp/err")"
script=$tmp/run/rwlab.sbatch
host=$(hostname -s)
grep -qx '#SBATCH --array=1,2,3,4' "$script" || fail "script: no '#SBATCH --array=1,2,3,4'"
grep -qx '#SBATCH --exclusive' "$script" || fail "script: no --exclusive"
grep -q -- 'bind=--cpu-bind=none' "$script" || fail "script: no --cpu-bind=none where the cluster binds tasks"
for i in 1 2 3 4; do
	[ "$(cat "$tmp/run/shard-$i.status" 2>/dev/null)" = 0 ] || fail "shard $i: status '$(cat "$tmp/run/shard-$i.status" 2>&1)'"
	[ "$(grep '^# context,' "$tmp/run/$host/shard-$i.csv" | grep -vc ",shard=$i/4,")" = 0 ] &&
		grep -q '^# context,' "$tmp/run/$host/shard-$i.csv" || fail "$host/shard-$i.csv: a run whose shard is not $i/4"
	grep -q 'could not pin' "$tmp/run/shard-$i.log" && fail "shard $i could not pin its threads: $(grep -m1 'could not pin' "$tmp/run/shard-$i.log")"
	# This cluster does not bind tasks (task/none): srun must not be asked to, nor say it cannot.
	grep -q '^srun:' "$tmp/run/shard-$i.log" && fail "shard $i log: $(grep -m1 '^srun:' "$tmp/run/shard-$i.log")"
done
# The host's inventory in its directory of the result root.
for k in cpu_model sockets cores threads_per_core kernel governor smt; do
	grep -q "^$k: ." "$tmp/run/$host/inventory" 2>/dev/null || fail "$host/inventory: no '$k:' line"
done
grep -q '^Hmean' "$tmp/out" || fail "no mmtests report after the merge: $(head -3 "$tmp/out")"
grep -q 'merge: 4 files, 12 cells, complete' "$tmp/err" || fail "merge not complete: $(cat "$tmp/err")"
# Progress while the array ran: the last line counts every cell and shard.
grep -q '^rwlab slurm: 12 of 12 cells done, 4 of 4 shards finished$' "$tmp/err" ||
	fail "no final progress line '12 of 12 cells done, 4 of 4 shards finished': $(grep 'cells done' "$tmp/err" | tail -n 2)"

# The same matrix locally: the merged file has exactly its cells, metrics and iterations.
"$rwlab" run --matrix "$tmp/tiny.matrix" "${run_opts[@]}" --no-report -o "$tmp/local.csv" 2>"$tmp/lerr" >/dev/null ||
	fail "local run: $(cat "$tmp/lerr")"
"$rwlab" run --matrix "$tmp/tiny.matrix" "${run_opts[@]}" --list-cells | awk '!/^#/ { print $5 "," $3 "," $4 }' |
	sort -u >"$tmp/plan"
cells "$tmp/run/merged.csv" >"$tmp/cells.merged"
cells "$tmp/local.csv" >"$tmp/cells.local"
[ "$(wc -l <"$tmp/plan")" = 12 ] || fail "the plan has $(wc -l <"$tmp/plan") cells, want 12"
cmp -s "$tmp/cells.merged" "$tmp/cells.local" || fail "merged and local cell sets differ: $(diff "$tmp/cells.merged" "$tmp/cells.local" | head -5)"
cmp -s "$tmp/cells.merged" "$tmp/plan" || fail "merged cells differ from --list-cells: $(diff "$tmp/cells.merged" "$tmp/plan" | head -5)"
keys "$tmp/run/merged.csv" >"$tmp/keys.merged"
keys "$tmp/local.csv" >"$tmp/keys.local"
cmp -s "$tmp/keys.merged" "$tmp/keys.local" || fail "merged and local rows differ in cell/iteration/metric: $(diff "$tmp/keys.merged" "$tmp/keys.local" | head -5)"
pages() { awk -F, '$8 == "pages" { print $4 "," $6 "," $7 "," $9 }' "$1" | sort; }
[ -n "$(pages "$tmp/local.csv")" ] && [ "$(pages "$tmp/run/merged.csv")" = "$(pages "$tmp/local.csv")" ] ||
	fail "pft pages differ between the merged and the local run"

# Resubmitting: only the failed shard runs again, and --resume keeps its finished cells.
# Shard 3 "failed" after its first cell (3 cells per block: keep the first cell's rows).
first=$(awk -F, 'NR > 1 && !/^#/ { print $4; exit }' "$tmp/run/$host/shard-3.csv")
awk -F, -v v="$first" 'NR == 1 || /^#/ || $4 == v' "$tmp/run/$host/shard-3.csv" >"$tmp/s3" && mv "$tmp/s3" "$tmp/run/$host/shard-3.csv"
echo 1 >"$tmp/run/shard-3.status"
"$rwlab" slurm --matrix "$tmp/tiny.matrix" --shards 4 --dir "$tmp/run" --submit -- "${run_opts[@]}" \
	>"$tmp/out2" 2>"$tmp/err2"
rc=$?
[ $rc = 0 ] || fail "resubmit exited $rc: $(cat "$tmp/err2")"
grep -q 'submitting 1 of 4 shards (array 3)' "$tmp/err2" || fail "resubmit did not submit only shard 3: $(head -3 "$tmp/err2")"
grep -q "resuming .*$host/shard-3.csv: 1 finished cells kept, 2 of this matrix to run" "$tmp/run/shard-3.log" ||
	fail "shard 3 did not resume: $(grep -m1 resum "$tmp/run/shard-3.log")"
grep -qx '#SBATCH --array=3' "$script" || fail "resubmit script: no '#SBATCH --array=3'"
cells "$tmp/run/merged.csv" | cmp -s - "$tmp/cells.local" || fail "after the resubmit the merged cells differ from the local run's"

# Any run, not only a matrix: run's own options (-t is run's thread list) and the
# default result root rwlab-results/NAME/GIT-REVISION.
ts=$(date +%s.%N)
"$rwlab" slurm -l rwsem,null -w locktest -t 1,2 "${run_opts[@]}" --shards 2 --submit >"$tmp/out3" 2>"$tmp/err3"
rc=$?
echo "rwlab slurm -l rwsem,null -w locktest -t 1,2 --submit, 2 shards: exit $rc in $(since "$ts") s"
[ $rc = 0 ] || fail "ad-hoc slurm run exited $rc: $(cat "$tmp/err3")"
root=$(ls -d "$tmp"/rwlab-results/run-*/* 2>/dev/null | head -n 1)
[ -n "$root" ] && [ "$(basename "$root")" = "$("$rwlab" --version | sed 's/.*(git \([^;]*\);.*/\1/')" ] ||
	fail "no result root rwlab-results/run-HASH/GIT-REVISION: $(ls -R "$tmp/rwlab-results" 2>&1 | head -5)"
[ "$(cells "$root/merged.csv" 2>/dev/null | tr '\n' ' ')" = "null,locktest,1 null,locktest,2 rwsem,locktest,1 rwsem,locktest,2 " ] ||
	fail "ad-hoc run's cells: $(cells "$root/merged.csv" 2>&1 | tr '\n' ' ')"

echo "slurm test: $([ $fails = 0 ] && echo passed || echo "$fails failures") in $(since "$t0") s"
exit $((fails > 0))
