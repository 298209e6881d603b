#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 26's items tried again as a new user would, from a clean clone:
#   git clone /work/main /tmp/clean-user && cd /tmp/clean-user && tools/setup
#   results/user/run.sh > results/user/transcript-DATE.txt 2>&1
# Each item: the commands as typed ($ ...), their output (cut where long) and
# exit status. Native runs are tiny; the machine's load is recorded (uptime).
set -u
cd "$(dirname "$0")/../.." || exit 1
w=$(mktemp -d "${TMPDIR:-/tmp}/rwlab-newuser.XXXXXX")
trap 'tools/slurm-one-node stop "$w/cluster" >/dev/null 2>&1; rm -rf "$w"' EXIT
export PATH=$PWD/build:$PATH
# x CMD...: print the command, run it in the scratch directory, its output (at most 25 lines) and status.
x() {
	echo "\$ $*"
	(cd "$w" && eval "$@") >"$w/.out" 2>&1
	local rc=$?
	if [ "$(wc -l <"$w/.out")" -gt 25 ]; then
		head -n 20 "$w/.out"
		echo "[... $(($(wc -l <"$w/.out") - 24)) lines ...]"
		tail -n 4 "$w/.out"
	else
		cat "$w/.out"
	fi
	echo "[exit $rc]"
	echo
}
item() { printf '\n==== %s\n\n' "$*"; }

echo "rwlab $(rwlab --version | cut -d' ' -f2-), $(uname -n), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "load: $(uptime)"

item "1. One thread limit, the real one, at parse time (native and --sim)"
x rwlab run -l rwsem,null -w locktest -t 1024 -n 1 -d 10ms -o t.csv
x rwlab run --sim generic-8 -l rwsem -w locktest -t 1024 -n 1 -d 1ms -o t.csv
x rwlab run -w context_switch -m refcount -t 300 -o t.csv
x "rwlab run -l rwsem -w locktest -t 1023 -n 1 -d 10ms -q -o t1023.csv; echo rows: \$(wc -l <t1023.csv)"

item "2. A simulated run says so: per-cell lines, the table; fault paths side by side; the sign"
x rwlab run --sim generic-8 -l rwsem,rwsem-xadd -t 2,4 -n 3 -d 1ms -o sim.csv
x rwlab report sim.csv -f mmtests
x rwlab run -l rwsem -w pft:size_mb=8 --mm-lock mmap,vma,vma-refcnt -t 1,2 -n 3 -o mm.csv
x rwlab report mm.csv -m faults/sec
printf '%s\n' schema,run,timestamp,variant,workload,threads,iteration,metric,value,unit,better \
	"3,r,t,old,gitcheckout,1,0,elapsed,10,s,lower" "3,r,t,old,gitcheckout,1,1,elapsed,10.2,s,lower" \
	"3,r,t,old,gitcheckout,1,2,elapsed,9.9,s,lower" "3,r,t,new,gitcheckout,1,0,elapsed,13.9,s,lower" \
	"3,r,t,new,gitcheckout,1,1,elapsed,14.1,s,lower" "3,r,t,new,gitcheckout,1,2,elapsed,14,s,lower" >"$w/lower.csv"
x rwlab report lower.csv -m elapsed

item "3. Slurm: one machine's cluster, any run, progress, result root, inventory"
x "eval \"\$(tools_dir=$PWD/tools; \$tools_dir/slurm-one-node start $w/cluster)\"; \
	rwlab slurm -l rwsem,null -w locktest -t 1,2 -n 3 -d 100ms --shards 2 --submit 2>&1 | grep -v '^\[cell\|WARNING: load'"
x "find rwlab-results -maxdepth 4 | sort"
x "cat rwlab-results/*/*/*/inventory"
x "grep -c '^srun:' rwlab-results/*/*/shard-*.log"
x rwlab slurm --time 1:00:00 -t 1,2 -l rwsem --name demo
x "tools=$PWD/tools; \$tools/slurm-one-node stop $w/cluster"

item "4. rwlab exec: programs it cannot interpose, the baseline, the unit, site names, one note"
x rwlab exec -l rwsem -- sh -c true
x "printf '#include <pthread.h>\nint main(void){pthread_rwlock_t l;pthread_rwlock_init(&l,0);return pthread_rwlock_rdlock(&l);}\n' >s.c && cc -static -o st s.c && rwlab exec -l rwsem -- ./st"
x rwlab exec -l none,passthrough,rwsem,rwsem-xadd,bravo -n 3 -t 2 --metric "'digests/s:higher=digests/s: ([0-9.]+)'" -- $PWD/build/tests/preload/ossl_driver 2 2000
x "LD_PRELOAD=$PWD/build/librwlab-preload.so RWLAB_LOCK=rwsem $PWD/build/tests/preload/preload_site 2>&1 | grep -A1 hottest"

item "5. Completion and the man page"
x "rwlab help --bash >c.bash; touch a.csv b.txt; for words in 'run --sim ' 'run --matrix ' 'sim ' 'sim show ' 'exec -l ' 'report ' 'report -f '; do \
	printf '%-16s -> ' \"rwlab \$words\"; bash -c '. ./c.bash; read -ra W <<<\"rwlab \$1\"; W+=(\"\"); COMP_WORDS=(\"\${W[@]}\"); COMP_CWORD=\$((\${#W[@]} - 1)); _rwlab; echo \"\${COMPREPLY[*]}\"' _ \"\$words\" | cut -c1-100; done"
x "rwlab help --man >rwlab.1 && MANWIDTH=90 man -l rwlab.1 | sed -n '/^ENVIRONMENT/,/^FILES/p' | head -12; grep -c '^\.SH' rwlab.1; grep '^\.SH' rwlab.1"
x "rwlab report sim.csv --reference nosuch.csv"
x "rwlab report mm.csv --reference per-vma-locks-pft 2>&1 | grep -m1 reference"

item "Noise and small inconsistencies"
x "RWLAB_FAULT_INJECT=loadavg rwlab run -l rwsem,null -t 1,2 -n 1 -d 10ms --no-report -o l.csv 2>&1 | grep -c WARNING"
x rwlab run --sim generic-8 -l rwsem -t 1,2 --list-cells
x "rwlab sim list | awk '{ if (length > m) m = length } END { print \"longest line:\", m }'"
x "rwlab help help | head -3"
x rwlab report sim.csv -z
x rwlab plot sim.csv -o x.jpg
x "head -1 sim.csv >header-only.csv; rwlab report header-only.csv"
x "rwlab plot --help | grep -A1 keep-script"
x rwlab run --mm-lock vma -l rwsem -t 1 -o x.csv
x rwlab run -l rwsem -m refcount -t 1 -n 1 -d 10ms -q --no-report -o lm.csv
x "rwlab run -t 1-4,8 -n 1 -d 10ms --no-report -o bare.csv 2>&1 >/dev/null | grep -e '-l not given' -e 'cells started'"
x "grep -o 'd=[^ ]* warmup=[^ ]*' bare.csv | sort -u"

item "README and .ci time claims"
x "grep -n 'about 35 s' $PWD/README.md; grep -n 'minutes' $PWD/.ci/run | head -2"
echo "load: $(uptime)"
