#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Simulated results against golden files (tests/sim/golden/*.txt): a change
# to the engine's implementation (its speed, its data structures) must leave
# every simulated value byte-identical. The cells cover every simulated
# workload, the EEVDF and CFS schedulers, SMT, two sockets, cpuidle states,
# IPIs, RCU grace periods, oversubscription and load balancing, at 8 to 384
# CPUs, and torture --sim --kill. Compared: each data row's variant, workload,
# threads, iteration, metric, value and unit (not the run id, timestamp or
# host), and the kernel column less the engine's source hash (so the engine
# version sim-N, the machine file's hash and the seed); torture's report less
# its host-time line.
#
# A change meant to change simulated results (a new SIM_ENGINE_VERSION, a
# machine file, a lock port or a workload) regenerates the files in the same
# commit and says so: tests/sim/golden.sh build/rwlab tests/sim/golden --update
# The files hold the default build's values (jemalloc, no sanitizer): lines are
# modelled by address, so the allocator's placement is part of the machine
# (tests/meson.build registers this test only for that build).
# Usage: golden.sh RWLAB GOLDEN_DIR [--update]
set -u
rwlab=$1 dir=$2 update=${3:-}
tmp=${TMPDIR:-/tmp}/rwlab-sim-golden.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
fails=0 cells=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
[ "$update" != --update ] || mkdir -p "$dir" || exit 1

# tidy CSV: the compared columns of every data row, found by the header's names
tidy() {
	awk -F, 'function field(name) { return (name in col) ? $col[name] : "?" }
		/^#/ { next }
		!hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1; next }
		{ print field("variant") "," field("workload") "," field("threads") "," field("iteration") "," \
			field("metric") "," field("value") "," field("unit") }' "$1"
}

# the kernel column less the engine's source hash: sim-N, the machine's hash, the seed
kernel() {
	grep -ho 'rwlab-sim sim-[0-9]* engine [0-9a-f]* machine [0-9a-f]* seed [0-9]*' "$@" | head -1 |
		sed 's/ engine [0-9a-f]*//'
}

# judge NAME: $tmp/NAME.got against $dir/NAME.txt (or write it with --update)
judge() {
	cells=$((cells + 1))
	if [ "$update" = --update ]; then
		cp "$tmp/$1.got" "$dir/$1.txt" || fail "$1: cannot write $dir/$1.txt"
		return
	fi
	[ -f "$dir/$1.txt" ] || { fail "$1: no golden file $dir/$1.txt (make it with --update)"; return; }
	if ! cmp -s "$dir/$1.txt" "$tmp/$1.got"; then
		want=$(sed -n 's/^# kernel: //p' "$dir/$1.txt") got=$(sed -n 's/^# kernel: //p' "$tmp/$1.got")
		[ "$want" = "$got" ] || echo "note: $1 golden made with '$want', this build is '$got'"
		fail "$1: simulated results differ from $dir/$1.txt ($(diff "$dir/$1.txt" "$tmp/$1.got" | grep -c '^[<>]') lines):" \
			"$(diff "$dir/$1.txt" "$tmp/$1.got" | grep '^[<>]' | head -4 | tr '\n' ' ')"
	fi
}

# run NAME MACHINE ARGS...: rwlab run --sim MACHINE ARGS, tidied
run() {
	name=$1
	shift
	if ! "$rwlab" run --sim "$@" -q --no-report -o "$tmp/$name.csv" >"$tmp/$name.log" 2>&1; then
		fail "$name: rwlab run --sim $*: $(tail -2 "$tmp/$name.log")"
		return
	fi
	{
		echo "# command: rwlab run --sim $*"
		echo "# kernel: $(kernel "$tmp/$name".*)"
		tidy "$tmp/$name.csv"
	} >"$tmp/$name.got"
	judge "$name"
}

# torture NAME MACHINE ARGS...: rwlab torture --sim MACHINE ARGS, its report less the host time
torture() {
	name=$1
	shift
	"$rwlab" torture --sim "$@" >"$tmp/$name.log" 2>&1 || fail "$name: rwlab torture --sim $*: exit $?"
	{
		echo "# command: rwlab torture --sim $*"
		grep -v 'of host time$' "$tmp/$name.log"
	} >"$tmp/$name.got"
	judge "$name"
}

# bravo is left out: its visible-readers slot is a hash of the lock's address, and the address
# follows the binary's layout (main's 9585251 against ffba824: .bss 3 pages later, every
# bravo row moved and no other), so a change anywhere in rwlab-sim would move its rows.
run locktest-g8 generic-8 -l rwsem,rwsem-xadd,rwsem-rspin,rwsem-dhandoff,percpu-rwsem \
	-w locktest:rpct=90 -t 1,4,12 -d 2ms --warmup 500us -n 1
run locktest-g64 generic-64 -l rwsem -w locktest -t 16,64,96 -d 3ms --warmup 500us -n 2 --seed 7
run locktest-g384 generic-384 -l rwsem -w locktest:lat=0 -t 48,384 -d 2ms --warmup 0 -n 1
run locktest-skx112 skx-8180-2s112 -l rwsem,rwsem-xadd -w locktest -t 56,112 -d 2ms --warmup 200us -n 1
run locktest-hsw40 hsw-ep-2s40 -l rwsem,percpu-rwsem -w locktest:rpct=50 -t 10,40 -d 2ms --warmup 200us -n 1
run pft-g8 generic-8 -l rwsem -w pft:size_mb=4 --mm-lock mmap,vma,vma-refcnt -t 1,6 -n 1
run pft-epyc384 epyc9654-2s384 -l rwsem -w pft:size_mb=16 -t 192 -n 1
run context_switch-g8 generic-8 -l null -w context_switch -m all -t 1,3 -d 1ms --warmup 200us -n 1
run tlb_flush-g8 generic-8 -l null -w tlb_flush -m all -t 4 -d 1ms --warmup 200us -n 1
run tlb_flush-icx128 icx-6338-2s128 -l null -w tlb_flush -m refcount,hazptr -t 64 -d 500us --warmup 100us -n 1
run vmscale-g8 generic-8 -l null -w vmscale:sync,unit_mb=200 -t 4 -n 1
run reaim-g8 generic-8 -l rwsem -w reaim:compute -t 2 -n 1 --warmup 0
run gitcheckout-g8 generic-8 -l rwsem -w gitcheckout:pack_mb=16 -t 1 -n 1 --warmup 0
# The heap a cell starts from: a simulated object's lines are its host addresses, and so are those of
# the objects the harness allocated before the cell. Three small callocs added to the runner's plan
# (the ETA's counters, 2026-12-04) moved 23 rows of rwsem-rework's gitcheckout by 1e-5 (40 threads:
# iterations 2 to 4) with the engine hash unchanged; this cell, 1 s, is the one they moved.
run gitcheckout-ivb40 ivb-ep-2s40 -l rwsem-xadd -w gitcheckout:kernel=v5.0 -t 40 -n 5 --warmup 500ms -d 2s
run atomics-g8 generic-8 -l null -w atomics:op=rcas,think_ns=100 -t 4 -d 1ms --warmup 200us -n 1
run futex_pingpong-g8 generic-8 -l null -w futex_pingpong -t 2 -d 1ms --warmup 200us -n 1
torture torture-g8 generic-8 -l rwsem,percpu-rwsem -d 2ms --kill

if [ "$update" = --update ]; then
	[ $fails = 0 ] && echo "golden: wrote $cells files to $dir"
	exit $((fails > 0))
fi
[ $fails = 0 ] && echo "golden: $cells simulated cells byte-identical to $dir"
exit $((fails > 0))
