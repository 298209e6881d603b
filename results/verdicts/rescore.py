#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Tables of old class -> new class per row for results/verdicts/rescore.sh.

Usage: rescore.py OUT_DIR INDEX   (INDEX lines: N|NAME|CSV; OUT_DIR holds N-old.json,
N-new.json and N-new.txt). Prints Markdown on stdout.
"""
import collections
import json
import sys


def rows(path):
    with open(path) as f:
        d = json.load(f)
    return d["reference"]["rows"], d["reference"]


def key(r):
    return (r["benchmark"], r["metric"], r["variant"], r["clients"])


def pct(v):
    if v is None:
        return "-"
    return "%+.0f%%" % v if abs(v) >= 100 else "%+.3g%%" % v


def ratio(q):
    return "%.0fx" % q if q >= 9.995 else "%.2gx" % q


def main(out, index):
    per_table = collections.OrderedDict()
    for line in open(index):
        n, name, csv = line.rstrip("\n").split("|")
        old, _ = rows("%s/%s-old.json" % (out, n))
        new, ref = rows("%s/%s-new.json" % (out, n))
        olds = {key(r): r["verdict"] for r in old}
        moves = collections.Counter()
        print("### %s: `%s`\n" % (name, csv))
        print("| metric | variant | clients | published | rwlab | old | new |")
        print("|---|---|---|---|---|---|---|")
        for r in new:
            o = olds.get(key(r), "(no row)")
            v = r["verdict"]
            if v in ("agree", "agree-direction") and r["size_ratio"] is not None:
                v += " (%s)" % ratio(r["size_ratio"])
            mark = {"significant": "*", "not significant": "( )", "unmarked": "?"}[r["published_significance"]]
            ours = pct(r["rwlab_change_pct"]) + ("*" if r["rwlab_significant"] else "")
            print("| %s | %s | %s | %s%s | %s | %s | %s |" % (r["metric"], r["variant"], r["clients"],
                                                         pct(r["published_change_pct"]), mark, ours, o, v))
            moves[(o, r["verdict"])] += 1
        print()
        print("Old -> new: " + "; ".join("%s -> %s: %d" % (a, b, c) for (a, b), c in sorted(moves.items())) + ".\n")
        with open("%s/%s-new.txt" % (out, n)) as f:
            tail = [l.rstrip("\n") for l in f]
        summ = [l for l in tail if l.startswith(("agree ", "direction:", "size ", "minimum effect", "rule:"))]
        print("```\n" + "\n".join(summ) + "\n```\n")
        t = per_table.setdefault(name, collections.Counter())
        t.update(moves)
    print("### Old class -> new class, per table (every committed CSV of it)\n")
    for name, moves in per_table.items():
        print("- **%s**: " % name + "; ".join("%s -> %s %d" % (a, b, c) for (a, b), c in sorted(moves.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
