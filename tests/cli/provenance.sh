#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Provenance: every row's run records its settings (-d,
# --warmup, -n, --seed, --order) and the machine's set-up columns; every
# iteration its load average before and after; the per-cell line flags
# fewer than 3 iterations; --resume refuses a file made with other settings.
#   usage: provenance.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1
csv=$tmp/p.csv
"$rwlab" run -l pthread -w locktest -t 1 -n 2 -d 10ms --warmup 0 --seed 42 --order sequential -o "$csv" \
	--no-report >"$tmp/out" 2>"$tmp/err" || fail "run exited $?"
# the run's context once, in its context line; every row names the run
grep -q '^# context,run=[^,]*,pin=compact,.*,settings=d=0.01s warmup=0s n=2 seed=42 order=sequential,governor=[^,]*,smt=[^,]*,boost=[^,]*,thp=[^,]*,.*cmdline=.*,isolated=[^,]*,shard=,plan=fp=[0-9a-f]* cells=1 blocks=1$' "$csv" ||
	fail "no provenance in the context line: $(sed -n 2p "$csv")"
run=$(sed -n 's/^# context,run=\([^,]*\),.*/\1/p' "$csv")
[ "$(grep -vc '^#' "$csv")" -gt 1 ] && [ "$(grep -v '^#' "$csv" | tail -n +2 | cut -d, -f2 | sort -u)" = "$run" ] ||
	fail "not every row names the run $run"
for m in loadavg_start loadavg_end; do
	[ "$(grep -c ",$m,[0-9.]*,load," "$csv")" = 2 ] || fail "want one $m row per iteration"
done
grep -q 'fewer than 3 iterations' "$tmp/out" || fail "the per-cell line does not flag 2 iterations"
"$rwlab" run -l pthread -w locktest -t 1 -n 2 -d 20ms --warmup 0 --seed 42 --order sequential -o "$csv" \
	--resume --no-report -q 2>"$tmp/err"
[ $? = 2 ] && grep -q "settings is .* the results would mix two run settings" "$tmp/err" ||
	fail "--resume with another -d was not refused: $(cat "$tmp/err")"
echo "provenance: $fails failures"
exit $((fails > 0))
