#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every sweep of README.md, on the committed engine and model (no patch):
#   results/sim/per-vma-locks/fragility-20261203/all.sh > results/sim/per-vma-locks/fragility-20261203/sweeps.txt
# About 2 minutes on the 2-vCPU guest (one cell at a time, ~1.1 s each).
set -eu
s=results/sim/per-vma-locks/fragility-20261203/sweep.sh
echo "# key value seed faults/sec pgd-read-misses(of 65536) mm-line-transfers (cross-socket)"
echo "## 1. cost.kpath.fault_account_ns (in the trylock -> pgd read window), seed 1, 128 clients, mmap_lock"
$s cost.kpath.fault_account_ns 1 0 10 20 30 40 50 51 52 53 54 55 56 57 58 58.05 58.1 58.15 58.2 58.25 \
	58.3 58.35 58.4 58.45 58.5 59 59.5 60 60.5 61 61.5 62.0 62.5 63 63.5 64 64.5 65 66 70 80 90 100 \
	103 104 105 106 108 109 110 111 120 150
echo "## 2. c2c.remote_ns (the threshold side), seed 1"
$s c2c.remote_ns 1 107.8 110 111 111.4 111.5 111.6 111.7 111.8 112 113
echo "## 3. costs outside the window (before the trylock, after the pgd read), +-0.5 ns, seed 1"
$s cost.kpath.fault_entry_ns 1 624.9 625.4 625.9
$s cost.kpath.fault_charge_ns 1 305.2 305.7 306.2
$s cost.kpath.fault_alloc_ns 1 149.2 149.7 150.2
echo "## 4. seeds 1-10 (tie-break keys) at fault_account_ns 62.0 (the table), 58.0 and 58.2 (the step)"
for v in 62.0 58.0 58.2; do
	for seed in 1 2 3 4 5 6 7 8 9 10; do
		$s cost.kpath.fault_account_ns $seed $v
	done
done
echo "## 5. other client counts (compact pinning: 48 fit on socket 0), seed 1"
for t in 48 79 110; do
	echo "# THREADS=$t"
	THREADS=$t $s cost.kpath.fault_account_ns 1 58.0 58.5 62.0
done
echo "## 6. per-VMA mode at 128 clients, seed 1 (the 'pgd' column is then the VMA line's read in handle_mm_fault)"
MM_LOCK=vma $s cost.kpath.fault_account_ns 1 56 58.0 58.5 60 62.0 64 66
echo "## 7. the table's own set-up (the matrix's 1 s warm-up before the window; counters cover both), seed 1"
for t in 79 110 128; do
	echo "# THREADS=$t WARMUP=1s"
	WARMUP=1s THREADS=$t $s cost.kpath.fault_account_ns 1 58.0 58.5 62.0
done
