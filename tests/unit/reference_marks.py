#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Re-read the published tables from the mail excerpts (results/reference/mails/)
and check results/reference/*.csv against them, value by value and mark by mark.

Every number the excerpts print for a transcribed row must be in the CSV with
the same value, the mark printed beside it and the rule that mark follows:

  mmtests  (rule mmtests-ttest: the stars of mmtests 2018-10..2024-11, a t-test
           with p < 0.10) a cell "*  -0.47%*" is mark "*", "(   0.84%)" is "( )"
           (the baseline column and the Stddev rows are always parenthesised)
  lkp      (rule lkp) "VALUE ± N%" is mark "±N%"; a value with no "±" is mark ""
           (LKP prints its %stddev only above 2%)
  none     (rule none) the mail prints no significance: mark ""

and every CSV row that no excerpt prints must say so: rule "none", mark "".
Usage: reference_marks.py REFERENCE_DIR   (exit 0 when all agree)
"""
import csv
import os
import re
import sys

failures = []


def fail(msg):
    failures.append(msg)


def close(a, b):
    return abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(b))) + 1e-4


def mmtests_rows(text):
    """{(stat, op, clients): [(value, mark), ...]} from an mmtests compare table."""
    rows = {}
    cell = re.compile(r"(-?\d+\.\d+)\s+(\(\s*-?\d+\.\d+%\)|\*\s*-?\d+\.\d+%\*)")
    for line in text.splitlines():
        line = line.lstrip("> ").strip()
        m = re.match(r"(Hmean|Stddev)\s+(\S+?)-(\d+)\s+(.*)$", line)
        if not m:
            continue
        marks = [(v, "*" if c[0] == "*" else "( )") for v, c in cell.findall(m.group(4))]
        rows[(m.group(1).lower(), m.group(2), m.group(3))] = marks
    return rows


def lkp_rows(text):
    """{stat: [(value, mark), ...]} from an LKP compare table (one column per commit)."""
    rows = {}
    for line in text.splitlines():
        if not re.match(r"\s+\d", line) or "(" in line:
            continue	# not a stat row (the commit list names commits with "(subject)")
        name = line.split()[-1]
        body = line[: line.rindex(name)]
        cols = []
        for tok in re.finditer(r"±\s*(\d+)%|([-+]\d+(?:\.\d+)?%)|(\d+(?:\.\d+)?)", body):
            if tok.group(3):
                cols.append([tok.group(3), ""])
            elif tok.group(1):
                cols[-1][1] = "±%s%%" % tok.group(1)
        rows[name] = [tuple(c) for c in cols]
    return rows


def check(path, rows_of, expect_rule):
    """rows_of(row) -> (value, mark) printed for this CSV row, or None if no excerpt prints it."""
    seen = 0
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            where = "%s: %s %s %s %s" % (os.path.basename(path), r["stat"], r["metric"], r["clients"], r["variant"])
            got = rows_of(r)
            if got is None:
                if r["rule"] != "none" or r["mark"] != "":
                    fail("%s: no excerpt prints it, but rule '%s' mark '%s'" % (where, r["rule"], r["mark"]))
                continue
            seen += 1
            value, mark = got
            if not close(r["value"], value):
                fail("%s: value %s, the mail prints %s" % (where, r["value"], value))
            if r["mark"] != mark:
                fail("%s: mark '%s', the mail prints '%s'" % (where, r["mark"], mark))
            if r["rule"] != expect_rule:
                fail("%s: rule '%s', expected '%s'" % (where, r["rule"], expect_rule))
    return seen


def main(refdir):
    mails = os.path.join(refdir, "mails")
    read = lambda n: open(os.path.join(mails, n)).read()
    total = 0

    pv = mmtests_rows(read("per-vma-locks-v2-pft.txt"))
    pv_cols = ["mm-unstable-20230210", "pvl-v2", "pvl-v2+opt"]
    total += check(os.path.join(refdir, "per-vma-locks-pft.csv"),
                   lambda r: pv[(r["stat"], r["metric"], r["clients"])][pv_cols.index(r["variant"])],
                   "mmtests-ttest")

    rr_text = read("rwsem-rework-davidlohr.txt")
    rr = mmtests_rows(rr_text)
    rr_cols = ["v5.0-rc6", "rwsem-rework"]
    git = {}
    for line in rr_text.splitlines():
        m = re.match(r"(User|System|Elapsed)\s+(\d+\.\d+)\s+(\d+\.\d+)$", line.strip())
        if m:
            git[m.group(1).lower() + "-seconds"] = [(m.group(2), ""), (m.group(3), "")]

    def rr_of(r):
        if r["benchmark"] == "gitcheckout":
            return None	# the duration totals print no significance: checked below
        op = r["metric"].split(" ")[0]
        return rr[(r["stat"], op, r["clients"])][rr_cols.index(r["variant"])]

    path = os.path.join(refdir, "rwsem-rework.csv")
    total += check(path, rr_of, "mmtests-ttest")
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["benchmark"] != "gitcheckout":
                continue
            total += 1
            v, mark = git[r["metric"]][rr_cols.index(r["variant"])]
            if not close(r["value"], v) or r["mark"] != mark or r["rule"] != "none":
                fail("rwsem-rework.csv: gitcheckout %s %s: %s '%s' %s, the mail prints %s with no mark" %
                     (r["metric"], r["variant"], r["value"], r["mark"], r["rule"], v))

    lz_text = read("lazy-mm-hazptr.txt")
    lz = {m.group(1): m.group(2) for m in re.finditer(r"^(\d+) \+(\d+)%$", lz_text, re.M)}
    rerun = re.search(r"128-thread case.*?around (\d+)% speedup", lz_text, re.S).group(1)
    jens = re.search(r"\((\d+)% speedup for 192 threads\)", lz_text).group(1)

    def lz_of(r):
        if "re-run" in r["metric"]:
            return (rerun, "")
        if "512-hw-thread" in r["metric"]:
            return (jens, "")
        return (lz[r["clients"]], "")

    total += check(os.path.join(refdir, "lazy-mm-hazard-pointers.csv"), lz_of, "none")

    lk = lkp_rows(read("hugetlb-vmemmap-lkp.txt"))
    lk_cols = ["5a4d8944d6b1e(parent)", "bd225530a4c71(sync-rcu)", "17712b7ea0756(mainline)",
               "b5af188232e56(fix)", "e2b8dff50992a(fix+opt)"]
    total += check(os.path.join(refdir, "hugetlb-vmemmap-sync-rcu.csv"),
                   lambda r: lk[r["metric"]][lk_cols.index(r["variant"])] if r["metric"] in lk else None, "lkp")

    # The excerpts' rows all transcribed: every printed cell has its CSV row.
    printed = (sum(len(v) for v in pv.values()) + sum(len(v) for v in rr.values()) + 6 + len(lz) + 2 +
               sum(len(v) for v in lk.values()))
    if total != printed:
        fail("%d CSV rows match the excerpts, which print %d cells" % (total, printed))
    for f in failures:
        print("reference_marks: " + f)
    if not failures:
        print("reference_marks: %d published cells, values and marks as printed" % total)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
