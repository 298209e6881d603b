#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tools/calibrate-apply sets a value that cites [calib RECORD METRIC] to the record's summary,
# and refuses a record in which rwlab-calibrate marked a metric loaded ('# loaded:'): one
# stderr line naming the metrics, exit 2, no machine file touched. Runs on a copy of the
# script in a scratch tree (the script works on the tree it sits in).
# Usage: calibrate_apply.sh SOURCE-ROOT
. "${0%/*}/../lib.sh"
root=$1
mkdir -p "$tmp/tools" "$tmp/sim/machines" "$tmp/rec"
cp "$root/tools/calibrate-apply" "$tmp/tools/"
machine='cost.syscall_ns = 100.0     # [calib rec/r.txt syscall_ns]'
printf '%s\n' "$machine" >"$tmp/sim/machines/t.machine"
# record [loaded]: a run's lines (with a '# loaded:' line after syscall_ns's), then the summary
record() {
	printf '# rwlab-calibrate: cpus 0,1, repeats 3\nsyscall_ns\t219.838\t219.838\t219.838\tns\t3\n'
	[ $# = 0 ] || printf "# loaded: syscall_ns: other tasks took over 10%% of the measuring threads' time\n"
	printf '## summary over 1 runs\nsummary\tsyscall_ns\t219.838\t219.838\t219.838\tns\n'
}

record loaded >"$tmp/rec/r.txt"
expect "a loaded record" 2 "^calibrate-apply: rec/r.txt was measured on a loaded machine \('# loaded:' lines for syscall_ns\); nothing applied \(valid: " \
	"$tmp/tools/calibrate-apply" rec/r.txt
[ "$(cat "$tmp/sim/machines/t.machine")" = "$machine" ] || fail "a loaded record changed the machine file: $(cat "$tmp/sim/machines/t.machine")"

record >"$tmp/rec/r.txt"
"$tmp/tools/calibrate-apply" rec/r.txt >"$tmp/o" 2>"$tmp/e" || fail "a quiet record: exit $?: $(cat "$tmp/e")"
grep -q '^cost.syscall_ns = 219.8 ' "$tmp/sim/machines/t.machine" ||
	fail "a quiet record did not set the cited value: $(cat "$tmp/sim/machines/t.machine")"

[ "$fails" = 0 ] && echo "calibrate_apply: ok"
exit "$fails"
