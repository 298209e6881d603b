#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rwlab-calibrate --quick: every metric the machine files cite is printed
# once, as METRIC<TAB>MEDIAN<TAB>MIN<TAB>MAX<TAB>UNIT<TAB>REPEATS with
# positive finite numbers (a spread in % may be 0), min <= median <= max and 3 repeats; bad
# arguments give one stderr line and exit 2. A metric measured while other tasks held its
# CPUs has a '# loaded:' line and the run one warning on stderr: the quick run may have them
# (this host's other work), the run under the busy loops this test starts must.
# Usage: calibrate.sh RWLAB-CALIBRATE
. "${0%/*}/../lib.sh"
cal=$1

# check_loaded WHAT OUT ERR: ERR is empty and OUT has no '# loaded:' line, or ERR is the one
# warning that counts OUT's '# loaded:' lines, each naming a metric OUT printed.
check_loaded() {
	n=$(grep -c '^# loaded: ' "$2")
	if [ ! -s "$3" ]; then
		[ "$n" = 0 ] || fail "$1: $n '# loaded:' lines but no warning on stderr"
	elif [ "$(wc -l <"$3")" != 1 ] ||
		! grep -Eq "^rwlab-calibrate: WARNING: $n metrics? measured while other tasks held CPUs [0-9]+,[0-9]+ \(the '# loaded:' lines\)" "$3"; then
		fail "$1: stderr is not the load warning for its $n '# loaded:' lines: $(head -c 400 "$3")"
	fi
	for m in $(sed -n 's/^# loaded: \([^:]*\): .*/\1/p' "$2"); do
		grep -q "^$m	" "$2" || fail "$1: '# loaded:' line for $m, which it did not print"
	done
}

"$cal" --quick >"$tmp/out" 2>"$tmp/err" || fail "--quick exited $?: $(cat "$tmp/err")"
check_loaded --quick "$tmp/out" "$tmp/err"

for m in c2c_ns rmw_local_ns load_local_ns relax_ns mem_local_ns syscall_ns \
	futex_wake_ns futex_wait_ns ctxsw_ns wakeup_ns page_fault_ns memset_gbs memcpy_gbs \
	faa_pair_ns faa_run_len rmw_hold_ns exec_yield spread_syscall_pct spread_relax_pct spread_wakeup_pct; do
	n=$(grep -c "^$m	" "$tmp/out")
	[ "$n" = 1 ] || fail "metric $m printed $n times"
done

# Every non-comment line: six fields, numbers positive and finite (the IPI
# difference of two medians may be negative under load: only finite). Read twice:
# a metric's '# loaded:' line comes after it (the first pass read none, so the
# exemption below never held).
awk -F '\t' '
	# the first pass: the metrics marked loaded (a mark follows its metric line)
	NR == FNR { if (/^# loaded: /) loaded[substr($0, 11, index(substr($0, 11), ":") - 1)] = 1; next }
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
		# (a little above 2 from the warm caches of the pair run), and SMT
		# siblings no slower than one alone; other tasks on the CPUs may move
		# it anywhere, and then rwlab-calibrate says so (a # loaded: line:
		# the lost time schedstat shows, or above 2.5 whatever schedstat saw,
		# since steal time and a busy sibling do not show there: 2.638
		# unmarked once beside the other tests meson ran)
		if ($1 == "exec_yield" && !("exec_yield" in loaded) && ($2 < 0.3 || $2 > 2.5)) { print "FAIL: " NR ": exec_yield outside 0.3..2.5 and not marked loaded: " $0; bad++ }
		if ($6 != 3) { print "FAIL: " NR ": repeats " $6 ", want 3 in --quick"; bad++ }
		rows++
	}
	END { if (rows < 13) { print "FAIL: only " rows " metric lines"; bad++ } exit bad > 0 }
' "$tmp/out" "$tmp/out" || fails=$((fails + 1))

# Under a busy loop on each of its CPUs (the default 0,1) the kernel-entry metrics, whose
# sub-batches outlast a time slice, are marked loaded: figures still printed, the warning once.
# (Each loop also ends when this shell is gone.)
if ! command -v taskset >/dev/null; then
	echo "no taskset(1) here: the loaded run is skipped"
elif ! grep -q . /proc/thread-self/schedstat 2>/dev/null; then
	echo "no /proc/thread-self/schedstat (a kernel without CONFIG_SCHED_INFO): the loaded run is skipped"
else
	taskset -c 0 sh -c "while kill -0 $$ 2>/dev/null; do :; done" &
	b0=$!
	taskset -c 1 sh -c "while kill -0 $$ 2>/dev/null; do :; done" &
	b1=$!
	"$cal" --only syscall_ns,futex_wake_ns,futex_wait_ns --repeats 3 >"$tmp/lout" 2>"$tmp/lerr"
	st=$?
	kill "$b0" "$b1"
	wait "$b0" "$b1" 2>/dev/null
	[ "$st" = 0 ] || fail "loaded run exited $st: $(cat "$tmp/lerr")"
	[ "$(grep -c '^[a-z_]*_ns	' "$tmp/lout")" = 3 ] || fail "loaded run did not print its three metrics"
	grep -q '^# loaded: ' "$tmp/lout" || fail "two busy loops on CPUs 0,1 and no metric marked loaded: $(grep -v '^#' "$tmp/lout" | tr '\n' ' ')"
	check_loaded "loaded run" "$tmp/lout" "$tmp/lerr"
fi

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
