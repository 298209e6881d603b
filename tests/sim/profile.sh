#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The engine's profile (RWLAB_SIM_STATS=2) is host-side only and says where
# the time went:
# - a pft cell's CSV is the same with the profile on as off (apart from the
#   run id and timestamp columns, and the host-time metrics);
# - it prints the CPU time by code address and work tag, with the machine
#   file's fault-path cost keys among the tags, and the hottest lines with
#   their transfers; the most-moved line of an mmap_lock pft at 8 threads is
#   moved by the rwsem's read side (tools/sim-prof names the addresses);
# - a transfer is counted for the access that made it, even when other CPUs
#   ran while it waited for the line: at 48 threads across two sockets every
#   blind trylock's first cmpxchg and every up_read takes the mmap_lock count
#   line from another CPU, two transfers per fault (a counter shared by all
#   accesses, reset by the others' while one waited, counted 0.55).
# Usage: profile.sh RWLAB SRCROOT
set -u
rwlab=$1 src=$2
tmp=${TMPDIR:-/tmp}/rwlab-sim-prof.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cell="--sim icx-8336c-2s128 -l rwsem -w pft:size_mb=16 -t 8 -n 2 --warmup 0 -q --no-report"
# shellcheck disable=SC2086
"$rwlab" run $cell -o "$tmp/off.csv" >/dev/null 2>"$tmp/off.err" || fail "run: $(head -2 "$tmp/off.err")"
# shellcheck disable=SC2086
RWLAB_SIM_STATS=2 "$rwlab" run $cell -o "$tmp/on.csv" >/dev/null 2>"$tmp/on.err" || fail "run with the profile: $(head -2 "$tmp/on.err")"
for f in off on; do
	grep -v '^#' "$tmp/$f.csv" | cut -d, -f4- | grep -v ',\(wall_s\|user_s\|sys_s\),' >"$tmp/$f.cut"
done
[ "$(wc -l <"$tmp/on.cut")" -gt 20 ] || fail "the cell wrote $(wc -l <"$tmp/on.cut") rows"
cmp -s "$tmp/off.cut" "$tmp/on.cut" ||
	fail "the profile changed simulated figures: $(diff "$tmp/off.cut" "$tmp/on.cut" | head -3)"
grep -q 'rwlab-sim profile:' "$tmp/off.err" && fail "a profile printed without RWLAB_SIM_STATS=2"
grep -q 'rwlab-sim profile: CPU time by code address' "$tmp/on.err" || fail "no CPU time table: $(head -3 "$tmp/on.err")"
grep -q 'rwlab-sim profile: work .*cost\.kpath\.fault_entry_ns' "$tmp/on.err" ||
	fail "the fault path's cost key is not among the work tags"
hot=$(grep -m1 'rwlab-sim profile: line 0x' "$tmp/on.err")
[ -n "$hot" ] || fail "no hottest line printed"
xfer=$(echo "$hot" | awk '{ print $6 }')
[ "${xfer:-0}" -gt 100 ] 2>/dev/null || fail "the hottest line has ${xfer:-no} transfers: $hot"
cell2="--sim skx-8180-2s112 -l rwsem:rtrylock=blind -w pft:size_mb=16,kernel=v5.12 -t 48 --pin cores -n 1 --warmup 0 -q --no-report"
# shellcheck disable=SC2086
RWLAB_SIM_STATS=2 "$rwlab" run $cell2 -o "$tmp/skx.csv" >/dev/null 2>"$tmp/skx.err" || fail "run skx: $(head -2 "$tmp/skx.err")"
ok=$(grep -v '^#' "$tmp/skx.csv" | awk -F, '$9 == "event.rwsem_rtrylock_ok" { print $10 }')
moved=$(grep -m1 'rwlab-sim profile: line 0x' "$tmp/skx.err" | awk '{ print $6 }')
awk -v m="${moved:-0}" -v n="${ok:-0}" 'BEGIN { exit !(n > 1000 && m >= 1.9 * n && m <= 2.1 * n) }' ||
	fail "the mmap_lock count line moved ${moved:-?} times for ${ok:-?} trylocks at 48 threads (2 per fault expected)"
if command -v python3 >/dev/null && command -v nm >/dev/null; then
	"$src/tools/sim-prof" --binary "$(dirname "$rwlab")/rwlab-sim" "$tmp/on.err" >"$tmp/named" ||
		fail "tools/sim-prof: $(tail -1 "$tmp/named")"
	named=$(grep -m1 'rwlab-sim profile: line 0x' "$tmp/named")
	echo "$named" | grep -q 'moved by rwsem_[a-z_]*read' || fail "the hottest line is not the rwsem's read side: $named"
fi
[ "$fails" -eq 0 ] && echo "sim profile: all checks passed"
[ "$fails" -eq 0 ]
