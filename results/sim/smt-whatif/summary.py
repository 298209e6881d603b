# SPDX-License-Identifier: GPL-2.0-only
"""The what-if's tables from run.sh's CSVs: pft faults/sec per placement and yield, reaim compute JPM per yield."""
import csv
import gzip
import os
import sys

if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
    sys.exit('usage: summary.py DIR   (run.sh\'s OUTDIR, or this directory: NAME.csv or NAME.csv.gz)')
out = sys.argv[1]
found = 0
YIELDS = ['', '-y1.5', '-y1.25', '-y1.0']
NAMES = {'': 'unset (a whole core each)', '-y1.5': '1.5', '-y1.25': '1.25', '-y1.0': '1.0'}


def means(path, metric):
    global found
    if not os.path.exists(path) and os.path.exists(path + '.gz'):
        path += '.gz'
    if not os.path.exists(path):
        return {}
    found += 1
    acc = {}
    with (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)) as f:
        for r in csv.DictReader(line for line in f if not line.startswith('#')):
            if r['metric'] == metric:
                acc.setdefault(int(r['threads']), []).append(float(r['value']))
    return {t: sum(v) / len(v) for t, v in acc.items()}


print('pft faults/sec, skx-8180-2s112 (Axel Rasmussen, 2 x Skylake-SP 112 threads: 574K, 2.06M, 4.70M, 3.82M, 3.63M)')
print('| placement | smt.exec_yield | 1 | 4 | 12 | 48 | 112 |')
print('|---|---|---:|---:|---:|---:|---:|')
for pin in ('compact', 'cores', 'none'):
    for y in YIELDS:
        m = means(f'{out}/pft-{pin}-skx-8180-2s112{y}.csv', 'faults/sec')
        if m:
            print(f'| {pin} | {NAMES[y]} | ' + ' | '.join(f'{m[t]:,.0f}' if t in m else '-' for t in (1, 4, 12, 48, 112)) + ' |')
pub = {1: 6674.01, 21: 85294.91, 41: 149674.7, 161: 207764.06}
print()
print('reaim compute JPM, ivb-ep-2s40, rwsem-xadd, --pin none (and x its own 1-client JPM)')
print('| smt.exec_yield | 1 | 21 | 41 | 161 |')
print('|---|---:|---:|---:|---:|')
print('| published (v5.0-rc6) | ' + ' | '.join(f'{pub[t]:,.0f} (x{pub[t] / pub[1]:.1f})' for t in (1, 21, 41, 161)) + ' |')
for y in YIELDS:
    m = means(f'{out}/reaim-ivb-ep-2s40{y}.csv', 'JPM')
    if m:
        print(f'| {NAMES[y]} | ' + ' | '.join(f'{m[t]:,.0f} (x{m[t] / m[1]:.1f})' if t in m and 1 in m else
                                               f'{m[t]:,.0f}' if t in m else '-' for t in (1, 21, 41, 161)) + ' |')
if not found:
    sys.exit(f'summary.py: no CSV of run.sh in {out}')
