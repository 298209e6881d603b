#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The memory budget (README "Memory"): a plan whose peak does not fit MemAvailable is refused
# before anything is measured, with one line that gives the estimate and how to shrink it, and
# leaves the results file as it was (a new one is not made, a --resume'd one is not touched); a
# plan that fits runs, its pft cells sharing one region per block (unit/workload_metrics.c checks
# the sharing, tests/bench/footprint.py the quick matrix's peak).
# Usage: footprint.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1
case $rwlab in /*) ;; *) rwlab=$PWD/$rwlab ;; esac
cd "$tmp" || exit 1
avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
[ -n "$avail" ] || { echo "no MemAvailable in /proc/meminfo: skipped"; exit 77; }
big=$((avail * 4))	# MiB: a pft region four times the memory there is

# refused CMD...: exit 2 and exactly one line on stderr; the line in $line
refused() {
	"$@" >out 2>err
	local rc=$?
	line=$(cat err)
	[ $rc = 2 ] || fail "'$*' exited $rc, want 2: $line"
	[ "$(wc -l <err)" = 1 ] || fail "'$*': not one line on stderr: $line"
}

refused "$rwlab" run -l pthread,rwsem,bravo -w locktest,pft:size_mb=$big -t 1,2 -n 1 -o x.csv
echo "$line" | grep -q "^rwlab run: the plan needs about [0-9.]* GiB of memory at its peak, more than MemAvailable ([0-9.]* GiB): block pft:size_mb=$big t=2 holds [0-9.]* GiB shared by its 3 variants and [0-9]* MiB each; give pft:size_mb=[0-9]* or less (what the block shares)$" ||
	fail "the refusal line: $line"
fit=$(echo "$line" | sed -n 's/.*give pft:size_mb=\([0-9]*\) or less.*/\1/p')
[ -n "$fit" ] && [ "$fit" -lt "$avail" ] && [ "$fit" -gt $((avail / 2)) ] ||
	fail "the size it suggests ($fit MiB) is not within MemAvailable ($avail MiB)"
[ ! -e x.csv ] || fail "a refused plan made x.csv"

# The size it suggests fits where the block holds more than the knob's size: pft's touch=fresh
# holds the region twice (it suggested about MemAvailable, refused in turn). The plan is checked
# before the CSV is opened: a path that cannot be made stops it there, nothing measured.
refused "$rwlab" run -l pthread,rwsem -w pft:size_mb=$big,touch=fresh -t 2 -n 1 -o x.csv
fit=$(echo "$line" | sed -n 's/.*give pft:size_mb=\([0-9]*\) or less.*/\1/p')
[ -n "$fit" ] && [ "$fit" -lt $((avail / 2)) ] && [ "$fit" -gt $((avail / 4)) ] ||
	fail "touch=fresh: the size it suggests ($fit MiB) is not within half of MemAvailable ($avail MiB): $line"
"$rwlab" run -l pthread,rwsem -w pft:size_mb=${fit:-1},touch=fresh -t 2 -n 1 -o no/such/x.csv 2>err
grep -q "more than MemAvailable" err && fail "touch=fresh: the size it suggested is refused: $(cat err)"

# An existing file is neither moved aside nor touched by a plan that is refused.
"$rwlab" run -l pthread -w locktest -t 1 -n 1 -d 20ms --warmup 0 -q --no-report -o r.csv 2>/dev/null || fail "run r.csv: exit $?"
cp r.csv r0.csv
refused "$rwlab" run -l pthread -w locktest,pft:size_mb=$big -t 1 -n 1 -d 20ms --warmup 0 -q --no-report -o r.csv
cmp -s r.csv r0.csv && [ ! -e r.csv.1 ] || fail "a refused plan moved or changed the existing r.csv"

# A block that fits: three variants on one 32 MiB region, every cell measured on it.
"$rwlab" run -l pthread,rwsem,bravo -w pft:size_mb=32 -t 1,2 -n 2 -q --no-report -o fits.csv 2>err ||
	fail "a plan that fits: exit $?: $(cat err)"
[ "$(grep -c ',pft:size_mb=32,[12],[01],region_mb,32,' fits.csv)" = 12 ] ||
	fail "not every cell and iteration faulted the 32 MiB region: $(grep -c ',region_mb,' fits.csv) region_mb rows"
[ "$(grep -c ',failed_faults,0,' fits.csv)" = 12 ] || fail "failed faults in the shared region"

# Under --sim each cell is a process of its own and -j of them run at once: a -j given whose cells
# do not fit together is refused (the -j that fits named), as is a cell that does not fit alone
# (the size that fits named); nothing runs, no file is made. (A -j left to its default is lowered
# to what fits, with one line: lab_sim_cells_fit(), tests/unit/sim_cells.c.)
if [ -x "${rwlab%/*}/rwlab-sim" ]; then
	half=$((avail * 6 / 10))	# MiB: one such pft region fits, two do not
	refused "$rwlab" run --sim generic-8 -l null,rwsem -w pft:size_mb=$half -t 1 -n 1 -j 2 -o s.csv
	echo "$line" | grep -q "^rwlab run: -j 2: 2 cells at once need more memory than MemAvailable ([0-9.]* GiB; the largest cell, pft:size_mb=$half t=1, about [0-9.]* GiB): give -j 1 (one cell at a time)$" ||
		fail "the --sim -j refusal line: $line"
	# The cell that does not fit alone: the size that does, as natively, and that size is not refused.
	refused "$rwlab" run --sim generic-8 -l null -w pft:size_mb=$big -t 1 -n 1 -o s.csv
	echo "$line" | grep -q "^rwlab run: cell pft:size_mb=$big t=1 needs about [0-9.]* GiB of memory, more than MemAvailable ([0-9.]* GiB): give pft:size_mb=[0-9]* or less$" ||
		fail "the --sim one-cell refusal line: $line"
	[ ! -e s.csv ] || fail "a refused --sim plan made s.csv"
	fit=$(echo "$line" | sed -n 's/.*give pft:size_mb=\([0-9]*\) or less$/\1/p')
	[ -n "$fit" ] && [ "$fit" -lt "$avail" ] && [ "$fit" -gt $((avail / 2)) ] ||
		fail "--sim: the size it suggests ($fit MiB) is not within MemAvailable ($avail MiB): $line"
	"$rwlab" run --sim generic-8 -l null -w pft:size_mb=${fit:-1} -t 1 -n 1 -o no/such/x.csv 2>err
	grep -q "more than MemAvailable" err && fail "--sim: the size it suggested is refused: $(cat err)"
	# touch=fresh holds the region twice: about half
	refused "$rwlab" run --sim generic-8 -l null -w pft:size_mb=$big,touch=fresh -t 1 -n 1 -o s.csv
	fit=$(echo "$line" | sed -n 's/.*give pft:size_mb=\([0-9]*\) or less$/\1/p')
	[ -n "$fit" ] && [ "$fit" -lt $((avail / 2)) ] && [ "$fit" -gt $((avail / 4)) ] ||
		fail "--sim touch=fresh: the size it suggests ($fit MiB) is not within half of MemAvailable ($avail MiB): $line"
fi

[ $fails = 0 ] && echo "all footprint checks passed"
exit $((fails > 0))
