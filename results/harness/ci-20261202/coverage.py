#!/usr/bin/env python3
# coverage.py CLONE before|after: the (tree, test) pairs .ci/run runs in CLONE, from meson introspect
# of the plain tree (every tree configures the same tests/meson.build; the suites select).
import json, subprocess, sys, os
clone, mode = sys.argv[1], sys.argv[2]   # mode: before | after
def tests(build):
    return json.loads(subprocess.run(['meson', 'introspect', '--tests', os.path.join(clone, build)],
                                     capture_output=True, text=True, check=True).stdout)
plain = tests('build')
def sel(ts, suites):
    return sorted(t['name'] for t in ts if suites is None or any('rwlab:' + s in t['suite'] for s in suites))
pairs = []
pairs += [('build', n) for n in sel(plain, None)]
pairs += [('build-asan', n) for n in sel(plain, None)]
tsan = tests('build-tsan') if os.path.exists(os.path.join(clone, 'build-tsan')) else plain
pairs += [('build-tsan', n) for n in sel(tsan, ['cli'])]
pairs += [('build-tsan', n) for n in sel(tsan, ['tsan'])]
pairs += [('build-yield', n) for n in sel(plain, ['stress'])]
if mode == 'before':
    pairs += [('build-fuzz', 'fuzz-' + t) for t in 'threads duration knobs lockspec workloadspec csv report matrix'.split()]
for p in sorted(set(pairs)):
    print(*p)
