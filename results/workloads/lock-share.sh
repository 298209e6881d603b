#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# results/workloads/lock-share.sh BUILD OUT -- RWLAB-RUN-ARGS...
#
# perf record (Debian linux-perf, user-space samples at 4999 Hz) of
# `BUILD/rwlab run RWLAB-RUN-ARGS`, then the share of samples whose leaf
# function is lock code: a function defined in one of the locks/ objects of
# BUILD (the variants, osq, wait, events, ...). Code of locks/*.h inlined into
# workloads counts as the workload's. Prints one line:
#   samples N lock_samples L lock_share P% kernel_futex_share F% top: SYM P% ...
set -eu
B=$1 OUT=$2
shift 3
perf record -q -F 4999 -o "$OUT.data" -- "$B/rwlab" run -q --no-report -o "$OUT.csv" "$@" >/dev/null 2>&1
nm --defined-only "$B"/harness/librwlab.a.p/.._locks_*.o 2>/dev/null | awk 'NF == 3 && $2 ~ /[TtWw]/ { print $3 }' | sort -u >"$OUT.locksyms"
perf report -i "$OUT.data" --no-children --sort sym -F sample,sym --stdio -q 2>/dev/null |
	awk 'NF >= 3 { n = $1; sym = $3; print n "\t" sym }' >"$OUT.syms"
# futex_* in the kernel: sleeping and waking, of the locks and of everything else that uses futexes
awk -F'\t' 'NR == FNR { lock[$1] = 1; next }
	{ tot += $1; if ($2 in lock) l += $1; if ($2 ~ /^(futex_|__futex|do_futex)/) fx += $1 }
	END { printf "samples %d lock_samples %d lock_share %.1f%% kernel_futex_share %.1f%% top:", tot, l, tot ? 100 * l / tot : 0, tot ? 100 * fx / tot : 0 }' \
	"$OUT.locksyms" "$OUT.syms"
awk -F'\t' 'NR == FNR { lock[$1] = 1; next } $2 in lock' "$OUT.locksyms" "$OUT.syms" | sort -rn | head -4 |
	awk -F'\t' -v tot="$(awk -F'\t' '{ t += $1 } END { print t }' "$OUT.syms")" '{ printf " %s %.1f%%", $2, 100 * $1 / tot } END { printf "\n" }'
