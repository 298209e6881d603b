#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A native run whose workers get no perf context-switch ring (locks/wait.h:
# perf_event_open refused, a resource limit, or RWLAB_SWITCH_RINGS=0) falls
# back to the owner's CPU clock and says so in one WARNING line naming the
# reason, keeps its rows and exits 0; a run that has rings says nothing of it
# unless this host refuses them too (then the reason is not the variable); 100
# threads under 'ulimit -n 64' run (their rings may meet EMFILE: a warning).
# tests/regression/switch_rings.c checks the fallback itself.
# Usage: switch_rings.sh RWLAB
set -u
rwlab=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
RWLAB_SWITCH_RINGS=0 "$rwlab" run -l rwsem-xadd,rwsem -t 2 -n 1 -d 20ms --warmup 0 -o "$dir/off.csv" \
	--no-report 2>"$dir/off.err"
rc=$?
[ $rc -eq 0 ] || { cat "$dir/off.err"; echo "FAIL: RWLAB_SWITCH_RINGS=0 run exited $rc"; exit 1; }
n=$(grep -c 'no perf context-switch ring' "$dir/off.err")
[ "$n" -eq 1 ] || { cat "$dir/off.err"; echo "FAIL: $n warnings of the missing rings, want 1"; exit 1; }
grep -q '^WARNING: no perf context-switch ring for some threads (switched off (RWLAB_SWITCH_RINGS=0)): .*oncpu=clock' \
	"$dir/off.err" || { cat "$dir/off.err"; echo "FAIL: the warning does not name the reason and the fallback"; exit 1; }
[ "$(grep -c ',total_rate,' "$dir/off.csv")" -eq 2 ] || { echo "FAIL: the two cells' rows are missing"; exit 1; }

"$rwlab" run -l rwsem-xadd -t 2 -n 1 -d 20ms --warmup 0 -o "$dir/on.csv" --no-report 2>"$dir/on.err" ||
	{ cat "$dir/on.err"; echo "FAIL: the run with rings failed"; exit 1; }
if grep -q 'RWLAB_SWITCH_RINGS' "$dir/on.err"; then
	cat "$dir/on.err"
	echo "FAIL: a run without RWLAB_SWITCH_RINGS blames it"
	exit 1
fi
grep 'no perf context-switch ring' "$dir/on.err" && echo "note: this host refuses the rings"

# 100 threads under a 64-descriptor limit: rows, exit 0; a ring refused (EMFILE) is a warning
(ulimit -n 64 && "$rwlab" run -l rwsem -t 100 -n 1 -d 20ms --warmup 0 -o "$dir/fd.csv" --no-report -q \
	2>"$dir/fd.err") || { cat "$dir/fd.err"; echo "FAIL: 100 threads at ulimit -n 64 failed"; exit 1; }
[ "$(grep -c ',total_rate,' "$dir/fd.csv")" -eq 1 ] || { echo "FAIL: no row at ulimit -n 64"; exit 1; }
grep 'no perf context-switch ring' "$dir/fd.err" || echo "note: every ring opened at ulimit -n 64"
echo "the missing rings are reported once, rows kept"
