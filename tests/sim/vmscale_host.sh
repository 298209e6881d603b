#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# vmscale under --sim needs no host memory per simulated huge page (workloads/vmscale.c,
# region_alloc()): 8 workers of 256 huge pages each (a 4608 MiB region, 4.5 GiB if it were
# backed) run in well under a quarter of that, and every page is still copied once with one
# grace period each (sync: 2048 copies, 2048 voluntary switches of the workers, and the
# parent's waits for its children's exits).
# Usage: vmscale_host.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1
sim=$(dirname "$rwlab")/rwlab-sim
if [ ! -x "$sim" ] || [ ! -x /usr/bin/time ]; then
	echo "needs $sim and GNU time (/usr/bin/time): skipped"
	exit 77
fi
# rwlab execs rwlab-sim in the same process: GNU time's maximum RSS is rwlab-sim's
/usr/bin/time -f '%M' -o "$tmp/rss" "$rwlab" run --sim generic-8 -l null -w vmscale:sync,unit_mb=4608 -t 8 -n 1 \
	--warmup 0 -q --no-report -o "$tmp/v.csv" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
rss=$(tail -1 "$tmp/rss")
metric() { grep ",$1," "$tmp/v.csv" | cut -d, -f10 | head -1; }	# the value (the label has a comma)
copies=$(metric cow_copies) nv=$(metric time.voluntary_context_switches)
echo "max RSS $rss KiB for a 4608 MiB region; cow_copies $copies, worker voluntary switches $nv"
failed=0
[ "$rss" -lt $((4608 * 1024 / 4)) ] || { echo "FAIL: max RSS $rss KiB, want < 1/4 of the region"; failed=1; }
[ "$copies" = 2048 ] || { echo "FAIL: cow_copies $copies, want 8 x 256 = 2048"; failed=1; }
# one per copy, and the parent's (worker 0's) waits for its children's exits (usemem's wait4): 1 to 7
[ "$nv" -ge 2049 ] && [ "$nv" -le 2055 ] ||
	{ echo "FAIL: sync workers' voluntary switches $nv, want one per copy (2048) and the parent's 1..7 waits"; failed=1; }
exit $failed
