#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The tree cites only itself: no file outside the repository's results/ (records
of runs, kept as written) names a design note that lives outside the repository
(research/*.md, DESIGN.md, aesthetics.md, ...) or an issue number of the project's
tracker ("issue 11"), which a reader of the repository does not have; and every
"docs/NAME.md §N" it cites names a section that docs/NAME.md has.

usage: own_docs.py SRCDIR"""
import os
import re
import subprocess
import sys

root = sys.argv[1]
OUTSIDE = re.compile(r"research/|DESIGN\.md|aesthetics\.md|model-anchors\.md|peers\.md")
# A bare note name: outside docs/ it was research/'s; inside docs/ it is a sibling (checked below).
BARE = re.compile(r"(?<![\w/])(?:kernel|workloads|machines)\.md")
ISSUE = re.compile(r"\b[Ii]ssues? #?\d+")
# Another project's tracker, cited as a source (core-to-core-latency's, c2c's, Criterion's).
FOREIGN = re.compile(r"nviennot issue|c2c issue|Criterion#")
CITE = re.compile(r"docs/(\w+)\.md,? §\s*([0-9]+(?:\.[0-9a-z]+)?)")
SIBLING = re.compile(r"(?<![\w/])(\w+)\.md,? §\s*([0-9]+(?:\.[0-9a-z]+)?)")
TEXT = (".c", ".h", ".sh", ".py", ".md", ".build", ".txt", ".machine", ".matrix", ".ladder", ".dict",
        ".map", ".in")


def files():
    try:
        out = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True, check=True).stdout
        names = out.split("\n")
    except (OSError, subprocess.CalledProcessError):
        names = [os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs]
    for n in names:
        if not n or n.startswith(("results/", ".git")) or n == "tests/unit/own_docs.py":
            continue
        path = os.path.join(root, n)
        if os.path.isfile(path) and (n.endswith(TEXT) or n.startswith("tools/") or n == "meson_options.txt"):
            yield n, path


def sections(name, cache={}):
    if name not in cache:
        heads = set()
        try:
            for line in open(os.path.join(root, "docs", name + ".md"), encoding="utf-8"):
                m = re.match(r"#+ ([0-9]+(?:\.[0-9a-z]+)?)[. ]", line)
                if m:
                    heads.add(m.group(1))
        except OSError:
            heads = None
        cache[name] = heads
    return cache[name]


bad = 0
n = 0
for name, path in files():
    n += 1
    try:
        text = open(path, encoding="utf-8").read()
    except UnicodeDecodeError:
        continue
    for i, line in enumerate(text.split("\n"), 1):
        if OUTSIDE.search(line) or (BARE.search(line) and not name.startswith("docs/")):
            print("FAIL: %s:%d cites a note outside the repository: %s" % (name, i, line.strip()))
            bad += 1
        if ISSUE.search(line) and not FOREIGN.search(line):
            print("FAIL: %s:%d names an issue number: %s" % (name, i, line.strip()))
            bad += 1
    flat = text.replace("\n * ", " ").replace("\n# ", " ")
    for m in list(CITE.finditer(flat)) + (list(SIBLING.finditer(flat)) if name.startswith("docs/") else []):
        heads = sections(m.group(1))
        if heads is None:
            print("FAIL: %s cites docs/%s.md, which does not exist" % (name, m.group(1)))
            bad += 1
        elif m.group(2) not in heads:
            print("FAIL: %s cites docs/%s.md §%s, which has no such section" % (name, m.group(1), m.group(2)))
            bad += 1
print("%d files read, %d problems" % (n, bad))
sys.exit(1 if bad else 0)
