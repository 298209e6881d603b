#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rwlab exec: interleaved runs, rusage and --metric rows, the preload's rows
# merged in, a failing command reported; and the preload's own bad input.
#   exec.sh RWLAB PRELOAD OSSL_DRIVER
set -u
rwlab=$(realpath "$1") preload=$(realpath "$2") driver=$(realpath "$3")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
die() { echo "FAIL: $*"; fail=1; }
col() {	# col METRIC: "variant value" per row of METRIC, in file order
	awk -F, -v m="$1" '$8 == m {print $4, $9}' "$tmp/x.csv"
}

RWLAB_PRELOAD=$preload "$rwlab" exec -l passthrough,rwsem -n 2 -t 2 -q \
	--metric 'digests/s:higher=digests/s: ([0-9.]+)' --metric 'digests: ([0-9]+)' \
	-o "$tmp/x.csv" -- "$driver" 2 500 >"$tmp/out" 2>"$tmp/err" || { die "exit $?"; cat "$tmp/err"; }
[ "$(col wall_s | cut -d' ' -f1 | tr '\n' ' ')" = "passthrough rwsem passthrough rwsem " ] ||
	die "wall_s rows not interleaved: $(col wall_s | tr '\n' ' ')"
[ "$(col metric2 | cut -d' ' -f2 | sort -u)" = 1000 ] || die "metric2 (digests) rows: $(col metric2 | tr '\n' ' ')"
[ "$(col digests/s | wc -l)" = 4 ] || die "digests/s rows: $(col digests/s | wc -l), want 4"
col preload.acquisitions | while read -r v n; do
	[ "${n%.*}" -ge 1000 ] || echo "FAIL: $v: preload.acquisitions $n below the 1000 fetches"
done | grep FAIL && fail=1
awk -F, '$8 == "threads" || ($8 == "wall_s" && $6 != 2) {bad = 1} END {exit bad}' "$tmp/x.csv" ||
	die "threads column is not 2"
grep -q 'digests/s' "$tmp/out" || die "no table with digests/s on stdout"
"$rwlab" report "$tmp/x.csv" -m preload.contended >/dev/null || die "report cannot read the CSV"

# A failing command: exit 1, its status in the CSV.
RWLAB_PRELOAD=$preload "$rwlab" exec -l rwsem -n 1 -q --no-report -o "$tmp/f.csv" -- sh -c 'exit 3' \
	>/dev/null 2>"$tmp/err"
[ $? = 1 ] || die "a failing command did not make exec exit 1"
grep -q ',exit_status,3,' "$tmp/f.csv" || die "no exit_status 3 row"

# Options end at CMD (no --): CMD's own -n and --metric go to CMD, not to exec.
RWLAB_PRELOAD=$preload "$rwlab" exec -l rwsem -n 1 -q --no-report -o "$tmp/o.csv" sh -c 'echo "$0 $1"' -n --metric \
	>/dev/null 2>"$tmp/err" || { die "CMD's own options were taken by exec"; cat "$tmp/err"; }
grep -q ',exit_status,0,' "$tmp/o.csv" || die "CMD with its own options: no exit_status 0 row"

# The preload's bad input: one line, exit 2, the program not run.
# (A sanitizer build's preload needs its runtime first, from its ldd line.)
rt=$(ldd "$preload" 2>/dev/null | awk '/lib[at]san\.so/ {print $3; exit}')
for spec in nosuch percpu-rwsem 'rwsem:nosuch=1'; do
	LD_PRELOAD=${rt:+$rt:}$preload RWLAB_LOCK=$spec sh -c 'echo ran' >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] ||
		{ die "RWLAB_LOCK=$spec: exit $rc"; cat "$tmp/err"; }
	grep -q '^rwlab-preload: ' "$tmp/err" || die "RWLAB_LOCK=$spec: message without the rwlab-preload: prefix"
done
exit $fail
