#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The one path of --sim (harness/sim_cmd.h): run and torture parse it with
# their getopt tables, the front checks the machine before anything is
# executed and starts rwlab-sim with a fixed protocol; nothing scans argv.
# - `rwlab exec ... -- CMD --sim`: --sim is CMD's (nothing pre-scans argv);
# - a command without --sim refuses it as an unknown option: exit 2, one line;
# - a bad machine is refused by the front even with no rwlab-sim beside it,
#   and a good one then fails only for want of rwlab-sim;
# - rwlab-sim refuses a command line that is not the protocol, and the
#   protocol given by hand (without address randomisation, as the front
#   starts it) makes the very CSV `rwlab run --sim` makes; --sim=MACHINE
#   too; run's --seed is the engine's seed;
# - torture hands on its command line less --sim, --seed and --seeds: each
#   failing seed's replay line is exactly the command that replays it.
# Usage: sim_path.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1
need_sim "$rwlab"
# lines FILE: its line count
lines() { wc -l <"$1" | tr -d ' '; }

# exec: an argument after -- is the program's, --sim included (--force: echo and sh use no rwlock)
"$rwlab" exec -l rwsem -n 1 -q --no-report --force -o "$tmp/e.csv" -- echo --sim >/dev/null 2>"$tmp/e.err" ||
	fail "exec -l rwsem -- echo --sim: exit $?: $(head -2 "$tmp/e.err")"
grep -q '^4,[^,]*,[^,]*,rwsem,echo --sim,1,0,wall_s,' "$tmp/e.csv" ||
	fail "exec -- echo --sim: no wall_s row of workload 'echo --sim': $(sed -n 3p "$tmp/e.csv")"
# the program gets --sim as its argument: its output says so, read back as a metric
"$rwlab" exec -l rwsem -n 1 -q --no-report --force --metric 'got=sim arg ([0-9]+)' -o "$tmp/e2.csv" -- \
	sh -c 'test "$1" = --sim && echo "sim arg 7"' sh --sim >/dev/null 2>"$tmp/e.err" ||
	fail "exec -- sh -c ... --sim: exit $?: $(head -2 "$tmp/e.err")"
grep -q ',got,7,' "$tmp/e2.csv" || fail "exec: the program did not get --sim: $(grep -v wall_s "$tmp/e2.csv" | sed -n 2p)"

# a command that has no --sim: getopt's one line, exit 2
"$rwlab" report --sim generic-8 "$tmp/e.csv" >/dev/null 2>"$tmp/r.err"
rc=$?
[ $rc -eq 2 ] && [ "$(lines "$tmp/r.err")" = 1 ] && grep -q -- "--sim" "$tmp/r.err" ||
	fail "report --sim: exit $rc, $(cat "$tmp/r.err")"

# sim's -o is validate's page: list and show refuse it rather than ignore it
for c in "list" "show generic-4"; do
	# shellcheck disable=SC2086
	"$rwlab" sim $c -o "$tmp/p.html" >/dev/null 2>"$tmp/r.err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(lines "$tmp/r.err")" = 1 ] && grep -q "validate's page" "$tmp/r.err" && [ ! -e "$tmp/p.html" ] ||
		fail "sim $c -o FILE: exit $rc, $(cat "$tmp/r.err")"
done

# the machine is checked before anything is executed: with no rwlab-sim beside rwlab
mkdir "$tmp/alone"
cp "$rwlab" "$tmp/alone/rwlab"
for m in nosuch generic-513; do
	"$tmp/alone/rwlab" run --sim $m -l null -t 1 -d 1ms -n 1 -q >/dev/null 2>"$tmp/m.err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(lines "$tmp/m.err")" = 1 ] && grep -q "$m" "$tmp/m.err" &&
		! grep -q 'simulated build' "$tmp/m.err" || fail "run --sim $m without rwlab-sim: exit $rc, $(cat "$tmp/m.err")"
done
# a machine given as a path: one line that names it and the valid forms
for m in "$tmp/no/x.machine" "$tmp"; do
	"$tmp/alone/rwlab" run --sim "$m" -l null -t 1 -d 1ms -n 1 -q >/dev/null 2>"$tmp/m.err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(lines "$tmp/m.err")" = 1 ] && grep -qF "machine file '$m'" "$tmp/m.err" &&
		grep -q 'rwlab sim list, generic-N' "$tmp/m.err" || fail "run --sim $m: exit $rc, $(cat "$tmp/m.err")"
done
# no machine file where they are looked for (the directory missing or empty): one line that names
# the directory and RWLAB_SIM_MACHINES, from run, sim list and tools/reproduce (it said only
# "DIR/generic.machine: No such file or directory", or "valid: see rwlab sim list" of an empty list)
mkdir "$tmp/nomachines"
for d in "$tmp/nomachines" "$tmp/nosuchdir"; do
	for m in generic-8 epyc-2vcpu; do
		RWLAB_SIM_MACHINES=$d expect "RWLAB_SIM_MACHINES=$d run --sim $m --list-cells" 2 \
			"^rwlab run: no simulated machines: $d[: ].*set RWLAB_SIM_MACHINES" \
			"$tmp/alone/rwlab" run --sim $m -l rwsem -w locktest -t 1,2 -d 2ms -n 1 --list-cells
	done
	RWLAB_SIM_MACHINES=$d expect "RWLAB_SIM_MACHINES=$d sim list" 1 \
		"^rwlab sim list: no simulated machines: $d[: ].*set RWLAB_SIM_MACHINES" "$tmp/alone/rwlab" sim list
	[ -s "$tmp/o" ] && fail "RWLAB_SIM_MACHINES=$d sim list: printed $(head -1 "$tmp/o")"
	RWLAB=$rwlab RWLAB_SIM_MACHINES=$d expect "RWLAB_SIM_MACHINES=$d tools/reproduce per-vma-locks --sim -- --list-cells" 2 \
		"^rwlab run: no simulated machines: $d[: ].*set RWLAB_SIM_MACHINES" \
		"$(dirname "$0")/../../tools/reproduce" per-vma-locks --sim -- --list-cells
done
# machine files but no generic.machine: generic-N says so and names the machines there (it said only
# "DIR/generic.machine: No such file or directory")
mkdir "$tmp/nogeneric" && cp "$(dirname "$0")/../../sim/machines/epyc-2vcpu.machine" "$tmp/nogeneric/"
RWLAB_SIM_MACHINES=$tmp/nogeneric expect "RWLAB_SIM_MACHINES=nogeneric run --sim generic-8 --list-cells" 2 \
	"^rwlab run: unknown machine 'generic-8': $tmp/nogeneric holds no generic\.machine, which generic-N is made from \(valid: epyc-2vcpu; set RWLAB_SIM_MACHINES" \
	"$tmp/alone/rwlab" run --sim generic-8 -l rwsem -w locktest -t 1 -d 2ms -n 1 --list-cells
RWLAB_SIM_MACHINES=$tmp/nogeneric expect "RWLAB_SIM_MACHINES=nogeneric sim show generic-8" 2 \
	"^rwlab sim show: unknown machine 'generic-8': $tmp/nogeneric holds no generic\.machine" \
	"$tmp/alone/rwlab" sim show generic-8
# a good machine file given as a path runs, and its rows' kernel column is the name form's (the
# machine hash of a copy of NAME.machine is NAME's; it was empty, and every cell failed)
src=$(dirname "$0")/../../sim/machines/skl-6700hq-1s8.machine
mkdir "$tmp/mf" && cp "$src" "$tmp/mf/skl-6700hq-1s8.machine"
for m in skl-6700hq-1s8 "$tmp/mf/skl-6700hq-1s8.machine"; do
	f=$tmp/mf/$(echo "$m" | tr -c 'a-z0-9\n' _).csv
	"$rwlab" run --sim "$m" -l null -w atomics -t 1,2 --pin cores -n 1 -d 100us --warmup 10us -q --no-report -o "$f" >/dev/null 2>"$tmp/m.err" ||
		fail "run --sim $m: exit $?: $(tail -1 "$tmp/m.err")"
	grep -o 'rwlab-sim [^,]* machine [0-9a-f]\{8\} seed 1' "$f" | sort -u >"$f.k"
done
[ "$(cat "$tmp"/mf/*.csv.k | sort -u | wc -l)" = 1 ] && [ -s "$tmp/mf/skl_6700hq_1s8.csv.k" ] ||
	fail "run --sim PATH: kernel columns differ or lack the machine hash: $(cat "$tmp"/mf/*.csv.k | tr '\n' ' ')"
# ... and each cell runs that file, not sim/machines/NAME.machine (cells were started with the name)
mkdir "$tmp/mf2" && sed 's/^rmw.hold_share = [0-9.]*/rmw.hold_share = 1/' "$src" >"$tmp/mf2/skl-6700hq-1s8.machine"
"$rwlab" run --sim "$tmp/mf2/skl-6700hq-1s8.machine" -l null -w atomics -t 1,2 --pin cores -n 1 -d 100us --warmup 10us -q --no-report \
	-o "$tmp/mf2/r.csv" >/dev/null 2>"$tmp/m.err" || fail "run --sim a changed PATH: exit $?: $(tail -1 "$tmp/m.err")"
a=$(grep -o ',ops_per_s,[^,]*' "$tmp/mf/skl_6700hq_1s8.csv") b=$(grep -o ',ops_per_s,[^,]*' "$tmp/mf2/r.csv")
[ -n "$b" ] && [ "$a" != "$b" ] || fail "run --sim PATH with rmw.hold_share = 1: ops_per_s '$b', the file's own '$a' (the cell ran NAME.machine?)"
"$tmp/alone/rwlab" torture --sim nosuch -d 1ms >/dev/null 2>"$tmp/m.err"
rc=$?
[ $rc -eq 2 ] && grep -q nosuch "$tmp/m.err" && ! grep -q 'simulated build' "$tmp/m.err" ||
	fail "torture --sim nosuch without rwlab-sim: exit $rc, $(cat "$tmp/m.err")"
"$tmp/alone/rwlab" run --sim generic-8 -l null -t 1 -d 1ms -n 1 -q >/dev/null 2>"$tmp/m.err"
rc=$?
[ $rc -eq 2 ] && grep -q 'needs the simulated build' "$tmp/m.err" ||
	fail "run --sim generic-8 without rwlab-sim: exit $rc, $(cat "$tmp/m.err")"

# RWLAB_SIM_STATS under -j: each cell's statistics whole, under a line that names the cell, in cell
# order, and none from the run's own process, which runs no cell (the cells' lines came unnamed, as
# each process wrote them, and a last line of 0 accesses followed). The run's own WARNING lines (a
# sanitizer tree's build type, a loaded host) are not the statistics' and are left out first.
RWLAB_SIM_STATS=1 "$rwlab" run --sim generic-8 -l rwsem -w locktest -t 1,2,3 -d 2ms -n 1 -j 2 -q --no-report \
	-o "$tmp/stats.csv" >/dev/null 2>"$tmp/stats.err" || fail "RWLAB_SIM_STATS=1 run -j 2: exit $?: $(head -3 "$tmp/stats.err")"
grep -v '^WARNING: ' "$tmp/stats.err" |
	awk '/^rwlab run: cell rwsem locktest t=[0-9]+, its rwlab-sim.s messages:$/ { n++; cell[n] = $6; sub(/,$/, "", cell[n]); first = 1; next }
	first && !/^rwlab-sim stats: [0-9.]+ s virtual / { bad = "a block does not start with its cell'"'"'s counters: " $0 }
	{ first = 0 }
	/ s virtual / { v++ }
	!/^rwlab-sim stats: / { bad = "a line outside the blocks: " $0 }
	END {
		if (bad == "" && (n != 3 || v != 3 || cell[1] != "t=1" || cell[2] != "t=2" || cell[3] != "t=3"))
			bad = n + 0 " cells named (" cell[1] " " cell[2] " " cell[3] "), " v + 0 " counter lines; want t=1, t=2, t=3, one each"
		if (bad != "") { print bad; exit 1 }
	}' >"$tmp/stats.bad" || fail "RWLAB_SIM_STATS=1 run -j 2: $(cat "$tmp/stats.bad")"

# ... and under torture --seeds -j, each passing seed's statistics whole under a line naming the seed,
# in seed order (a passing seed's output is not shown, and its statistics went with it: none printed)
RWLAB_SIM_STATS=1 "$rwlab" torture --sim generic-8 -l rwsem -d 2ms --seeds 3 -j 2 >/dev/null 2>"$tmp/tstats.err" ||
	fail "RWLAB_SIM_STATS=1 torture --seeds 3 -j 2: exit $?: $(head -3 "$tmp/tstats.err")"
grep -v '^WARNING: ' "$tmp/tstats.err" |
	awk '/^rwlab torture: seed [0-9]+, its rwlab-sim.s messages:$/ { n++; seed[n] = $4; sub(/,$/, "", seed[n]); first = 1; next }
	first && !/^rwlab-sim stats: [0-9.]+ s virtual / { bad = "a block does not start with its seed'"'"'s counters: " $0 }
	{ first = 0 }
	/ s virtual / { v++ }
	!/^rwlab-sim stats: / { bad = "a line outside the blocks: " $0 }
	END {
		if (bad == "" && (n != 3 || v != 3 || seed[1] != 1 || seed[2] != 2 || seed[3] != 3))
			bad = n + 0 " seeds named (" seed[1] " " seed[2] " " seed[3] "), " v + 0 " counter lines; want 1, 2, 3, one each"
		if (bad != "") { print bad; exit 1 }
	}' >"$tmp/tstats.bad" || fail "RWLAB_SIM_STATS=1 torture --seeds 3 -j 2: $(cat "$tmp/tstats.bad")"

# rwlab-sim takes the protocol only
"$sim" run --sim generic-4 -l null -t 1 >/dev/null 2>"$tmp/p.err"
rc=$?
[ $rc -eq 2 ] && [ "$(lines "$tmp/p.err")" = 1 ] && grep -q 'rwlab run --sim' "$tmp/p.err" ||
	fail "rwlab-sim with a user's command line: exit $rc, $(cat "$tmp/p.err")"
"$sim" --machine generic-4 --seed 1 --seeds 1 -- list >/dev/null 2>"$tmp/p.err"
[ $? -eq 2 ] && grep -q 'run and torture' "$tmp/p.err" || fail "rwlab-sim -- list: $(cat "$tmp/p.err")"

# ... and its numbers in range: no seed past 2^64 - 1 read as 2^64 - 1, one schedule for run,
# torture's seeds within torture's --seed (the front checks these too)
for p in "99999999999999999999 1 run" "1 2 run" "9223372036854775807 2 torture"; do
	# shellcheck disable=SC2086
	set -- $p
	"$sim" --machine generic-4 --seed "$1" --seeds "$2" -- "$3" -l null -t 1 -d 1ms -n 1 -q --no-report \
		-o "$tmp/proto-bad.csv" >/dev/null 2>"$tmp/p.err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(lines "$tmp/p.err")" = 1 ] && grep -q '^rwlab-sim: ' "$tmp/p.err" && [ ! -e "$tmp/proto-bad.csv" ] ||
		fail "rwlab-sim --seed $1 --seeds $2 -- $3: exit $rc, $(cat "$tmp/p.err")"
done
# the front and the protocol by hand: one CSV (apart from the run id and the timestamp)
args="-l rwsem,bravo -w locktest:rpct=90 -t 1,3 -d 1ms --warmup 200us -n 1 -q --no-report"
# shellcheck disable=SC2086
"$rwlab" run --sim generic-4 --seed 5 $args -o "$tmp/front.csv" >/dev/null 2>"$tmp/f.err" ||
	fail "run --sim generic-4: $(head -2 "$tmp/f.err")"
grep -q 'rwlab-sim sim-[0-9]* engine [0-9a-f]* machine [0-9a-f]* seed 5,' "$tmp/front.csv" || fail "run --seed 5 --sim: the engine's seed is not 5"
cut -d, -f1,4- "$tmp/front.csv" >"$tmp/front.cut"
# shellcheck disable=SC2086
"$rwlab" run --seed 5 --sim=generic-4 $args -o "$tmp/eq.csv" >/dev/null 2>&1 || fail "run --sim=generic-4"
cut -d, -f1,4- "$tmp/eq.csv" | cmp -s - "$tmp/front.cut" || fail "--sim=generic-4 and --sim generic-4 differ"
if command -v setarch >/dev/null; then
	# shellcheck disable=SC2086
	setarch "$(uname -m)" -R "$sim" --machine generic-4 --seed 5 --seeds 1 -- run --seed 5 $args \
		-o "$tmp/proto.csv" >/dev/null 2>"$tmp/pr.err" || fail "the protocol by hand: $(head -2 "$tmp/pr.err")"
	cut -d, -f1,4- "$tmp/proto.csv" | cmp -s - "$tmp/front.cut" ||
		fail "the protocol by hand and run --sim differ: $(cut -d, -f1,4- "$tmp/proto.csv" | diff - "$tmp/front.cut" | head -3)"
fi

# torture --seeds past the largest --seed: refused first, not N-1 false FAILUREs of seeds torture refuses
"$tmp/alone/rwlab" torture --sim generic-4 -l rwsem -d 1ms --seed 9223372036854775807 --seeds 2 >/dev/null 2>"$tmp/s.err"
rc=$?
[ $rc -eq 2 ] && [ "$(lines "$tmp/s.err")" = 1 ] && grep -q -- '--seeds 2 goes past the largest seed' "$tmp/s.err" ||
	fail "torture --seed 2^63-1 --seeds 2: exit $rc, $(cat "$tmp/s.err")"

# a long command line (300 -q, --sim past them): no fixed limit, and --sim is still taken out
qs=$(printf ' -q%.0s' $(seq 300))
# shellcheck disable=SC2086
"$rwlab" run $qs -l null -t 1 -n 1 -d 1ms --no-report -o "$tmp/long.csv" --sim generic-4 >/dev/null 2>"$tmp/l.err" ||
	fail "run with 300 -q and --sim: exit $?: $(head -2 "$tmp/l.err")"
grep -q 'rwlab-sim sim-[0-9]* engine [0-9a-f]* machine [0-9a-f]* seed 1,' "$tmp/long.csv" 2>/dev/null || fail "run with 300 -q and --sim: not simulated"

# torture: the replay line is the command line less --seeds, with the seed that failed
"$rwlab" torture --seed 3 --sim generic-4 -l busted -d 2ms --seeds 2 >"$tmp/t.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "torture --sim -l busted --seeds 2: exit $rc"
grep -q 'torture: --sim generic-4: 2 of 2 seeds done (3..4)' "$tmp/t.out" || fail "torture --seeds 2 from 3: $(grep 'seeds done' "$tmp/t.out")"
grep '^rwlab torture: replay: ' "$tmp/t.out" >"$tmp/replays"
[ -s "$tmp/replays" ] || fail "torture --sim -l busted: no replay line"
grep -v -x -e 'rwlab torture: replay: rwlab torture -l busted -d 2ms --sim generic-4 --seed [34]' "$tmp/replays" >"$tmp/bad"
[ -s "$tmp/bad" ] && fail "replay lines not the command that replays: $(head -2 "$tmp/bad")"

[ $fails -eq 0 ] && echo "sim-path: all checks passed"
exit $((fails > 0))
