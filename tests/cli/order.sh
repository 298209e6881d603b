#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Run order: the iterations of a comparison block (one
# workload, one thread count, every variant) are interleaved round by round,
# A1 B1 C1 A2 B2 C2 ..., in an order shuffled per round from --seed (the same
# seed, the same order); --order sequential keeps A1 A2 A3 B1 ...; each
# iteration's rows record their place in the run (metric "position").
#   usage: order.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1
run() { "$rwlab" run -l pthread,null,rwsem,rwsem-xadd -w locktest -t 1,2 -n 4 -d 5ms --warmup 0 -q --no-report "$@"; }
# "variant threads iteration" in run order
order() { grep ',position,' "$1" | awk -F, '{ print $9, $4, $6, $7 }' | sort -n | cut -d' ' -f2-; }

run -o "$tmp/a.csv" --seed 7 2>/dev/null || fail "interleaved run exited $?"
run -o "$tmp/b.csv" --seed 7 2>/dev/null || fail "second run exited $?"
run -o "$tmp/c.csv" --seed 8 2>/dev/null || fail "run with another seed exited $?"
run -o "$tmp/s.csv" --order sequential 2>/dev/null || fail "sequential run exited $?"
order "$tmp/a.csv" >"$tmp/a"
[ "$(wc -l <"$tmp/a")" = 32 ] || fail "want 32 positions (4 variants x 2 thread counts x 4 iterations)"
# Interleaved: within each block, round k's four iterations (one per variant) before round k+1's.
awk '{ key = $2 " " $3; if (prev != "" && $2 == pt && $3 < pi) bad = 1; pt = $2; pi = $3; prev = key }
	END { exit bad }' "$tmp/a" || fail "an iteration ran before the previous round finished"
awk '{ seen[$2 " " $3 " " $1]++ } END { for (k in seen) if (seen[k] != 1) bad = 1; exit bad }' "$tmp/a" ||
	fail "a variant ran twice in one round"
rounds=$(awk '{ r[$2 " " $3] = r[$2 " " $3] " " $1 } END { for (k in r) print r[k] }' "$tmp/a" | sort -u | wc -l)
[ "$rounds" -gt 1 ] || fail "every round ran the variants in the same order: not shuffled"
order "$tmp/b.csv" | cmp -s - "$tmp/a" || fail "the same --seed gave another order"
order "$tmp/c.csv" | cmp -s - "$tmp/a" && fail "another --seed gave the same order"
order "$tmp/s.csv" | awk '{ print $1, $2, $3 }' >"$tmp/s"
printf '%s\n' pthread null rwsem rwsem-xadd | while read -r v; do for i in 0 1 2 3; do echo "$v 1 $i"; done; done >"$tmp/want"
printf '%s\n' pthread null rwsem rwsem-xadd | while read -r v; do for i in 0 1 2 3; do echo "$v 2 $i"; done; done >>"$tmp/want"
cmp -s "$tmp/s" "$tmp/want" || fail "--order sequential is not A1 A2 A3 A4 B1 ..."
echo "order: $fails failures"
exit $((fails > 0))
