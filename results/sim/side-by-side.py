#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Published, previous engine and this engine side by side, per row, as markdown.

    python3 results/sim/side-by-side.py OLD.report.txt NEW.report.txt [OLD_LABEL NEW_LABEL]
    python3 results/sim/side-by-side.py LABEL=A.report.txt LABEL=B.report.txt LABEL=C.report.txt ...

Both inputs are `rwlab report --reference` outputs (the published-against-rwlab
blocks that tools/reproduce writes into NAME.report.txt), made with the same
rules: re-judge an older engine's CSV with today's rwlab report and the same
matrix first, so that both verdict columns mean the same. Per block (metric) a
table: clients, the published base, new and change, then for each engine the
simulated base, new and change (* significant, ( ) not, as the report marks
it), the size ratio simulated change / published change (negative: opposite
directions) and the verdict. Every simulated figure is the model's, not a
measurement of hardware.
"""
import re
import sys

HEAD = re.compile(r'^(\S.*?) \(published .*?\)\s+<->\s+rwlab (.*)$')
PUB = re.compile(r'^published: base (.*?), new (.*?);')
NUM = r'(?:[\d,.]+|-)'
CHG = r'(\(?[+-]?[\d.,]+%[*?]?\)?|-)'
ROW = re.compile(r'^(\S+)\s+(' + NUM + r')\s+(' + NUM + r')\s+' + CHG + r'\s*\|\s*(\S+)\s+(' + NUM + r')\s+('
                 + NUM + r')\s+' + CHG + r'\s*\|\s*(.+?)\s*$')


def parse(path):
    blocks, cur, rwlab = {}, None, None
    for line in open(path):
        m = HEAD.match(line.rstrip('\n'))
        if m:
            cur, rwlab = m.group(1), m.group(2)
            continue
        m = PUB.match(line)
        if m and cur and rwlab:
            cur = f'{cur} ({m.group(1)} against {m.group(2)})'
            blocks[cur] = {'order': [], 'rows': {}, 'rwlab': rwlab}
            rwlab = None
            continue
        m = ROW.match(line.rstrip('\n'))
        if cur and m:
            r = dict(zip(('clients', 'pb', 'pn', 'pc', 'threads', 'sb', 'sn', 'sc', 'verdict'), m.groups()))
            blocks[cur]['order'].append(r['clients'])
            blocks[cur]['rows'][r['clients']] = r
    return blocks


def pct(s):
    m = re.search(r'([+-]?[\d.,]+)%', s or '')
    return float(m.group(1).replace(',', '')) if m else None


def ratio(r):
    """The report's own ratio when it prints one (same-direction rows), else the printed changes' (~)."""
    m = re.search(r'\(([\d.]+)x\)', r['verdict'])
    if m:
        return m.group(1) + 'x'
    s, p = pct(r['sc']), pct(r['pc'])
    if s is None or p is None or p == 0:
        return 'n/a'
    r = s / p
    return '~0x' if abs(r) < 5e-5 else f'~{r:.2g}x'


def cell(r):
    if not r:
        return ['(not run)', '', '']
    v = re.sub(r'\s*\([\d.]+x\)', '', r['verdict']).replace('|', '/')
    return [f"{r['sb']} → {r['sn']}, {r['sc']}".replace('*', '\\*'), ratio(r), v]


def main(argv):
    if len(argv) >= 3 and all('=' in a for a in argv[1:]):
        engines = [(a.split('=', 1)[0], parse(a.split('=', 1)[1])) for a in argv[1:]]
    elif len(argv) in (3, 5):
        lo, ln = (argv[3], argv[4]) if len(argv) == 5 else ('previous engine', 'this engine')
        engines = [(lo, parse(argv[1])), (ln, parse(argv[2]))]
    else:
        sys.exit("side-by-side: usage: side-by-side.py OLD.report.txt NEW.report.txt [OLD_LABEL NEW_LABEL]"
                 " | LABEL=REPORT LABEL=REPORT...")
    new = engines[-1][1]
    for name, b in new.items():
        print(f'\n**{name}** (published against simulated `{b["rwlab"]}`; simulated figures are the model\'s)\n')
        print('| clients | published: base → new, change | ' +
              ' | '.join(f'{lab}: base → new, change | ratio | verdict' for lab, _ in engines) + ' |')
        print('|---:|---:|' + '---:|---:|---|' * len(engines))
        for c in b['order']:
            r = b['rows'][c]
            pub = f"{r['pb']} → {r['pn']}, {r['pc']}".replace('*', '\\*')
            cells = []
            for _, e in engines:
                cells += cell(e.get(name, {'rows': {}})['rows'].get(c))
            print('| ' + ' | '.join([c, pub] + cells) + ' |')

if __name__ == '__main__':
    main(sys.argv)
