#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Memory targets of the memory budget and the streaming report, as a benchmark (meson benchmark 'footprint').

    footprint.py RWLAB [--report-only] [--big]

- report in bounded memory: the peak RSS of `rwlab report` on generated results CSVs
  (tests/bench/gen_results.py: schema 4, and schema 3 as older files are) of 1 MB and
  100 MB (and 1 GB with --big), above its peak on the file's first 8 rows (rwlab's own
  memory: its code, libraries and buffers), must be at most 1.5x the file for every size
  and at most 0.5x from 100 MB on;
- the quick matrix (README's first command) must peak under 600 MB of RSS: its pft
  cells share one region per comparison block (README "Memory"). Skipped with
  --report-only.
Peak RSS is the child's ru_maxrss (getrusage, as /usr/bin/time -v reports it). The
machine's load is printed with the figures (uptime): the memory figures do not depend on
it, the times do.
"""
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def peak_kib(cmd, stdout=os.devnull):
    """
    Run @cmd; return (exit status, its peak RSS in KiB, wall seconds). Under GNU time, as
    /usr/bin/time -v measures it: a child of this python would count python's own memory
    in its peak (the RSS a forked child starts with).
    """
    t0 = time.time()
    with tempfile.NamedTemporaryFile("r") as m:
        full = [TIME, "-o", m.name, "-f", "%M"] + cmd if TIME else cmd
        acts = [(os.POSIX_SPAWN_OPEN, 1, stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
        pid = os.posix_spawn(full[0], full, os.environ, file_actions=acts)
        _, status, ru = os.wait4(pid, 0)
        kib = int(m.read().split()[-1]) if TIME else ru.ru_maxrss
    return os.waitstatus_to_exitcode(status), kib, time.time() - t0


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: footprint.py RWLAB [--report-only] [--big]")
    rwlab = os.path.abspath(sys.argv[1])
    sizes = [1, 100] + ([1024] if "--big" in sys.argv else [])
    fails = 0
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    if not TIME:
        print("note: no /usr/bin/time: the peaks count this python's memory (about 10 MB) too")
    with tempfile.TemporaryDirectory() as d:
        for schema in (4, 3):
            base = None
            for mb in sizes:
                f = os.path.join(d, "r%d-%d.csv" % (schema, mb))
                subprocess.run([sys.executable, os.path.join(HERE, "gen_results.py"), f, str(mb), "--schema",
                                str(schema)], check=True, capture_output=True)
                size = os.path.getsize(f)
                if base is None:	# rwlab's own: the same report of the file's first 10 lines (8 rows)
                    small = os.path.join(d, "small.csv")
                    with open(f) as src, open(small, "w") as dst:
                        dst.writelines(line for _, line in zip(range(10), src))
                    rc, base, _ = peak_kib([rwlab, "report", small, "-f", "csv", "-m", "all"], stdout=os.devnull)
                rc, kib, wall = peak_kib([rwlab, "report", f, "-f", "csv", "-m", "all"], stdout=os.devnull)
                grown = (kib - base) * 1024
                limit = 1.5 if mb < 100 else 0.5
                ok = rc == 0 and grown <= limit * size
                fails += not ok
                print("report, schema %d, %7.1f MB CSV: peak RSS %8.1f MB (%.1f MB over the %.1f MB of its first 8 "
                      "rows: %.3fx the CSV, target <= %.1fx), %.1f s wall, exit %d: %s"
                      % (schema, size / 1e6, kib * 1024 / 1e6, grown / 1e6, base * 1024 / 1e6, grown / size, limit,
                         wall, rc, "ok" if ok else "FAIL"))
                os.unlink(f)
        if "--report-only" not in sys.argv:
            q = os.path.join(d, "q.csv")
            rc, kib, wall = peak_kib([rwlab, "run", "--matrix", "quick", "-o", q, "-q", "--no-report"],
                                     stdout=os.devnull)
            ok = rc == 0 and kib * 1024 < 600e6
            fails += not ok
            rows = sum(1 for line in open(q) if not line.startswith("#")) - 1 if os.path.exists(q) else 0
            print("run --matrix quick: peak RSS %.1f MB (target < 600 MB), %.0f s wall, exit %d, %d rows of %.0f "
                  "bytes each (the file over its rows): %s" % (kib * 1024 / 1e6, wall, rc, rows,
                                                                 os.path.getsize(q) / max(rows, 1) if rows else 0,
                                                                 "ok" if ok else "FAIL"))
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    sys.exit(1 if fails else 0)


main()
