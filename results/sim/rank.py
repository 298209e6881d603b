#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Rank agreement of two rwlab CSVs (native vs simulated): per (workload,
threads) cell, the variants ordered by mean total_rate in each, and
Spearman's rank correlation (ties get their average rank) per cell and
pooled over all cells (Pearson correlation of the within-cell ranks)."""
import csv, statistics, sys


def load(path):
    m = {}
    for r in csv.DictReader(open(path)):
        if r['metric'] == 'total_rate':
            m.setdefault((r['workload'], int(r['threads']), r['variant']), []).append(float(r['value']))
    return {k: statistics.mean(v) for k, v in m.items()}


def ranks(xs):
    """1 = highest; ties (equal within 0.1%) share their average rank."""
    order = sorted(range(len(xs)), key=lambda i: -xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and abs(xs[order[j + 1]] - xs[order[i]]) <= 1e-3 * abs(xs[order[i]]):
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def pearson(a, b):
    ma, mb = statistics.mean(a), statistics.mean(b)
    cov = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    va = sum((x - ma) ** 2 for x in a)
    vb = sum((y - mb) ** 2 for y in b)
    return cov / (va * vb) ** 0.5 if va and vb else float('nan')


nat, sim = load(sys.argv[1]), load(sys.argv[2])
cells = sorted({(w, t) for (w, t, v) in nat})
pa, pb = [], []
print("%-18s %3s %7s  %-48s %s" % ("workload", "t", "rho", "native order", "simulated order"))
for w, t in cells:
    vs = sorted(v for (w2, t2, v) in nat if (w2, t2) == (w, t) and (w, t, v) in sim)
    a = [nat[(w, t, v)] for v in vs]
    b = [sim[(w, t, v)] for v in vs]
    ra, rb = ranks(a), ranks(b)
    pa += ra
    pb += rb
    fmt = lambda xs, rs: " > ".join(v for _, v in sorted(zip(rs, vs)))
    rho = pearson(ra, rb)
    print("%-18s %3d %7.2f  %-48s %s" % (w, t, rho, fmt(a, ra), fmt(b, rb)))
    print("%-30s %s" % ("", "  ".join("%s %.3g/%.3g" % (v, x, y) for v, x, y in zip(vs, a, b))))
print("pooled Spearman rank correlation (native vs simulated, %d cells x variants): %.3f"
      % (len(cells), pearson(pa, pb)))
