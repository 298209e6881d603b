#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""`rwlab report --format html` checked in a real browser.

    html_page.py RWLAB SRCROOT render    the page in headless Chromium
    html_page.py RWLAB SRCROOT offline   the same, the page alone in a network
                                         namespace that has only loopback

The page is made from committed results (the per-VMA locks reproduction,
with the published table; the quick matrix's 2-CPU run, whose many columns
print transposed; a 16-thread locktest comparison whose text table is cut into
blocks; and `rwlab sim validate -o`'s ladder) and opened through ChromeDriver (the
WebDriver protocol over HTTP: urllib is enough). For each page the test asserts:
  - the browser logged no console error and requested nothing but the page
    itself (Chrome's performance log: every Network.requestWillBeSent);
  - the file holds no <script>, <link>, <img>, <iframe>, <object>, no
    src= and no href= but "#..." anchors, and every graph is an inline <svg>
    that the browser laid out at a real size;
  - every default table equals the text report's (`rwlab report -f table`)
    cell for cell: row labels, column labels, and each cell's aggregate,
    spread (flag marks included) and change (stars included), whatever
    orientation the text took and however it was cut into blocks;
  - every reference table's rows equal the text's rows (the published and
    rwlab figures and the verdict class), and the counts line is the same;
  - the verbatim text section is byte for byte what `rwlab report` prints.
A full-page screenshot is taken (a PNG, written to $RWLAB_HTML_SHOTS when set).

Exit status: 0 pass, 1 fail, 77 skipped (meson's skip) when chromium or
chromedriver is not installed -- unless RWLAB_REQUIRE_CHROMIUM=1 (CI), when
their absence fails.
"""
import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from html.parser import HTMLParser

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1280,1000"]
failures = []
in_control = [False]


def fail(msg):
    failures.append(msg)
    print(("control, caught as it should be: " if in_control[0] else "FAIL: ") + msg,
          file=sys.stdout if in_control[0] else sys.stderr)


def find(*names):
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    return None


# ---- the pages and their text -------------------------------------------------------------

def cases(src):
    pvl = os.path.join(src, "results/sim/per-vma-locks/reproduce-sim5-20261202")
    return [
        ("per-vma-locks", [os.path.join(pvl, "per-vma-locks.csv"), "--matrix",
                           os.path.join(pvl, "per-vma-locks.sim.matrix"), "--reference",
                           os.path.join(src, "results/reference/per-vma-locks-pft.csv")]),
        ("quick-2cpu", [os.path.join(src, "results/2cpu/quick.csv")]),
        # six columns: the text cuts the table into two blocks of columns, a flag in the first
        ("blocks", [os.path.join(src, "results/sim/compare-16cpu/sim-locktest.csv")]),
    ]


def ladder_page(rwlab, page):
    """`rwlab sim validate` on the two cheapest machines with -o: its text and the page (a rung may
    fail: the model is not this test's subject; exit 1 is taken, 2 is not)."""
    p = subprocess.run([rwlab, "sim", "validate", "epyc-2vcpu", "ivb-ep-2s40", "-o", page],
                       capture_output=True, text=True, timeout=300)
    if p.returncode not in (0, 1) or not os.path.exists(page):
        raise SystemExit("rwlab sim validate -o failed (%d): %s" % (p.returncode, p.stderr))
    return p.stdout


def check_ladder(name, rows, text):
    """Each rung row of the page is the text's line for that rung: figure, simulated, ratio, tol, verdict."""
    lines = text.split("\n")
    for r in rows:
        want = r[:6] + [r[6]]
        got = next((ln.split()[:7] for ln in lines if ln.split()[:1] == [r[0]]), None)
        if got != want:
            fail("%s: rung %s: page %s, text %s" % (name, r[0], want, got))
    if not rows:
        fail("%s: no rung in the page" % name)
    else:
        print("%s: %d rungs equal the text's lines" % (name, len(rows)))


def rwlab_out(rwlab, args):
    p = subprocess.run([rwlab, "report"] + args, capture_output=True, text=True, timeout=120)
    if p.returncode:
        raise SystemExit("rwlab report %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


# ---- static checks on the file ------------------------------------------------------------

class Static(HTMLParser):
    BANNED = {"script", "link", "img", "iframe", "object", "embed", "audio", "video", "source", "base"}

    def __init__(self):
        super().__init__()
        self.bad = []
        self.svgs = 0

    def handle_starttag(self, tag, attrs):
        if tag in self.BANNED:
            self.bad.append("<%s>" % tag)
        if tag == "svg":
            self.svgs += 1
        for k, v in attrs:
            v = v or ""
            if k in ("src", "srcset", "action", "formaction", "poster", "background"):
                self.bad.append('%s="%s" on <%s>' % (k, v, tag))
            if k in ("href", "xlink:href") and not v.startswith("#"):
                self.bad.append('%s="%s" on <%s>' % (k, v, tag))
            if k == "style" and "url(" in v and "url(#" not in v:
                self.bad.append('style url() on <%s>' % tag)


def static_checks(name, html):
    s = Static()
    s.feed(html)
    for b in s.bad:
        fail("%s: the page refers outside itself: %s" % (name, b))
    if re.search(r"@import|url\((?!#)", html):
        fail("%s: the style sheet or an SVG loads a URL" % name)
    return s.svgs


# ---- ChromeDriver ---------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Driver:
    def __init__(self, chromium, chromedriver, profile):
        self.port = free_port()
        self.log = open(os.path.join(profile, "chromedriver.log"), "w")
        # Chromium's temporary directories in @profile, removed with it (in /tmp one stayed a run)
        self.proc = subprocess.Popen([chromedriver, "--port=%d" % self.port], stdout=self.log,
                                     stderr=subprocess.STDOUT, env=dict(os.environ, TMPDIR=profile))
        self.base = "http://127.0.0.1:%d" % self.port
        for _ in range(100):
            try:
                self.call("GET", "/status")
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise SystemExit("chromedriver did not start")
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium,
                                   "args": CHROMIUM_FLAGS + ["--user-data-dir=" + os.path.join(profile, "ud")]},
            "goog:loggingPrefs": {"browser": "ALL", "performance": "ALL"}}}}
        self.sid = self.call("POST", "/session", caps)["sessionId"]

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read().decode()).get("value")

    def s(self, method, path, body=None):
        return self.call(method, "/session/%s%s" % (self.sid, path), body)

    def js(self, script):
        return self.s("POST", "/execute/sync", {"script": script, "args": []})

    def cdp(self, cmd, params):
        return self.s("POST", "/goog/cdp/execute", {"cmd": cmd, "params": params})

    def logs(self, kind):
        return self.s("POST", "/se/log", {"type": kind})

    def quit(self):
        try:
            self.s("DELETE", "")
        except OSError:
            pass
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


EXTRACT = r"""
const txt = e => e.textContent.trim();
const grids = [...document.querySelectorAll('table.grid')].map(t => ({
  title: t.dataset.title, transposed: t.dataset.transposed === '1',
  head: [...t.tHead.rows[0].cells].map(txt),
  rows: [...t.tBodies[0].rows].map(r => [...r.cells].map(txt))}));
const refs = [...document.querySelectorAll('table.ref')].map(t => ({
  title: t.dataset.title,
  rows: [...t.tBodies[0].rows].map(r => ({why: r.classList.contains('why'), cells: [...r.cells].map(txt)}))}));
const svgs = [...document.querySelectorAll('figure svg')].map(s => {
  const b = s.getBoundingClientRect(); return [b.width, b.height, s.querySelectorAll('path').length]; });
const ladder = [...document.querySelectorAll('table.ladder tbody tr')].map(r => [...r.cells].slice(0, 7).map(txt));
const pre = document.getElementById('text-report');
const summary = document.querySelector('p.summary');
return {grids, refs, svgs, ladder, text: pre ? pre.textContent : null,
        summary: summary ? summary.textContent : null, ready: document.readyState,
        height: document.documentElement.scrollHeight};
"""


def browse(drv, page, shot):
    url = "file://" + page
    # what the browser did before (its start page) is not the page's: drained first
    drv.s("POST", "/url", {"url": "about:blank"})
    drv.logs("browser")
    drv.logs("performance")
    drv.s("POST", "/url", {"url": url})
    for _ in range(50):
        if drv.js("return document.readyState") == "complete":
            break
        time.sleep(0.1)
    got = drv.js(EXTRACT)
    for e in drv.logs("browser"):
        if e.get("level") in ("SEVERE", "WARNING"):
            fail("%s: console %s: %s" % (os.path.basename(page), e["level"], e.get("message")))
    nreq = 0
    for e in drv.logs("performance"):
        m = json.loads(e["message"])["message"]
        if m.get("method") == "Network.requestWillBeSent":
            u, doc = m["params"]["request"]["url"], m["params"].get("documentURL", "")
            # anything the page asked for; and nothing off this machine, whoever asked
            if (doc == url and u != url) or not re.match(r"(file|data|about|chrome|chrome-extension):", u):
                fail("%s: the browser requested %s (for %s)" % (os.path.basename(page), u, doc))
            nreq += doc == url
    if nreq != 1:
        fail("%s: %d requests for the page seen, want 1 (is the performance log working?)" %
             (os.path.basename(page), nreq))
    met = drv.cdp("Page.getLayoutMetrics", {})["cssContentSize"]
    png = base64.b64decode(drv.cdp("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": met["width"], "height": met["height"], "scale": 1}})["data"])
    if png[:8] != b"\x89PNG\r\n\x1a\n" or len(png) < 20000:
        fail("%s: the screenshot is not a PNG of a page (%d bytes)" % (os.path.basename(page), len(png)))
    with open(shot, "wb") as f:
        f.write(png)
    return got


# ---- the text tables ---------------------------------------------------------------------------

def find_title(lines, title):
    """The index of the line after @title, which the text may wrap at ", " (continued after two blanks)."""
    for i in range(len(lines)):
        j, acc = i, lines[i]
        while acc != title and title.startswith(acc + " ") and j + 1 < len(lines) and lines[j + 1].startswith("  "):
            j += 1
            acc += " " + lines[j].strip()
        if acc == title:
            return j + 1
    return None


def fields(line):
    return re.split(r"\s{2,}", line.strip())


def text_grid(lines, title, corner):
    """The text's table titled @title: (column labels, {row label: tokens}), its blocks (a table cut
    for width) joined by row label. A block opens with its header line: blank-led, or led by the
    corner label (transposed)."""
    k = find_title(lines, title)
    if k is None:
        return None

    def is_header(ln):
        return ln.startswith(" ") if not corner else fields(ln)[0] == corner and ln.startswith(corner)

    head, rows = [], {}
    while k < len(lines) and is_header(lines[k]):
        head += fields(lines[k])[1 if corner else 0:]
        k += 1
        while k < len(lines) and lines[k].strip() and not lines[k].startswith("! flagged"):
            label, rest = (fields(lines[k]) + [""])[0], re.split(r"\s{2,}", lines[k].strip(), maxsplit=1)
            rows.setdefault(label, []).extend(rest[1].split() if len(rest) > 1 else [])
            k += 1
        if k + 1 < len(lines) and not lines[k].strip() and is_header(lines[k + 1]):
            k += 1
    return head, rows


def check_grids(name, grids, text):
    n = len(failures)
    lines = text.split("\n")
    for g in grids:
        corner, cols = g["head"][0], g["head"][1:]
        tg = text_grid(lines, g["title"], corner)
        if tg is None:
            fail("%s: the text report has no table titled '%s'" % (name, g["title"]))
            continue
        thead, trows = tg
        # the page's table is in the text's orientation: each row's cells, parts in order
        cells = {r[0]: r[1:] for r in g["rows"]}
        if thead != cols:
            fail("%s: '%s': column labels %s in the page, %s in the text" % (name, g["title"], cols, thead))
        if sorted(trows) != sorted(cells):
            fail("%s: '%s': row labels %s in the page, %s in the text" % (name, g["title"], sorted(cells),
                                                                      sorted(trows)))
        for label, toks in trows.items():
            page = [c for c in cells.get(label, []) if c]
            if page != toks:
                fail("%s: '%s', row '%s': page %s, text %s" % (name, g["title"], label, page, toks))
    if len(failures) == n:
        print("%s: %d default tables equal the text's cell for cell" % (name, len(grids)))


def check_refs(name, refs, summary, text):
    lines = text.split("\n")
    n = 0
    for t in refs:
        try:
            i = lines.index(t["title"])
        except ValueError:
            fail("%s: the text has no reference block '%s'" % (name, t["title"]))
            continue
        k = i + 3    # title, the columns line, the header
        for r in t["rows"]:
            if k >= len(lines):
                fail("%s: '%s': the text ends before row %s" % (name, t["title"], r["cells"]))
                break
            ln = lines[k]
            k += 1
            if r["why"]:
                if ln.strip() != r["cells"][0]:
                    fail("%s: '%s': reason '%s' in the page, '%s' in the text" % (name, t["title"],
                                                                                r["cells"][0], ln.strip()))
                continue
            pub, ours, verdict = ln.split("|", 2)
            want = pub.split() + ours.split() + [verdict.strip()]
            if r["cells"] != want:
                fail("%s: '%s': row %s in the page, %s in the text" % (name, t["title"], r["cells"], want))
            n += 1
    if refs and (summary or "").strip() not in lines:
        fail("%s: the counts line '%s' is not the text's" % (name, summary))
    print("%s: %d reference rows equal the text's, verdicts included" % (name, n))


def controls(name, grids, table, html):
    """Negative controls: the comparisons above do fail on one changed figure or one outside URL."""
    n = len(failures)
    in_control[0] = True
    bad = json.loads(json.dumps(grids))
    row = bad[0]["rows"][0]
    row[1] = row[1] + "0"
    check_grids(name + " (control: one figure changed)", bad, table)
    grid_caught = len(failures) > n
    del failures[n:]
    static_checks(name + " (control)", html.replace("</body>", '<img src="https://example.invalid/x.png"></body>'))
    static_caught = len(failures) > n
    del failures[n:]
    in_control[0] = False
    if not grid_caught or not static_caught:
        fail("%s: a negative control went unnoticed (changed figure: %s, outside URL: %s)" %
             (name, grid_caught, static_caught))


# ---- main -----------------------------------------------------------------------------------

def main():
    if len(sys.argv) != 4 or sys.argv[3] not in ("render", "offline"):
        raise SystemExit(__doc__)
    rwlab, src, mode = sys.argv[1:]
    chromium, chromedriver = find("chromium", "chromium-browser"), find("chromedriver")
    if not chromium or not chromedriver:
        what = "chromium" if not chromium else "chromedriver"
        if os.environ.get("RWLAB_REQUIRE_CHROMIUM") == "1":
            print("FAIL: %s is not installed (apt-get install chromium chromium-driver)" % what)
            return 1
        print("SKIP: %s is not installed (apt-get install chromium chromium-driver); "
              "the HTML page is not checked in a browser" % what)
        return 77
    if mode == "offline" and os.environ.get("RWLAB_HTML_NETNS") != "1":
        # the same checks, again, in a network namespace with loopback alone
        if not shutil.which("unshare") or not shutil.which("ip"):
            print("FAIL: offline needs unshare (util-linux) and ip (iproute2)")
            return 1
        env = dict(os.environ, RWLAB_HTML_NETNS="1")
        return subprocess.run(["unshare", "--net", "sh", "-c", 'ip link set lo up && exec "$@"', "sh",
                               sys.executable] + sys.argv, env=env).returncode
    tmp = tempfile.mkdtemp(prefix="rwlab-html-")
    shots = os.environ.get("RWLAB_HTML_SHOTS") or tmp
    drv = None
    try:
        drv = Driver(chromium, chromedriver, tmp)
        for name, args in cases(src):
            # the page alone in a directory of its own: nothing beside it to load
            d = os.path.join(tmp, name)
            os.mkdir(d)
            page = os.path.join(d, name + ".html")
            t0 = time.time()
            rwlab_out(rwlab, args + ["--format", "html", "-o", page])
            made = time.time() - t0
            with open(page, encoding="utf-8") as f:
                html = f.read()
            nsvg = static_checks(name, html)
            got = browse(drv, page, os.path.join(shots, "%s-%s.png" % (name, mode)))
            print("%s: %d bytes, %d graphs, made in %.1f s, %s" % (name, len(html), nsvg, made,
                                                                  "no network" if mode == "offline" else
                                                                  "rendered"))
            want_figs = len(got["grids"]) + len(got["refs"])
            if len(got["svgs"]) != want_figs or nsvg != want_figs:
                fail("%s: %d inline graphs in the page, %d laid out; want one per table (%d)" %
                     (name, nsvg, len(got["svgs"]), want_figs))
            for w, h, paths in got["svgs"]:
                if w < 400 or h < 250 or paths < 5:
                    fail("%s: a graph is laid out %dx%d with %d paths" % (name, w, h, paths))
            if not got["grids"]:
                fail("%s: no table in the page" % name)
            table = rwlab_out(rwlab, args + ["--format", "table"])
            check_grids(name, got["grids"], table)
            check_refs(name, got["refs"], got["summary"], table)
            controls(name, got["grids"], table, html)
            plain = rwlab_out(rwlab, args)
            if got["text"] != plain:
                fail("%s: the page's text report differs from `rwlab report`'s output" % name)
            else:
                print("%s: the text report section is `rwlab report`'s output, %d lines" %
                      (name, plain.count("\n")))
        # rwlab sim validate's ladder page
        d = os.path.join(tmp, "ladder")
        os.mkdir(d)
        page = os.path.join(d, "ladder.html")
        text = ladder_page(rwlab, page)
        with open(page, encoding="utf-8") as f:
            html = f.read()
        nsvg = static_checks("ladder", html)
        got = browse(drv, page, os.path.join(shots, "ladder-%s.png" % mode))
        if nsvg != 2 or len(got["svgs"]) != 2:
            fail("ladder: %d inline graphs, %d laid out; want one per machine (2)" % (nsvg, len(got["svgs"])))
        check_ladder("ladder", got["ladder"], text)
        if not [n for n in os.listdir(tmp) if n.startswith("org.chromium.")]:
            fail("Chromium's temporary directories are not in the test's own directory %s (left in /tmp?)" % tmp)
    finally:
        if drv:
            drv.quit()
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (0 if failures else 1, 1 if failures else 0))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
