#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# All six rwsem-rspin knobs set, two configurations that differ only in the
# last one (spin_budget_us): two distinct cells in the CSV, each labelled in
# full (the labels used to be cut at 98 characters and
# merged both cells).
#   usage: labels.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1
base='rwsem-rspin:handoff_timeout_us=10000000,rspin=0,wspin=0,max_readers_wakeup=1048576,rspin_threshold_us=1000000'
"$rwlab" run -l "$base,spin_budget_us=1000000,$base,spin_budget_us=999999" -w locktest -t 1 -n 1 -d 10ms \
	--warmup 0 -o "$tmp/r.csv" --no-report -q 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
# The variant column holds commas, so it is quoted: count the labels by their last knob.
n=$(grep -c ',"rwsem-rspin:.*spin_budget_us=' "$tmp/r.csv")
cells=$(grep -o ',"rwsem-rspin:[^"]*"' "$tmp/r.csv" | sort -u | wc -l)
[ "$cells" = 2 ] || { echo "FAIL: want 2 distinct variant labels, got $cells"; exit 1; }
for v in 1000000 999999; do
	grep -q ",\"$base,spin_budget_us=$v\"," "$tmp/r.csv" || { echo "FAIL: label with spin_budget_us=$v not in full"; exit 1; }
done
echo "ok: 2 cells, $n rows, labels in full"
