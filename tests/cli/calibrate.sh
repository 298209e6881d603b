#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rwlab-calibrate --quick: every metric the machine files cite is printed
# once, as METRIC<TAB>MEDIAN<TAB>MIN<TAB>MAX<TAB>UNIT<TAB>REPEATS with
# positive finite numbers (a spread in % may be 0), min <= median <= max and 3 repeats; bad
# arguments give one stderr line and exit 2.
# Usage: calibrate.sh RWLAB-CALIBRATE
. "${0%/*}/../lib.sh"
cal=$1

"$cal" --quick >"$tmp/out" 2>"$tmp/err" || fail "--quick exited $?: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "--quick wrote to stderr: $(cat "$tmp/err")"

for m in c2c_ns rmw_local_ns load_local_ns relax_ns mem_local_ns syscall_ns \
	futex_wake_ns futex_wait_ns ctxsw_ns wakeup_ns page_fault_ns memset_gbs memcpy_gbs \
	faa_pair_ns faa_run_len rmw_hold_ns exec_yield spread_syscall_pct spread_relax_pct spread_wakeup_pct; do
	n=$(grep -c "^$m	" "$tmp/out")
	[ "$n" = 1 ] || fail "metric $m printed $n times"
done

# Every non-comment line: six fields, numbers positive and finite (the IPI
# difference of two medians may be negative under load: only finite).
awk -F '\t' '
	/^#/ { next }
	function num(x) { return x ~ /^-?[0-9]+(\.[0-9]+)?$/ }
	{
		if (NF != 6) { print "FAIL: " NR ": " NF " fields: " $0; bad++; next }
		if (!num($2) || !num($3) || !num($4)) { print "FAIL: " NR ": not a finite number: " $0; bad++; next }
		if ($1 ~ /^spread_/ && $3 < 0) { print "FAIL: " NR ": negative spread: " $0; bad++ }
		if ($1 != "ipi_roundtrip_ns" && $1 != "rmw_hold_ns" && $1 !~ /^spread_/ && ($2 <= 0 || $3 <= 0)) { print "FAIL: " NR ": not positive: " $0; bad++ }
		if ($3 > $2 || $2 > $4) { print "FAIL: " NR ": min <= median <= max broken: " $0; bad++ }
		if ($5 != "ns" && $5 != "GB/s" && !($1 == "faa_run_len" && $5 == "ops") && !($1 ~ /_pair_attempts$/ && $5 == "attempts") && !($1 ~ /^spread_/ && $5 == "%") && !($1 == "exec_yield" && $5 == "x")) { print "FAIL: " NR ": unit " $5; bad++ }
		# two threads on two CPUs run the loop at most twice as fast as one
		# (a little above 2 from the warm caches of the pair run); a loaded
		# CI machine may pull it towards 1, never to 0
		if ($1 == "exec_yield" && ($2 < 0.3 || $2 > 2.6)) { print "FAIL: " NR ": exec_yield outside 0.3..2.6: " $0; bad++ }
		if ($6 != 3) { print "FAIL: " NR ": repeats " $6 ", want 3 in --quick"; bad++ }
		rows++
	}
	END { if (rows < 13) { print "FAIL: only " rows " metric lines"; bad++ } exit bad > 0 }
' "$tmp/out" || fails=$((fails + 1))

# --only's list of names (in its error) is the metrics a full run prints, no more, no less
"$cal" --only nosuch 2>&1 >/dev/null | sed 's/.*(valid: //; s/)$//' | tr ' ' '\n' | sort >"$tmp/names"
grep -v '^#' "$tmp/out" | cut -f1 | sort >"$tmp/printed"
cmp -s "$tmp/names" "$tmp/printed" ||
	fail "--only's names differ from the metrics --quick printed: $(diff "$tmp/names" "$tmp/printed" | grep '^[<>]' | tr '\n' ' ')"

# expect_err PATTERN -- args: exit 2, exactly one stderr line matching PATTERN.
expect_err() {
	pat=$1
	shift 2
	"$cal" "$@" >"$tmp/o" 2>"$tmp/e"
	st=$?
	[ "$st" = 2 ] || fail "$* exited $st, want 2"
	[ "$(wc -l <"$tmp/e")" = 1 ] || fail "$* printed $(wc -l <"$tmp/e") stderr lines"
	grep -Eq -- "$pat" "$tmp/e" || fail "$*: '$(cat "$tmp/e")' does not match '$pat'"
	[ -s "$tmp/o" ] && fail "$* printed to stdout"
}
expect_err "two different online CPUs.*valid: --quick" -- --cpus 0,0
expect_err "--cpus wants A,B" -- --cpus 3
expect_err "--repeats wants a number from 3 to 101" -- --repeats 2
expect_err "unknown argument '--bogus'" -- --bogus
expect_err "unknown metric 'exec_yieldx' in --only \(valid: c2c_ns " -- --only exec_yield,exec_yieldx

[ "$fails" = 0 ] && echo "calibrate: ok"
exit "$fails"
