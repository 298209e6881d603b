#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/preload/timed.c under librwlab-preload.so: the kernel ports' timed
# waits queue (their down_*_timed), variants without them poll (the fallback);
# queued-spin: v5.3's spinning readers may pass the queued writer (timed.c).
#
#   timed.sh PRELOAD PROGRAM
set -u
preload=$(realpath "$1") prog=$2
rt=$(ldd "$prog" 2>/dev/null | awk '/lib[at]san\.so/ {print $3; exit}')
pre=${rt:+$rt:}$preload
fail=0
for vm in rwsem-xadd:queued rwsem-rspin:queued-spin rwsem:queued rwsem-dhandoff:queued \
	ck-rwlock:polled bravo:polled; do
	v=${vm%%:*} m=${vm#*:}
	if out=$(env LD_PRELOAD="$pre" RWLAB_LOCK="$v" RWLAB_QUIET=1 "$prog" "$m" 2>&1) &&
	   echo "$out" | grep -q '^timed: ok$'; then
		echo "ok   $v ($m)"
	else
		echo "FAIL $v ($m):"
		echo "$out"
		fail=1
	fi
done
exit $fail
