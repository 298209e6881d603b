#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The simulated rwsem-rework reproduction (results/sim/rwsem-rework/README.md):
# one rwlab-sim run per workload at its published client counts (reaim's
# children unpinned, as re-aim forks them), then one CSV and the report
# beside the published table. Prints uptime and host time.
# Usage: results/sim/rwsem-rework/run.sh [PIECE...]   (default: every piece:
#        pft gitcheckout reaim-compute reaim-dbase-shared; build/ must be built)
set -eu
cd "$(dirname "$0")"
rwlab=../../../build/rwlab
reaim_t=1,21,41,61,81,101,121,141,161
run() {
	name=$1
	shift
	echo "## $name: rwlab run --sim ivb-ep-2s40 --matrix rwsem-rework.sim.matrix $* -o $name.csv --no-report"
	echo "## $name: start $(uptime)"
	t0=$(date +%s)
	"$rwlab" run --sim ivb-ep-2s40 --matrix rwsem-rework.sim.matrix "$@" -o "$name.csv" --no-report -q
	t1=$(date +%s)
	echo "## $name: host time $((t1 - t0)) s; end $(uptime)"
}
[ $# -gt 0 ] || set -- pft gitcheckout reaim-compute reaim-dbase-shared
for piece in "$@"; do
	case $piece in
	pft) run pft -w pft -t 1,4,7,12,21,30,40 ;;
	gitcheckout) run gitcheckout -w gitcheckout -t 40 ;;
	reaim-compute) run reaim-compute -w reaim:compute -t $reaim_t --pin none ;;
	reaim-dbase-shared) run reaim-dbase-shared -w reaim:new_dbase,reaim:shared -t $reaim_t --pin none ;;
	*) echo "run.sh: unknown piece '$piece'" >&2; exit 2 ;;
	esac
done
{ head -1 pft.csv; for f in pft gitcheckout reaim-compute reaim-dbase-shared; do [ -r $f.csv ] && tail -n +2 $f.csv; done; } >rwsem-rework.csv
"$rwlab" report rwsem-rework.csv --matrix rwsem-rework.sim.matrix >rwsem-rework.report.txt
"$rwlab" plot rwsem-rework.csv -o rwsem-rework-%w.png >/dev/null
