#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The must-show runs of issue 15, reproducible: as root, from the repository
# root, after tools/setup:  results/slurm/run.sh [RWLAB]
# 1. a one-node Slurm cluster (tools/slurm-one-node) runs tiny.matrix as a
#    4-shard job array (rwlab slurm --submit); the same matrix runs locally;
#    the cell sets and the headline figures are compared (compare.awk);
# 2. two shards run with different --seed, one with a tampered CPU model:
#    rwlab merge warns and names the difference; a missing shard is named.
# Writes results/slurm/*.txt. Native timings: record uptime with them.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rwlab=$(realpath "${1:-$root/build/rwlab}")
out=$root/results/slurm
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rwlab-slurm-results.XXXXXX")
trap '"$root/tools/slurm-one-node" stop "$tmp/cluster" 2>/dev/null; rm -rf "$tmp"' EXIT
up=$("$root/tools/slurm-one-node" start "$tmp/cluster") || exit 1
eval "$up"
m=$out/tiny.matrix

# Local, then Slurm, then local again: the two local runs show the drift of a shared machine.
{
	echo "\$ uptime"; uptime
	echo "\$ rwlab run --matrix results/slurm/tiny.matrix -q -o local.csv"
	"$rwlab" run --matrix "$m" -q -o "$tmp/local.csv" 2>&1
	echo "\$ uptime"; uptime
} >"$out/local.txt"
{
	echo "\$ uptime"; uptime
	echo "\$ rwlab slurm --matrix results/slurm/tiny.matrix --shards 4 --dir DIR --submit"
	s=$(date +%s.%N)
	"$rwlab" slurm --matrix "$m" --shards 4 --dir "$tmp/run" --submit 2>&1
	echo "exit $? after $(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
	echo "\$ cat DIR/rwlab.sbatch"; cat "$tmp/run/rwlab.sbatch"
	echo "\$ cat DIR/shard-1.log"; cat "$tmp/run/shard-1.log"
} >"$out/slurm-4-shards.txt"
{
	echo "\$ uptime"; uptime
	echo "\$ rwlab run --matrix results/slurm/tiny.matrix -q -o local2.csv"
	"$rwlab" run --matrix "$m" -q -o "$tmp/local2.csv" 2>&1
	echo "\$ uptime"; uptime
} >"$out/local2.txt"
cp "$tmp/run/merged.csv" "$tmp/local.csv" "$tmp/local2.csv" "$out/"
{
	echo "== A = merged (Slurm, 4 shards), B = local before it"
	awk -f "$out/compare.awk" "$out/merged.csv" "$out/local.csv"
	echo; echo "== A = merged (Slurm, 4 shards), B = local after it"
	awk -f "$out/compare.awk" "$out/merged.csv" "$out/local2.csv"
	echo; echo "== A = local before, B = local after (the machine's own drift)"
	awk -f "$out/compare.awk" "$out/local.csv" "$out/local2.csv"
} >"$out/compare.txt"

# Two shards with different seeds, one with a tampered CPU model; then a missing shard.
opts=(--matrix "$m" -n 2 -q --no-report)
{
	"$rwlab" run "${opts[@]}" --shard 1/2 -o "$tmp/a.csv" 2>/dev/null
	"$rwlab" run "${opts[@]}" --shard 2/2 --seed 7 -o "$tmp/b.csv" 2>/dev/null
	sed -i '2,$s/,\([0-9]*\),[^,]*,Linux /,\1,Tampered CPU 9000,Linux /' "$tmp/b.csv"
	cd "$tmp" || exit 1
	echo "\$ rwlab merge -o m.csv a.csv b.csv     # b: --seed 7, cpu_model edited to 'Tampered CPU 9000'"
	"$rwlab" merge -o m.csv a.csv b.csv 2>&1; echo "exit $?"
	echo "\$ rwlab merge a.csv                    # shard 2/2 missing"
	"$rwlab" merge a.csv 2>&1; echo "exit $?"
	grep -v ',locktest:load=10,1,' a.csv >a-failed.csv
	echo "\$ rwlab merge a-failed.csv b.csv       # a's cells at locktest t=1 removed (a failed cell)"
	"$rwlab" merge a-failed.csv b.csv 2>&1; echo "exit $?"
} >"$out/merge-checks.txt"
echo "written: $out/{slurm-4-shards,local,compare,merge-checks}.txt"
