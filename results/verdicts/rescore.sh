#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# results/verdicts/rescore.sh OLD_RWLAB NEW_RWLAB [OUT_DIR]
#
# Re-scores every committed CSV of the four seed tables (results/sim/*/ and the native
# results/2cpu/, results/16cpu/ ones) with the verdict rule before and after the verdict
# rework: OLD_RWLAB is rwlab built at 0952256 (main before it), NEW_RWLAB this tree's. Each
# CSV is reported with the matrix it was made with (the committed NAME.sim.matrix beside a
# simulated one, with the reference pointed at this tree's results/reference/; the native
# tools/matrices/NAME.matrix of each binary's own tree for a native one); the new scoring also
# takes the current matrix's (sim_)map.not_comparable lines. Writes OUT_DIR/N-old.json,
# N-new.json and N-new.txt per CSV (N in the order below) and prints rescore.py's tables.
set -euo pipefail
old=$1 new=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${3:-$(mktemp -d)}
oldroot=$(cd "$(dirname "$old")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name | csv | matrix ("native" = tools/matrices/NAME.matrix of each binary's tree)
cat >"$tmp/list" <<'LIST'
per-vma-locks|results/sim/per-vma-locks/per-vma-locks.csv|results/sim/per-vma-locks/per-vma-locks.sim.matrix
per-vma-locks|results/sim/per-vma-locks/reproduce-sim5-20261202/per-vma-locks.csv|results/sim/per-vma-locks/reproduce-sim5-20261202/per-vma-locks.sim.matrix
per-vma-locks|results/2cpu/per-vma-locks.csv|native
per-vma-locks|results/16cpu/per-vma-locks-16cpu.csv|native
rwsem-rework|results/sim/rwsem-rework/rwsem-rework.csv|results/sim/rwsem-rework/rwsem-rework.sim.matrix
rwsem-rework|results/sim/rwsem-rework/reproduce-20261202/rwsem-rework.csv|results/sim/rwsem-rework/reproduce-20261202/rwsem-rework.sim.matrix
rwsem-rework|results/sim/rwsem-rework/reproduce-sim5-20261202/rwsem-rework.csv|results/sim/rwsem-rework/reproduce-sim5-20261202/rwsem-rework.sim.matrix
rwsem-rework|results/2cpu/rwsem-rework.csv|native
lazy-mm-hazptr|results/sim/lazy-mm-hazptr/context_switch.csv|results/sim/lazy-mm-hazptr/reproduce-20261202/lazy-mm-hazptr.sim.matrix
lazy-mm-hazptr|results/sim/lazy-mm-hazptr/reproduce-20261202/lazy-mm-hazptr.csv|results/sim/lazy-mm-hazptr/reproduce-20261202/lazy-mm-hazptr.sim.matrix
lazy-mm-hazptr|results/sim/lazy-mm-hazptr/reproduce-sim5-20261202/lazy-mm-hazptr.csv|results/sim/lazy-mm-hazptr/reproduce-sim5-20261202/lazy-mm-hazptr.sim.matrix
lazy-mm-hazptr|results/2cpu/lazy-mm-hazptr.csv|native
lazy-mm-hazptr|results/16cpu/lazy-mm-hazptr-16cpu.csv|native
hugetlb-vmemmap|results/sim/hugetlb-vmemmap/hugetlb-vmemmap.csv|results/sim/hugetlb-vmemmap/hugetlb-vmemmap.sim.matrix
hugetlb-vmemmap|results/sim/hugetlb-vmemmap/reproduce-20261202/hugetlb-vmemmap.csv|results/sim/hugetlb-vmemmap/reproduce-20261202/hugetlb-vmemmap.sim.matrix
hugetlb-vmemmap|results/sim/hugetlb-vmemmap/reproduce-508pages-20261202/hugetlb-vmemmap.csv|results/sim/hugetlb-vmemmap/reproduce-508pages-20261202/hugetlb-vmemmap.sim.matrix
hugetlb-vmemmap|results/sim/hugetlb-vmemmap/reproduce-sim5-20261202/hugetlb-vmemmap.csv|results/sim/hugetlb-vmemmap/reproduce-sim5-20261202/hugetlb-vmemmap.sim.matrix
hugetlb-vmemmap|results/2cpu/hugetlb-vmemmap.csv|native
hugetlb-vmemmap|results/16cpu/hugetlb-vmemmap-16cpu.csv|native
LIST

mkdir -p "$out"
i=0
while IFS='|' read -r name csv matrix; do
	i=$((i + 1))
	if [ "$matrix" = native ]; then
		mold=$oldroot/tools/matrices/$name.matrix
		mnew=$root/tools/matrices/$name.matrix
	else
		# the committed matrix as run, its reference pointed at this tree's copy of the table
		ref=$root/results/reference/$(sed -n 's/^reference *= *//p' "$root/$matrix" | xargs basename)
		sed "s|^reference *=.*|reference = $ref|" "$root/$matrix" >"$tmp/$i-old.matrix"
		mold=$tmp/$i-old.matrix
		mnew=$tmp/$i-new.matrix
		cp "$mold" "$mnew"
		sed -n 's/^sim_map\.not_comparable *=/map.not_comparable =/p' "$root/tools/matrices/$name.matrix" >>"$mnew"
	fi
	"$old" report "$root/$csv" --matrix "$mold" --format json >"$out/$i-old.json" 2>/dev/null
	"$new" report "$root/$csv" --matrix "$mnew" --format json >"$out/$i-new.json" 2>/dev/null
	"$new" report "$root/$csv" --matrix "$mnew" --format none >"$out/$i-new.txt" 2>/dev/null
	echo "$i|$name|$csv" >>"$tmp/index"
done <"$tmp/list"
python3 "$root/results/verdicts/rescore.py" "$out" "$tmp/index"
