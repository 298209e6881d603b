#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A terminal's Ctrl-C during `rwlab exec`: the command run reaches it once.

    stop_tty.py RWLAB SIGCOUNT

rwlab exec runs SIGCOUNT (tests/cli/sigcount.c) on a new pseudo-terminal; once it
catches SIGINT, the test types Ctrl-C there. The terminal sends SIGINT to the whole
foreground process group, exec and its child; exec passed it on again, so the child
counted 2 (a program that takes a second Ctrl-C as "quit now" quits without its
clean-up). Want: the child counts 1, exec exits 130.
"""
import os
import pty
import select
import sys
import tempfile
import time


def main():
    rwlab, sigcount = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        count = os.path.join(tmp, "count")
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(rwlab, [rwlab, "exec", "-l", "none", "-n", "1", "--force", "--no-report", "-q",
                             "-o", os.path.join(tmp, "x.csv"), "--", sigcount, count])
        out = b""
        deadline = time.monotonic() + 30
        while not os.path.exists(count + ".ready") and time.monotonic() < deadline:
            time.sleep(0.02)
        if not os.path.exists(count + ".ready"):
            sys.exit("FAIL: sigcount did not start under rwlab exec")
        time.sleep(0.1)
        os.write(fd, b"\x03")  # VINTR: the terminal's SIGINT to its foreground process group
        while True:
            r, _, _ = select.select([fd], [], [], 30)
            if not r:
                sys.exit("FAIL: rwlab exec did not end within 30 s of Ctrl-C")
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            out += data
        _, st = os.waitpid(pid, 0)
        rc = os.waitstatus_to_exitcode(st)
        got = open(count).read().strip() if os.path.exists(count) else "(none)"
        if got != "1" or rc != 130:
            sys.exit(f"FAIL: one Ctrl-C on the terminal: the command counted {got} SIGINTs (want 1), exec "
                     f"exited {rc} (want 130); its terminal: {out.decode(errors='replace')[-300:]!r}")
    print("stop-tty: one Ctrl-C reaches the command once: ok")


main()
