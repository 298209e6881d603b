#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# One pft cell (mmap_lock, 128 clients, icx-8336c-2s128) per value of one
# machine-file cost key, in a copy of the machine file passed by path.
#   sweep.sh KEY SEED VALUE...   prints: KEY VALUE SEED faults/sec pgd-read-misses mm-line-transfers (remote)
# THREADS (default 128), MM_LOCK (default mmap) and WARMUP (default 0; the matrix has 1s) pick another cell.
# Needs build/rwlab (tools/setup); run from the repository root.
set -eu
key=$1 seed=$2
shift 2
src=sim/machines/icx-8336c-2s128.machine
tmp=${TMPDIR:-/tmp}/fragility.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
for v in "$@"; do
	mkdir -p "$tmp/$v"
	m=$tmp/$v/icx-8336c-2s128.machine	# the file name must be the machine's name
	# the value only: the line's citation comment stays
	sed "s|^\($key *= *\)[0-9.]*|\1$v|" "$src" > "$m"
	grep -q "^$key *= *$v " "$m" || { echo "sweep: $key not set to $v" >&2; exit 2; }
	[ -d sim/machines/c2c ] && cp -r sim/machines/c2c "$tmp/$v/"	# c2c.pairs (sim-12) is relative to the file
	RWLAB_SIM_STATS=2 build/rwlab run --sim "$m" -l rwsem:hung_task_blocker=0 -w pft -t "${THREADS:-128}" -n 1 \
		--warmup "${WARMUP:-0}" --mm-lock "${MM_LOCK:-mmap}" --seed "$seed" -q --no-report -o "$tmp/o.csv" 2> "$tmp/err" > /dev/null ||
		{ cat "$tmp/err" >&2; exit 1; }
	fs=$(awk -F, '$8 == "faults/sec" { printf "%.0f", $9 }' "$tmp/o.csv")
	pgd=$(tools/sim-prof "$tmp/err" | awk '/ load .*handle_mm_fault\+0x[0-9a-f]+$/ && !d { print $5; d = 1 }')
	hot=$(awk '/the hottest lines/ { getline; print $6, $7; exit }' "$tmp/err")
	echo "$key $v $seed $fs $pgd $hot"
done
