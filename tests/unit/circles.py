#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The object files of each layer's static library call one another without
circles: from `nm`, an edge A -> B for every symbol A uses and B defines, and
no strongly connected component of two or more objects but the modules below,
which are one unit by design. A new circle (matrix.c <-> report*.c, knob.c ->
registry.c -> plugin.c -> knob.c, cli.c <-> the command files were the last
ones broken) fails here, naming its members and one edge of each.

usage: circles.py LIB.a...   (the path's directory names the layer)"""
import collections
import fnmatch
import os
import subprocess
import sys

# Components allowed to be circular: every member must match one pattern of the group.
MODULES = {
    # lab_report_print() dispatches to the formats, which share report.c's helpers (report_impl.h);
    # the html format draws its graphs through plot's figures (one plotting path with `rwlab plot`), which take the report's means (rep_mean).
    "report formats": ["harness/report*", "harness/plot"],
    # bravo wraps a base variant named by its knob: it looks the base up in the registry that lists it.
    "bravo's base lock": ["locks/bravo", "locks/registry"],
}


def objects(lib):
    layer = os.path.basename(os.path.dirname(os.path.abspath(lib)))
    out = subprocess.run(["nm", "-A", lib], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        where = parts[0].rstrip(":").split(":")
        if len(where) < 2 or len(parts) < 2:
            continue
        obj = layer + "/" + os.path.basename(where[1]).replace(".c.o", "").replace(".o", "")
        yield obj, parts[-2], parts[-1]


def main():
    defs, uses = {}, collections.defaultdict(set)
    for lib in sys.argv[1:]:
        for obj, kind, sym in objects(lib):
            if kind == "U":
                uses[obj].add(sym)
            elif kind in "TDBRCGSV" and kind.isupper():
                defs[sym] = obj
    graph = collections.defaultdict(set)
    via = {}
    for obj, syms in uses.items():
        for sym in syms:
            if sym in defs and defs[sym] != obj:
                graph[obj].add(defs[sym])
                via.setdefault((obj, defs[sym]), sym)
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):  # Tarjan, iterative
        work = [(v, iter(sorted(graph[v])))]
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1:
                        comps.append(sorted(comp))
            elif nxt not in index:
                index[nxt] = low[nxt] = len(index)
                stack.append(nxt)
                on.add(nxt)
                work.append((nxt, iter(sorted(graph[nxt]))))
            elif nxt in on:
                low[node] = min(low[node], index[nxt])

    for v in sorted(graph):
        if v not in index:
            visit(v)
    bad = 0
    for comp in comps:
        allowed = [name for name, pats in MODULES.items()
                   if all(any(fnmatch.fnmatch(o, p) for p in pats) for o in comp)]
        if allowed:
            print("allowed circle (%s): %s" % (allowed[0], " ".join(comp)))
            continue
        bad += 1
        print("FAIL: a circle: %s" % " ".join(comp))
        for a in comp:
            for b in sorted(graph[a]):
                if b in comp:
                    print("    %s -> %s (%s)" % (a, b, via[(a, b)]))
    print("%d objects, %d circles outside the modules" % (len(set(graph) | set(defs.values())), bad))
    return 1 if bad else 0


sys.exit(main())
