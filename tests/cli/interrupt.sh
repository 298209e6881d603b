#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Ctrl-C keeps every finished cell: interrupted in the last round of an
# interleaved block, the cells that ran all their iterations are written,
# the one that was running is not, and the exit status is 130.
#   usage: interrupt.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1

: >"$tmp/err"	# exists before the poll below reads it
# One round (-n 1) of three cells; the third one's window is long enough to be interrupted in.
"$rwlab" run -l pthread,null,rwsem -w locktest -t 1 -n 1 -d 3s --warmup 0 --no-report \
	-o "$tmp/a.csv" 2>"$tmp/err" &
pid=$!
# The third progress line: the first two cells ran their only iteration.
i=0
while [ "$(grep -c '^\[cell ' "$tmp/err")" -lt 3 ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] || fail "interrupted run exited $rc, want 130"
cells=$(awk -F, '$8 == "total_rate" { print $4 }' "$tmp/a.csv" | sort -u | wc -l)
[ "$cells" = 2 ] || fail "$cells cells in the CSV, want the 2 that finished before the interrupt:
$(cat "$tmp/err")"
echo "interrupt: $fails failures"
exit $((fails > 0))
