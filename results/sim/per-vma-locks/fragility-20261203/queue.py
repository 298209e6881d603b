#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Read a trace of every access to the mm_struct's hot line (diag.patch's
RWLAB_FRAG_OUT: cpu op pc request_ps done_ps xfer socket per line) and say,
for each fault's pgd read, how long after its own trylock's line arrival it
was made (delta), whether it hit, and what the line did in between: the
transfer that landed next after the trylock (its distance in ns and kind).

    queue.py TRACE [PC_TRYLOCK_LOAD PC_PGD_LOAD]

Without the pcs they are found from each CPU's order of accesses: the
trylock's load is the load most often followed at once (same picosecond)
by a locked RMW (rule 7's read for ownership); the pgd read is the load
most often followed by the RMW that follows no load at once (up_read).
"""
import collections
import sys

path = sys.argv[1]
recs = []
for ln in open(path):
    c, op, pc, req, done, xf, sock = ln.split()
    recs.append((int(c), int(op), pc, int(req), int(done), int(xf), int(sock)))
if len(sys.argv) > 3:
    pc_try, pc_pgd = sys.argv[2], sys.argv[3]
else:
    prev, rfo, after = {}, collections.Counter(), collections.Counter()
    for r in recs:
        p = prev.get(r[0])
        if p and p[1] == 0 and r[1] == 2:
            (rfo if r[3] == p[4] else after)[(p[2], r[2])] += 1
        prev[r[0]] = r
    pc_try = rfo.most_common(1)[0][0][0]
    pc_pgd = after.most_common(1)[0][0][0]
    print(f"trylock load pc {pc_try}, pgd read pc {pc_pgd} (trace offsets)")

# transfers (arrivals that moved the line), in arrival order
xfers = sorted((r for r in recs if r[5]), key=lambda r: r[4])
arr = [r[4] for r in xfers]
import bisect

last_try = {}
rows = []
for r in recs:  # the trace is in engine (virtual-time) order
    c, op, pc, req, done, xf, sock = r
    if pc == pc_try and op == 0:
        last_try[c] = r
    elif pc == pc_pgd and op == 0 and c in last_try:
        t = last_try[c]
        delta = (req - t[4]) / 1000.0
        i = bisect.bisect_right(arr, t[4])
        nxt = xfers[i] if i < len(xfers) else None
        gap = (nxt[4] - t[4]) / 1000.0 if nxt else None
        kind = ('pgd' if nxt[2] == pc_pgd else 'other') if nxt else None
        same = (nxt[6] == t[6]) if nxt else None
        rows.append((delta, xf == 0, gap, kind, same))

n = len(rows)
hits = sum(1 for r in rows if r[1])
print(f"pgd reads {n}, hits {hits} ({100.0 * hits / n:.1f}%), misses {n - hits} ({100.0 * (n - hits) / n:.1f}%)")
# delta histogram (0.1 ns bins), hit share per bin
h = collections.Counter(round(r[0], 1) for r in rows)
hh = collections.Counter(round(r[0], 1) for r in rows if r[1])
print("delta (ns, pgd read request - own trylock arrival): count, hit %")
for d in sorted(h):
    if h[d] >= n / 200:
        print(f"  {d:8.1f} {h[d]:7d} {100.0 * hh[d] / h[d]:5.1f}%")
print(f"  (bins under 0.5% of reads left out: {sum(v for d, v in h.items() if v < n / 200)} reads)")
# the next transfer after the trylock: its gap and kind, and the hit share
g = collections.Counter((round(r[2], 1), r[3]) for r in rows if r[2] is not None)
gh = collections.Counter((round(r[2], 1), r[3]) for r in rows if r[2] is not None and r[1])
print("next transfer of the line after the trylock's arrival: gap (ns), kind, count, hit %")
for k in sorted(g, key=lambda k: -g[k])[:12]:
    print(f"  {k[0]:8.1f} {k[1]:6s} {g[k]:7d} {100.0 * gh[k] / g[k]:5.1f}%")
# queue depth seen by the trylock loads: transfers reserved ahead (wait / mean transfer)
waits = [(r[4] - r[3]) / 1000.0 for r in recs if r[2] == pc_try and r[0] >= 0 and r[5]]
if waits:
    waits.sort()
    print(f"trylock load waits (ns): median {waits[len(waits) // 2]:.0f}, p10 {waits[len(waits) // 10]:.0f}, "
          f"p90 {waits[9 * len(waits) // 10]:.0f}")
span = (arr[-1] - arr[0]) / 1000.0
print(f"line transfers {len(xfers)} in {span / 1000:.1f} us: {span / len(xfers):.1f} ns each; "
      f"cross-socket {sum(1 for a, b in zip(xfers, xfers[1:]) if a[6] != b[6])} of {len(xfers) - 1} consecutive pairs")
