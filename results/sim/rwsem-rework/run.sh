#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The simulated rwsem-rework reproduction by hand (results/sim/rwsem-rework/README.md):
# one rwlab-sim run per workload at its published client counts (reaim's
# children unpinned, as re-aim forks them), then one CSV and the report
# beside the published table. Prints uptime and host time.
# The current way is `tools/reproduce rwsem-rework --sim` (the same pieces from
# the matrix's sim_run lines); this script is kept as the record of the hand run.
# Usage: results/sim/rwsem-rework/run.sh [-o DIR] [PIECE...]
#   -o DIR  where the CSVs, report and plots go; it must not exist yet (default:
#           results/sim/rwsem-rework/run-YYYYMMDD-HHMMSS, a new directory), so the
#           committed files beside this script are never written over.
#   PIECE   pft gitcheckout reaim-compute reaim-dbase-shared (default: all four).
# build/ must be built.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
rwlab=$root/build/rwlab
matrix=$here/rwsem-rework.sim.matrix
reaim_t=1,21,41,61,81,101,121,141,161
out=

usage() {
	echo "usage: $0 [-o DIR] [pft|gitcheckout|reaim-compute|reaim-dbase-shared ...]" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	-o) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	-h|--help) sed -n '3,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	-*) echo "run.sh: unknown option '$1'" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- pft gitcheckout reaim-compute reaim-dbase-shared
for piece in "$@"; do
	case $piece in
	pft|gitcheckout|reaim-compute|reaim-dbase-shared) ;;
	*) echo "run.sh: unknown piece '$piece'" >&2; exit 2 ;;
	esac
done
[ -n "$out" ] || out=$here/run-$(date -u +%Y%m%d-%H%M%S)
if [ -e "$out" ]; then
	echo "run.sh: $out exists; give a new directory with -o (nothing is written over)" >&2
	exit 2
fi
mkdir -p "$out"
cd "$out"
echo "## output directory: $(pwd)"

run() {
	name=$1
	shift
	echo "## $name: rwlab run --sim ivb-ep-2s40 --matrix rwsem-rework.sim.matrix $* -o $name.csv --no-report"
	echo "## $name: start $(uptime)"
	t0=$(date +%s)
	"$rwlab" run --sim ivb-ep-2s40 --matrix "$matrix" "$@" -o "$name.csv" --no-report -q
	t1=$(date +%s)
	echo "## $name: host time $((t1 - t0)) s; end $(uptime)"
}
for piece in "$@"; do
	case $piece in
	pft) run pft -w pft -t 1,4,7,12,21,30,40 ;;
	gitcheckout) run gitcheckout -w gitcheckout -t 40 ;;
	reaim-compute) run reaim-compute -w reaim:compute -t $reaim_t --pin none ;;
	reaim-dbase-shared) run reaim-dbase-shared -w reaim:new_dbase,reaim:shared -t $reaim_t --pin none ;;
	esac
done
pieces=
for f in pft gitcheckout reaim-compute reaim-dbase-shared; do
	if [ -r $f.csv ]; then pieces="$pieces $f.csv"; fi
done
set -- $pieces
{ head -1 "$1"; for f in "$@"; do tail -n +2 "$f"; done; } >rwsem-rework.csv
"$rwlab" report rwsem-rework.csv --matrix "$matrix" >rwsem-rework.report.txt
"$rwlab" plot rwsem-rework.csv -o rwsem-rework-%w.png >/dev/null
