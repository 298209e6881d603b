#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Regression: with --mm-lock vma, a VMA unmapped while lockless walkers may
# see it is freed through RCU (vm_area_free's call_rcu). The callback used to
# destroy the VMA's lock itself, on liburcu's call_rcu worker: percpu-rwsem's
# destroy registers the thread with liburcu (already registered by liburcu:
# an assertion, the run aborted) and waits in rcu_barrier (which the kernel
# does not allow in a callback either). The callback now queues the VMA and a
# workload thread frees it (workloads/vma_lock.c, lab_vma_graveyard_drain).
# Every variant with down_read_trylock (what per-VMA locks need; ck-pflock and
# ck-tflock have none and are refused) runs pft in vma mode, which unmaps its
# region each iteration.
# Usage: vma_lock_free.sh RWLAB
set -u
rwlab=$1
csv=${TMPDIR:-/tmp}/rwlab-vma-free.$$.csv
trap 'rm -f "$csv"' EXIT
variants=$("$rwlab" list --names | sed -n 's/^variant //p' | grep -v -x -e busted -e ck-pflock -e ck-tflock | paste -s -d, -)
"$rwlab" run -w pft:size_mb=4 -l "$variants" --mm-lock vma -t 2 -n 2 --warmup 0 -o "$csv" -q --no-report
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: the pft cells in vma mode exited $rc"; exit 1; }
cells=$(grep -c ',faults/sec,' "$csv")
want=$(echo "$variants" | tr , '\n' | grep -c .)
[ "$cells" -eq $((2 * want)) ] || { echo "FAIL: $cells pft rows, want $((2 * want))"; exit 1; }
grep -q ',percpu-rwsem,"pft:size_mb=4,mm_lock=vma",2,.*,faults/sec,' "$csv" || { echo "FAIL: no percpu-rwsem row"; exit 1; }
echo "pft in vma mode ran clean in every variant ($cells rows)"
# vma_lock=inside on a variant that cannot hold the kernel's layout fails its cell in one line,
# rather than running apart under the label inside.
"$rwlab" run -w pft:size_mb=4,vma_lock=inside -l pthread --mm-lock vma -t 1 -n 1 --warmup 0 -o "$csv.2" -q \
	--no-report 2>"$csv.err"
rc=$?
rm -f "$csv.2"
[ $rc -eq 1 ] || { echo "FAIL: vma_lock=inside on pthread exited $rc, want 1"; exit 1; }
grep -q "vma_lock=inside needs a variant with the kernel's rw_semaphore layout" "$csv.err" ||
	{ echo "FAIL: no refusal line: $(cat "$csv.err")"; exit 1; }
rm -f "$csv.err"
echo "vma_lock=inside on pthread refused"
