#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check `rwlab report --format mmtests` star by star against an independent
re-implementation of mmtests' comparison rules (docs/workloads.md §2.d),
written from their description, not from rwlab's C code:

  current (mmtests 2024-11 on, 8cd087ae): the mean row is Hmean for
      higher-is-better operations (Amean otherwise), the spread row HStddev =
      sqrt(sum((1/x - 1/H)^2) * H^4 / n) (Stddev, n - 1, for Amean). Each
      kernel's interval is mean -+ q with q = qnorm(0.975) * spread; a cell
      is starred when the facing interval edges do not overlap:
      |new - base| / (q_new + q_base) > 1.
  2019 (f0b33946): t = |mean_new - mean_base| / sqrt(s_n^2/n_n + s_b^2/n_b)
      with the sample Stddev s and the table's mean (the Hmean), df =
      n_n + n_b - 2, starred when the two-sided p < 0.10 (p from the t
      density integrated numerically here, not from an incomplete beta).

Also checks every printed mean and spread value to the printed precision.
Usage: mmtests_stars.py RWLAB RESULTS.csv     exit 0 when every cell matches.
"""
import csv
import math
import re
import subprocess
import sys
from collections import OrderedDict

QNORM_975 = 1.959963984540054


def hmean(v):
    return len(v) / sum(1.0 / x for x in v) if all(x > 0 for x in v) else float("nan")


def amean(v):
    return sum(v) / len(v)


def sample_sd(v):
    if len(v) < 2:
        return float("nan")
    m = amean(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1))


def harmonic_sd(v):
    if len(v) < 2:
        return float("nan")
    h = hmean(v)
    return math.sqrt(sum((1.0 / x - 1.0 / h) ** 2 for x in v) * h ** 4 / len(v))


def t_two_sided_p(t, df):
    """2 P(T > |t|): 1 - 2 * integral of the t density from 0 to |t| (Simpson)."""
    t = abs(t)
    if t == 0:
        return 1.0
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    f = lambda x: c * (1 + x * x / df) ** (-(df + 1) / 2)
    # integrate to min(t, 200): the tail beyond is below 1e-12 for df >= 4
    b = min(t, 200.0)
    n = 20000
    h = b / n
    s = f(0) + f(b) + sum((4 if i % 2 else 2) * f(i * h) for i in range(1, n))
    return max(0.0, 1 - 2 * s * h / 3)


def load(path):
    """series[(workload, metric, threads)][variant] = values, variants in file order."""
    series = OrderedDict()
    better = {}
    variants = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            key = (row["workload"], row["metric"], int(row["threads"]))
            series.setdefault(key, OrderedDict()).setdefault(row["variant"], []).append(float(row["value"]))
            better[key] = row["better"]
            if row["variant"] not in variants:
                variants.append(row["variant"])
    return series, better, variants


def significant(era, base, new, higher):
    if era == "current":
        mb, mn = (hmean(base), hmean(new)) if higher else (amean(base), amean(new))
        qb = QNORM_975 * (harmonic_sd(base) if higher else sample_sd(base))
        qn = QNORM_975 * (harmonic_sd(new) if higher else sample_sd(new))
        if math.isnan(qb) or math.isnan(qn):
            return False
        if qb + qn == 0:
            return mn != mb
        return abs(mn - mb) / (qb + qn) > 1
    mb, mn = (hmean(base), hmean(new)) if higher else (amean(base), amean(new))
    sb, sn = sample_sd(base), sample_sd(new)
    if math.isnan(sb) or math.isnan(sn):
        return False
    se = math.sqrt(sb * sb / len(base) + sn * sn / len(new))
    if se == 0:
        return mn != mb
    return t_two_sided_p((mn - mb) / se, len(base) + len(new) - 2) < 0.10


ROW = re.compile(r"^(\S+)\s+(\S+?)-(\d+)\s+(.*)$")
CELL = re.compile(r"(-?\d+\.\d+|-)\s*([(*])\s*(-?\d+\.\d+)%([)*])|(-?\d+\.\d+|-)")


def check(rwlab, path, era):
    series, better, variants = load(path)
    out = subprocess.run([rwlab, "report", path, "--format", "mmtests", "--mmtests-era", era],
                         capture_output=True, text=True, check=True).stdout
    group, checked, bad = None, 0, []
    for line in out.splitlines():
        m = ROW.match(line)
        if not m:
            if line and not line.startswith(" "):
                group = line.strip()
            continue
        stat, metric, threads, rest = m.group(1), m.group(2), int(m.group(3)), m.group(4)
        key = (group, metric, threads)
        if key not in series:
            bad.append("%s: no such series in the CSV" % line)
            continue
        cells = re.findall(r"(-?\d+\.\d+)\s+([(*])\s*(-?\d+\.\d+)%([)*])", rest)
        higher = better[key] == "higher"
        vals = [series[key].get(v) for v in variants]
        if len(cells) != len(variants):
            bad.append("%s: %d cells, want %d" % (line, len(cells), len(variants)))
            continue
        prec = len(cells[0][0].split(".")[1])
        for i, (val, open_, pct, close) in enumerate(cells):
            v = vals[i]
            want = None
            if stat in ("Hmean", "Amean"):
                want = hmean(v) if higher else amean(v)
                starred = open_ == "*" and close == "*"
                expect = i > 0 and significant(era, vals[0], v, higher)
                checked += 1
                if starred != expect:
                    bad.append("%s, column %s: star %s, recomputed %s" % (line, variants[i], starred, expect))
            elif stat == "HStddev":
                want = harmonic_sd(v)
            elif stat == "Stddev":
                want = sample_sd(v)
            if want is not None and not math.isnan(want) and abs(float(val) - round(want, prec)) > 1.5 * 10 ** -prec:
                bad.append("%s, column %s: printed %s, recomputed %.*f" % (line, variants[i], val, prec, want))
    return checked, bad


def main():
    rwlab, path = sys.argv[1], sys.argv[2]
    fails = 0
    for era in ("current", "2019"):
        checked, bad = check(rwlab, path, era)
        for b in bad:
            print("MISMATCH (%s): %s" % (era, b))
        print("%s: %d mean cells compared star by star, %d mismatches" % (era, checked, len(bad)))
        fails += len(bad) + (checked == 0)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
