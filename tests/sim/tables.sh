#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The seed tables' time target, as `meson test --benchmark --suite sim sim-tables`: each seed table's
# `tools/reproduce NAME --sim -j 2` at its published size within 10 minutes of wall time.
# Published sizes: per-vma-locks and rwsem-rework as their matrices give them; lazy-mm-hazptr's
# context_switch at the published 24-192 pairs (its results' command); hugetlb-vmemmap as its
# matrix gives it (LKP's 508 huge pages a process, unit_mb 131072, -n 3 --warmup 0).
# Prints, per table: wall, user + system CPU of the whole reproduce, cells' rows, the md5 of the
# CSV's value columns (cut -d, -f4-10: compare two engines with it), and met / NOT MET; the load
# before and after (a loaded host's wall time says little). Exit status 1 when a table is over the
# target or fails.
# Usage: tables.sh RWLAB [NAME...]   (default: all four; --no-plots, output in a temporary directory)
# RWLAB_TABLES_JOBS=N runs reproduce with -j N instead (-j 1 against -j 2: the same md5s); the target
# is -j 2's, so other N print the times and judge none.
set -u
valid="per-vma-locks lazy-mm-hazptr hugetlb-vmemmap rwsem-rework"
jobs=${RWLAB_TABLES_JOBS:-2}
case $jobs in
'' | *[!0-9]* | 0) echo "tables.sh: RWLAB_TABLES_JOBS='$jobs': a number of jobs, 1 or more" >&2; exit 2 ;;
esac
# Every argument checked before the first table runs (one takes up to 11 minutes).
if [ $# -lt 1 ] || [ ! -x "$1" ] || [ -d "$1" ]; then
	echo "tables.sh: ${1:+no rwlab binary at '$1'; }usage: tables.sh RWLAB [NAME...] (NAME: $valid)" >&2
	exit 2
fi
rwlab=$1
shift
for name in "$@"; do
	case " $valid " in
	*" $name "*) ;;
	*) echo "tables.sh: unknown table '$name' (valid: $valid)" >&2; exit 2 ;;
	esac
done
root=$(cd "$(dirname "$0")/../.." && pwd)
target=600
tables=("$@")
[ ${#tables[@]} -gt 0 ] || read -ra tables <<<"$valid"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

echo "uptime before: $(uptime)"
echo "rwlab: $("$rwlab" --version 2>&1 | head -1); host: $(nproc) CPUs"
for name in "${tables[@]}"; do
	args=()
	case $name in
	per-vma-locks | rwsem-rework) ;;
	lazy-mm-hazptr) args=(--set 'sim_run=context_switch | 24, 48, 96, 128, 192') ;;
	hugetlb-vmemmap) ;;	# LKP's 508 pages a process, -n 3 --warmup 0: the matrix's sim_ keys
	esac
	out=$tmp/$name
	if ! /usr/bin/time -f '%e %U %S' -o "$tmp/$name.time" "$root/tools/reproduce" "$name" --sim -j "$jobs" --no-plots \
		--rwlab "$rwlab" --out "$out" "${args[@]}" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
		# each failed cell's own line (its reason), then the run's summary
		echo "$name: FAILED: $({ grep ': cell .* failed: ' "$tmp/$name.err" | head -3; tail -2 "$tmp/$name.err"; } | tr '\n' ' ')"
		status=1
		continue
	fi
	read -r wall user sys <"$tmp/$name.time"
	rows=$(grep -vc '^#' "$out/$name.csv")
	md5=$(grep -v '^#' "$out/$name.csv" | cut -d, -f4-10 | md5sum | cut -c1-32)
	verdict="target $target s: met"
	if [ "$jobs" != 2 ]; then
		verdict="-j $jobs (the target is -j 2's)"
	elif [ "$(echo "$wall > $target" | bc)" = 1 ]; then
		verdict="target $target s: NOT MET"
		status=1
	fi
	printf '%-16s wall %7.1f s  CPU %7.1f s  %6d rows  values md5 %s  %s\n' \
		"$name" "$wall" "$(echo "$user + $sys" | bc)" "$rows" "$md5" "$verdict"
done
echo "uptime after:  $(uptime)"
exit $status
