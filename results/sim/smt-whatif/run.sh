#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# SMT execution sharing as a what-if (results/sim/smt-whatif/README.md): copies of two seed machines with
# smt.exec_yield = Y added (no machine file sets it), then the pft rung cells of skx-8180-2s112 and the
# rwsem-rework table's reaim compute cells of ivb-ep-2s40, unset and at each Y; prints the tables.
# Usage: run.sh RWLAB OUTDIR   (90 s to 2 minutes of wall with -j 2 on the 2-vCPU guest)
set -eu
[ $# = 2 ] && [ -x "$1" ] || { echo "usage: run.sh RWLAB OUTDIR" >&2; exit 2; }
rwlab=$1 out=$2 here=$(cd "$(dirname "$0")" && pwd)
machines=$here/../../../sim/machines
mkdir -p "$out"
# a cell's failure said, not hidden with the oversubscription warnings
fail() { echo "run.sh: $1 failed:" >&2; grep -v '^WARNING' "$out/run.err" | tail -5 >&2; exit 1; }
for m in skx-8180-2s112 ivb-ep-2s40; do
	for y in 1.0 1.25 1.5; do
		sed -e "/^sb.entries/a smt.exec_yield = $y   # [what-if] no published figure for the part: results/sim/smt-whatif/" \
		    -e "s/^name *= *.*/name = $m-y$y/" "$machines/$m.machine" >"$out/$m-y$y.machine"
	done
done
for m in skx-8180-2s112 "$out"/skx-8180-2s112-y*.machine; do
	b=$(basename "$m" .machine)
	for pin in compact cores none; do
		"$rwlab" run --sim "$m" -l rwsem:rtrylock=blind -w pft:size_mb=256,kernel=v5.12 -t 1,4,12,48,112 -n 1 \
			--pin $pin -j 2 -q --no-report -o "$out/pft-$pin-$b.csv" 2>"$out/run.err" || fail "pft $pin on $b"
	done
done
for m in ivb-ep-2s40 "$out"/ivb-ep-2s40-y*.machine; do
	b=$(basename "$m" .machine)
	"$rwlab" run --sim "$m" -l rwsem-xadd -w reaim:compute,kernel=v5.0 -t 1,21,41,161 -n 1 -d 2s --warmup 500ms \
		--pin none -j 2 -q --no-report -o "$out/reaim-$b.csv" 2>"$out/run.err" || fail "reaim on $b"
done
rm -f "$out/run.err"
python3 "$here/summary.py" "$out"
