#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# results/kernel/rerun.sh - the issue-13 (kernel-a) measurements, for a quiet machine.
#
#   results/kernel/rerun.sh [OUTDIR]
#
# Environment: BUILD (default build), ROUNDS (5), DUR (2s, the locktest window),
# BEFORE (optional: an rwlab binary built before these changes, e.g. from commit
# 5d5f33e; its rwsem and rwsem-rspin join the interleaved rounds as "before:NAME").
#
# 1. locktest r%90, 8 threads: ROUNDS interleaved rounds, each variant once per
#    round (the runner has no interleaving of its own), then per variant the
#    median total_rate, the median of the per-round ratios to pthread, and the
#    spin-time share (event.spin_ns / window / CPUs). "oncpu=flag,spin_budget_us=100"
#    is the pre-change owner_on_cpu/need_resched (the ablation knobs).
# 2. spin-cost: what one owner_on_cpu / need_resched sample costs.
# 3. ck-latency (ck's latency.c method, rdtscp) beside `rwlab bench` for the ck locks.
# Writes OUTDIR/{uptime.txt,locktest/*.csv,locktest.csv,locktest.txt,spin-cost.txt,
# ck-latency.txt,bench.txt}; prints the summaries.
set -eu
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-5}
DUR=${DUR:-2s}
OUT=${1:-results/kernel/rerun-$(date -u +%Y%m%dT%H%M%SZ)}
RWLAB=$BUILD/rwlab
for f in "$RWLAB" "$BUILD/tools/bench/spin-cost" "$BUILD/tools/bench/ck-latency"; do
	[ -x "$f" ] || { echo "rerun.sh: $f missing (build first: tools/setup)" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "rerun.sh: python3 is needed for the summary" >&2; exit 2; }
mkdir -p "$OUT/locktest"
{ date -u; uptime; nproc; } > "$OUT/uptime.txt"

set -- rwsem rwsem:oncpu=flag,spin_budget_us=100 rwsem-rspin rwsem-rspin:oncpu=flag,spin_budget_us=100 \
	pthread ck-rwlock
i=0
while [ "$i" -lt "$ROUNDS" ]; do
	k=0
	for v in "$@"; do
		"$RWLAB" run -q --no-report -l "$v" -w locktest:rpct=90 -t 8 -n 1 -d "$DUR" \
			-o "$OUT/locktest/r$i-v$k.csv" 2>/dev/null
		k=$((k + 1))
	done
	if [ -n "${BEFORE:-}" ]; then
		for v in rwsem rwsem-rspin; do
			"$BEFORE" run -q --no-report -l "$v" -w locktest:rpct=90 -t 8 -n 1 -d "$DUR" \
				-o "$OUT/locktest/r$i-before-$v.csv" 2>/dev/null
		done
	fi
	i=$((i + 1))
done
{ date -u; uptime; } >> "$OUT/uptime.txt"

python3 - "$OUT" "$DUR" <<'PY' | tee "$OUT/locktest.txt"
import csv, glob, os, re, statistics, sys
out, dur = sys.argv[1], sys.argv[2]
secs = float(re.match(r'([0-9.]+)', dur).group(1)) * {'ms': 1e-3, 'us': 1e-6, 'm': 60}.get(re.sub(r'[0-9.]', '', dur), 1)
rate, spin, rows, header = {}, {}, [], None
for f in sorted(glob.glob(os.path.join(out, 'locktest', 'r*.csv'))):
    rnd = int(re.match(r'r(\d+)-', os.path.basename(f)).group(1))
    before = '-before-' in f
    with open(f) as fh:
        rd = csv.reader(fh)
        header = next(rd)
        ix = {c: n for n, c in enumerate(header)}
        for r in rd:
            if before:
                r[ix['variant']] = 'before:' + r[ix['variant']]
            r[ix['iteration']] = str(rnd)
            rows.append(r)
            v, m, val = r[ix['variant']], r[ix['metric']], float(r[ix['value']])
            if m == 'total_rate':
                rate.setdefault(v, {})[rnd] = val
            elif m == 'event.spin_ns':
                spin.setdefault(v, {})[rnd] = val
            cpus = int(r[ix['cpus']])
with open(os.path.join(out, 'locktest.csv'), 'w', newline='') as fh:
    w = csv.writer(fh)
    w.writerow(header)
    w.writerows(rows)
p = rate.get('pthread', {})
print('locktest rpct=90, 8 threads on %d CPUs, %d interleaved rounds of %s' % (cpus, len(p), dur))
print('%-46s %12s %16s %12s' % ('variant', 'median op/s', 'median x pthread', 'spin share'))
for v in rate:
    ratios = [rate[v][k] / p[k] for k in rate[v] if k in p]
    sp = spin.get(v)
    share = '%11.1f%%' % (100 * statistics.median(sp.values()) / 1e9 / secs / cpus) if sp else '%12s' % '-'
    print('%-46s %12.0f %16.2f %s' % (v, statistics.median(rate[v].values()),
                                       statistics.median(ratios) if ratios else float('nan'), share))
PY

"$BUILD/tools/bench/spin-cost" | tee "$OUT/spin-cost.txt"
"$BUILD/tools/bench/ck-latency" | tee "$OUT/ck-latency.txt"
"$RWLAB" bench -l ck-rwlock,ck-pflock,ck-tflock,ck-brlock -n 31 --pairs 200000 2>/dev/null | tee "$OUT/bench.txt"
if [ -n "${BEFORE:-}" ]; then
	echo "before (ck-brlock adapter with a lab_current() lookup per call):" | tee -a "$OUT/bench.txt"
	"$BEFORE" bench -l ck-brlock -n 31 --pairs 200000 2>/dev/null | tee -a "$OUT/bench.txt"
fi
