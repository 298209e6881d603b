#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write a synthetic rwlab results CSV of about SIZE bytes, for report's memory benchmark.

    gen_results.py OUT.csv SIZE_MB [--schema 4|3]

Runs of the quick matrix's shape, one after another as `run --resume` or a merge of
shards would leave them: 7 variants x locktest,pft x 1,2,4 threads x 5 iterations x
60 metrics per run, each run with its own run id (schema 4: its '# context' line, the
context once; schema 3: the context in every row, as rwlab wrote before). Values are
deterministic (a seeded generator), positive, finite. Nothing here is measured.
"""
import random
import sys

VARIANTS = ["pthread", "ck-rwlock", "rwsem-xadd", "rwsem-rspin", "rwsem", "percpu-rwsem", "bravo"]
WORKLOADS = ["locktest", "pft:size_mb=256"]
THREADS = [1, 2, 4]
ITERATIONS = 5
METRICS = ([("total_rate", "op/s", "higher"), ("ops_mean", "ops", "higher"), ("wall_s", "s", "none"),
            ("user_s", "s", "none"), ("sys_s", "s", "none"), ("nvcsw", "count", "none"),
            ("nivcsw", "count", "none"), ("position", "index", "none")] +
           [("event.rwsem_ev%02d" % i, "count", "none") for i in range(52)])
CMDLINE = ("BOOT_IMAGE=/boot/vmlinuz-6.18.44 root=UUID=0f6c3a5e-1d2b-4c8e-9a7f-3b2d1e0c9f8a ro quiet "
           "mitigations=auto,nosmt console=ttyS0,115200n8 " + "x" * 400)
CONTEXT = [("pin", "compact"), ("cpus", "2"), ("cpu_model", "Intel(R) Xeon(R) Processor @ 2.20GHz"),
           ("kernel", "Linux 6.18.44"), ("compiler", "gcc 12.2.0"), ("build_type", "release"),
           ("allocator", "jemalloc"), ("event_counts", "1"), ("git_rev", "0952256abcde"),
           ("host", "bench-host"), ("settings", "d=1s warmup=0.2s n=5 seed=1 order=interleaved"),
           ("governor", "performance"), ("smt", "on"), ("boost", "on"), ("thp", "madvise"),
           ("cmdline", CMDLINE), ("isolated", ""), ("shard", ""), ("plan", "fp=3f2a9c0e11d04b7a cells=42 blocks=6")]


def field(s):
    return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\n\r') else s


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: gen_results.py OUT.csv SIZE_MB [--schema 4|3]")
    out, size = sys.argv[1], int(float(sys.argv[2]) * (1 << 20))
    schema = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--schema" else 4
    rnd = random.Random(1)
    ctx = dict(CONTEXT)
    if schema == 4:
        header = "schema,run,timestamp,variant,workload,threads,iteration,metric,value,unit,host,better\n"
    else:
        header = ("schema,run,timestamp,variant,workload,threads,iteration,metric,value,unit,better," +
                  ",".join(k for k, _ in CONTEXT) + "\n")
    suffix3 = "," + ",".join(field(v) for _, v in CONTEXT)
    written = 0
    with open(out, "w") as f:
        f.write(header)
        written += len(header)
        run = 0
        while written < size:
            run += 1
            rid = "20261202T%06d-%d" % (run % 1000000, 1000 + run)
            ts = "2026-12-02T%02d:%02d:%02dZ" % (run // 3600 % 24, run // 60 % 60, run % 60)
            buf = []
            if schema == 4:
                buf.append("# context,run=%s," % rid + ",".join(field("%s=%s" % (k, v)) for k, v in CONTEXT
                                                               if k != "host") + "\n")
            for w in WORKLOADS:
                for t in THREADS:
                    for v in VARIANTS:
                        for it in range(ITERATIONS):
                            pre = "%d,%s,%s,%s,%s,%d,%d," % (schema, rid, ts, v, field(w), t, it)
                            for m, u, b in METRICS:
                                val = "%.17g" % (rnd.random() * 1e6 + 1)
                                if schema == 4:
                                    buf.append("%s%s,%s,%s,%s,%s\n" % (pre, m, val, u, ctx["host"], b))
                                else:
                                    buf.append("%s%s,%s,%s,%s%s\n" % (pre, m, val, u, b, suffix3))
            s = "".join(buf)
            f.write(s)
            written += len(s)
    print("%s: %d bytes, %d runs, schema %d" % (out, written, run, schema))


main()
