#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# results/kernel/faithful-20261202/run.sh - issue 28 items 1-3's measurements
# (owner_on_cpu from the context-switch rings), to re-run on a quiet machine.
#
#   results/kernel/faithful-20261202/run.sh [OUTDIR]
#
# Environment: BUILD (default build), ROUNDS (5), DUR (2s, the locktest window),
# HO_ROUNDS (300) and HO_BLOCKS (10) for handover, NICE (0; the loaded-machine
# run used 5), BEFORE (optional: an rwlab binary of
# an older commit, whose rwsem and rwsem-rspin join the locktest rounds as
# "before:NAME").
#
# 1. handover: handover latency p50/p90 after up_write (owner 30 us busy), and
#    the wasted spin per down_write against an owner sleeping in nanosleep, for
#    rwsem, rwsem-rspin and rwsem-xadd with oncpu=switch (default) and oncpu=flag,
#    HO_BLOCKS x HO_ROUNDS rounds, variants interleaved by block.
# 2. spin-cost: what one owner_on_cpu / need_resched look costs per signal.
# 3. locktest r%90, 8 threads: ROUNDS interleaved rounds, each variant once per
#    round (norings:V = V with RWLAB_SWITCH_RINGS=0: no perf rings, so no record
#    per context switch, and owner_on_cpu() falls back to the clock), then per variant the median total_rate, the median of the per-round
#    ratios to pthread, and the spin share (event.spin_ns / window / CPUs).
# Writes OUTDIR/{uptime.txt,handover.txt,spin-cost.txt,locktest/*.csv,
# locktest.csv,locktest.txt}; prints the summaries.
set -eu
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-5}
DUR=${DUR:-2s}
NICE=${NICE:-0}
HO_ROUNDS=${HO_ROUNDS:-300}
HO_BLOCKS=${HO_BLOCKS:-10}
OUT=${1:-results/kernel/faithful-rerun-$(date -u +%Y%m%dT%H%M%SZ)}
RWLAB=$BUILD/rwlab
for f in "$RWLAB" "$BUILD/tools/bench/spin-cost" "$BUILD/tools/bench/handover"; do
	[ -x "$f" ] || { echo "run.sh: $f missing (build first: tools/setup)" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "run.sh: python3 is needed for the summary" >&2; exit 2; }
mkdir -p "$OUT/locktest"
{ date -u; uptime; nproc; cat /proc/sys/kernel/perf_event_paranoid; } > "$OUT/uptime.txt"

nice -n "$NICE" "$BUILD/tools/bench/handover" -n "$HO_ROUNDS" -b "$HO_BLOCKS" | tee "$OUT/handover.txt"
{ date -u; uptime; } >> "$OUT/uptime.txt"
nice -n "$NICE" "$BUILD/tools/bench/spin-cost" | tee "$OUT/spin-cost.txt"

set -- rwsem rwsem:oncpu=flag rwsem-rspin rwsem-rspin:oncpu=flag pthread
i=0
while [ "$i" -lt "$ROUNDS" ]; do
	k=0
	for v in "$@"; do
		nice -n "$NICE" "$RWLAB" run -q --no-report -l "$v" -w locktest:rpct=90 -t 8 -n 1 -d "$DUR" \
			-o "$OUT/locktest/r$i-v$k.csv" 2>/dev/null
		k=$((k + 1))
	done
	# The rings' own cost: every context switch of a thread with one writes a record.
	for v in rwsem pthread; do
		RWLAB_SWITCH_RINGS=0 nice -n "$NICE" "$RWLAB" run -q --no-report -l "$v" -w locktest:rpct=90 -t 8 \
			-n 1 -d "$DUR" -o "$OUT/locktest/r$i-norings-$v.csv" 2>/dev/null
	done
	if [ -n "${BEFORE:-}" ]; then
		for v in rwsem rwsem-rspin; do
			nice -n "$NICE" "$BEFORE" run -q --no-report -l "$v" -w locktest:rpct=90 -t 8 -n 1 \
				-d "$DUR" -o "$OUT/locktest/r$i-before-$v.csv" 2>/dev/null
		done
	fi
	i=$((i + 1))
done
{ date -u; uptime; } >> "$OUT/uptime.txt"

python3 - "$OUT" "$DUR" <<'PY' | tee "$OUT/locktest.txt"
import csv, glob, os, re, statistics, sys
out, dur = sys.argv[1], sys.argv[2]
secs = float(re.match(r'([0-9.]+)', dur).group(1)) * {'ms': 1e-3, 'us': 1e-6, 'm': 60}.get(re.sub(r'[0-9.]', '', dur), 1)
rate, spin, rows, header, cpus = {}, {}, [], None, 0
for f in sorted(glob.glob(os.path.join(out, 'locktest', 'r*.csv'))):
    rnd = int(re.match(r'r(\d+)-', os.path.basename(f)).group(1))
    before = '-before-' in f
    norings = '-norings-' in f
    with open(f) as fh:
        rd = csv.reader(l for l in fh if not l.startswith('#'))
        header = next(rd)
        ix = {c: n for n, c in enumerate(header)}
        for r in rd:
            if before:
                r[ix['variant']] = 'before:' + r[ix['variant']]
            if norings:
                r[ix['variant']] = 'norings:' + r[ix['variant']]
            r[ix['iteration']] = str(rnd)
            rows.append(r)
            v, m, val = r[ix['variant']], r[ix['metric']], float(r[ix['value']])
            if m == 'total_rate':
                rate.setdefault(v, {})[rnd] = val
            elif m == 'event.spin_ns':
                spin.setdefault(v, {})[rnd] = val
            if 'cpus' in ix:
                cpus = int(r[ix['cpus']])
cpus = cpus or os.cpu_count()
with open(os.path.join(out, 'locktest.csv'), 'w', newline='') as fh:
    w = csv.writer(fh)
    w.writerow(header)
    w.writerows(rows)
p = rate.get('pthread', {})
print('locktest rpct=90, 8 threads on %d CPUs, %d interleaved rounds of %s' % (cpus, len(p), dur))
print('%-30s %12s %16s %10s %12s' % ('variant', 'median op/s', 'median x pthread', 'min..max x', 'spin share'))
for v in rate:
    ratios = [rate[v][k] / p[k] for k in rate[v] if k in p]
    sp = spin.get(v)
    share = '%11.1f%%' % (100 * statistics.median(sp.values()) / 1e9 / secs / cpus) if sp else '%12s' % '-'
    print('%-30s %12.0f %16.2f %4.2f..%4.2f %s' % (v, statistics.median(rate[v].values()),
          statistics.median(ratios) if ratios else float('nan'),
          min(ratios) if ratios else float('nan'), max(ratios) if ratios else float('nan'), share))
PY
