#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The rough edges a new user met (issue 26), one check per item: what the
# user typed, and what must come back now. Native runs are tiny (-d 10ms);
# the simulated ones take a few host milliseconds.
# Usage: newuser.sh RWLAB
set -u
rwlab=$1
case $rwlab in /*) ;; *) rwlab=$PWD/$rwlab ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rwlab-newuser.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# expect WHAT RC PATTERN CMD...: CMD exits RC and its stderr is one line matching PATTERN (grep -E).
expect() {
	local what=$1 want=$2 pat=$3 rc
	shift 3
	"$@" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	[ "$rc" = "$want" ] || fail "$what: exit $rc, want $want: $(head -c 400 "$tmp/e")"
	[ "$(wc -l <"$tmp/e")" = 1 ] || fail "$what: $(wc -l <"$tmp/e") lines on stderr, want one: $(head -c 400 "$tmp/e")"
	grep -Eq -- "$pat" "$tmp/e" || fail "$what: stderr '$(head -c 400 "$tmp/e")' does not match '$pat'"
}
tiny=(-n 1 -d 10ms --warmup 0)

# 1. One thread limit, the real one, at parse time, native and simulated alike.
expect "-t 1024 natively" 2 "^rwlab: bad thread list '1024': .*counts 1\.\.1023\)$" \
	"$rwlab" run -l rwsem,null -w locktest -t 1024 "${tiny[@]}" -o t.csv
[ -e t.csv ] && fail "-t 1024: a CSV was started"
expect "-t 1024 under --sim" 2 "^rwlab: bad thread list '1024': .*counts 1\.\.1023\)$" \
	"$rwlab" run --sim generic-8 -l rwsem -w locktest -t 1024 "${tiny[@]}" -o t.csv
expect "context_switch pairs" 2 "^rwlab: -t 256: context_switch runs at most 255 pairs .*\(valid: 1\.\.255\)$" \
	"$rwlab" run -w context_switch -m refcount -t 2,256 "${tiny[@]}" -o t.csv
expect "context_switch pairs under --sim" 2 "^rwlab: -t 256: context_switch runs at most 255 pairs" \
	"$rwlab" run --sim generic-8 -w context_switch -m refcount -t 256 "${tiny[@]}" -o t.csv
expect "tlb_flush" 2 "^rwlab: -t 512: tlb_flush runs at most 511 threads" \
	"$rwlab" run -w tlb_flush -m refcount -t 512 "${tiny[@]}" -o t.csv
# ... and the limit is real: the largest counts run (natively and simulated).
"$rwlab" run -l rwsem -w locktest -t 1023 "${tiny[@]}" -q --no-report -o n1023.csv 2>"$tmp/e" ||
	fail "locktest -t 1023 natively: $(tail -n 2 "$tmp/e")"
"$rwlab" run --sim generic-8 -l rwsem -w locktest -t 1023 -n 1 -d 100us --warmup 0 -q --no-report \
	-o s1023.csv 2>"$tmp/e" || fail "locktest -t 1023 under --sim: $(tail -n 2 "$tmp/e")"
"$rwlab" run -w tlb_flush -m refcount -t 511 "${tiny[@]}" -q --no-report -o tf511.csv 2>"$tmp/e" ||
	fail "tlb_flush -t 511 natively: $(tail -n 2 "$tmp/e")"
"$rwlab" run -w context_switch -m refcount -t 255 "${tiny[@]}" -q --no-report -o cs255.csv 2>"$tmp/e" ||
	fail "context_switch -t 255 natively: $(tail -n 2 "$tmp/e")"

# 2. A simulated run's per-cell line names its machine.
"$rwlab" run --sim generic-8 -l rwsem -t 2 -n 2 -d 100us --warmup 0 -o sim.csv >"$tmp/o" 2>"$tmp/e" ||
	fail "--sim run: $(tail -n 2 "$tmp/e")"
grep -Eq '^rwsem +locktest +t=2 .*  \[sim generic-8\]' "$tmp/o" || fail "per-cell line without [sim generic-8]: $(head -n 3 "$tmp/o")"

# Noise: one load-average warning for the first loaded cell, one count at the end.
RWLAB_FAULT_INJECT=loadavg "$rwlab" run -l rwsem,null -t 1,2 "${tiny[@]}" -q --no-report -o load.csv 2>"$tmp/e"
[ "$(grep -c 'WARNING: load average' "$tmp/e")" = 1 ] || fail "load warnings: $(grep -c 'WARNING: load average' "$tmp/e"), want 1"
grep -q '^WARNING: 4 of the 4 cells started with the load average above' "$tmp/e" ||
	fail "no end-of-run count of loaded cells: $(cat "$tmp/e")"
# Noise: -l beside -m alone is said to have no effect.
"$rwlab" run -l rwsem -m refcount -t 1 "${tiny[@]}" -q --no-report -o lm.csv 2>"$tmp/e"
grep -q "^rwlab: warning: -l has no effect: context_switch and tlb_flush run the lazy-mm schemes of -m" "$tmp/e" ||
	fail "-l with -m: $(cat "$tmp/e")"
# Noise: an unknown option names the command and its options; a missing value its option.
expect "report -o" 2 "^rwlab report: unknown option '-o' \(valid: -f/--format, .*; rwlab report --help\)$" \
	"$rwlab" report load.csv -o x
expect "run -l without a value" 2 "^rwlab run: -l needs a value \(LIST: " "$rwlab" run -l

echo "newuser: $([ $fails = 0 ] && echo passed || echo "$fails failures")"
exit $((fails > 0))
