#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# classes.py A.report.txt B.report.txt: the verdict class of every compared
# row of two tools/reproduce reports, side by side, and how many match.
import re, sys

def rows(path):
    out, sec = [], None
    for line in open(path):
        if ' <-> ' in line:
            sec = line.split('<->')[0].strip()
        m = re.match(r'^(\S+)\s.*\|\s*(agree|disagree|inconclusive|published-flat[^|]*|scale-gap|n/a)\s*$',
                     line.rstrip())
        if m and m.group(2) != 'n/a':
            out.append((sec, m.group(1), m.group(2).split(',')[0]))
    return out

a, b = rows(sys.argv[1]), rows(sys.argv[2])
if [r[:2] for r in a] != [r[:2] for r in b]:
    sys.exit('classes.py: the two reports compare different rows')
same = 0
for x, y in zip(a, b):
    same += x[2] == y[2]
    print(f'{x[0]:<48} {x[1]:>5}  {x[2]:<15} {y[2]:<15} {"same" if x[2] == y[2] else "DIFFERENT"}')
print(f'same class on {same} of {len(a)} rows ({100 * same / len(a):.0f}%)')
sys.exit(0 if len(a) else 1)
