#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# LD_PRELOAD tests (tests/preload/): run a program natively and under
# librwlab-preload.so on passthrough and every variant tests/preload/variants
# prints, and check what each must show.
#
#   preload.sh PRELOAD VARIANTS_BIN MODE PROGRAM [ARGS...]
#   MODE: posix   same POSIX answers natively and on every variant
#         misuse  EBUSY/EPERM and a diagnostic line for each misuse, fork survives
#         ossl    correct digests; the preload counted >= THREADS x ITERS acquisitions
#         glib    no torn read, right counts; the preload counted >= the driver's GRWLock calls
# In sanitizer builds the sanitizer runtime must come first in LD_PRELOAD:
# it is taken from the program's own ldd line.
set -u
preload=$(realpath "$1") variants_bin=$2 mode=$3
shift 3
prog=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rt=$(ldd "$prog" 2>/dev/null | awk '/lib[at]san\.so/ {print $3; exit}')
pre=${rt:+$rt:}$preload
fail=0

die() { echo "FAIL [$v]: $*"; fail=1; }

field() {	# field METRIC CSV -> the value column of that metric's row (summed over processes)
	grep ",$1," "$2" | sed "s/.*,$1,\([^,]*\),.*/\1/" | awk '{s += $1} END {printf "%.0f\n", s}'
}

# run_one VARIANT: run the program under the preload on it. A run that has not
# ended after $PRELOAD_RUN_TIMEOUT seconds (default 120) fails on its own, naming
# the variant, with every thread's backtrace when gdb is there: a hang is a
# finding, not a test timeout that hides which variant and where. The wait polls
# every 50 ms (most runs end in well under a second: whole-second polls slept
# about two minutes per CI run away).
run_one() {
	v=$1
	shift
	rm -f "$tmp/out" "$tmp/err" "$tmp/csv"
	env LD_PRELOAD="$pre" RWLAB_LOCK="$v" RWLAB_CSV="$tmp/csv" RWLAB_QUIET=1 "$@" >"$tmp/out" 2>"$tmp/err" &
	pid=$! ticks=0
	while kill -0 "$pid" 2>/dev/null && [ "$ticks" -lt $((${PRELOAD_RUN_TIMEOUT:-120} * 20)) ]; do
		sleep 0.05
		ticks=$((ticks + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "FAIL [$v]: $prog has not ended after $((ticks / 20)) s; its threads:"
		command -v gdb >/dev/null && gdb -p "$pid" -batch -ex 'thread apply all bt' 2>&1 | grep -E '^(Thread|#)'
		kill -9 "$pid" 2>/dev/null
		wait "$pid"
		return 1
	fi
	wait "$pid"
}

if [ "$mode" = posix ]; then
	v=native
	"$@" >"$tmp/out" 2>&1 || { die "natively (glibc)"; cat "$tmp/out"; }
fi
for v in passthrough $("$variants_bin"); do
	if ! run_one "$v" "$@"; then
		die "$prog exited non-zero"
		cat "$tmp/out" "$tmp/err"
		continue
	fi
	acq=$(field preload.acquisitions "$tmp/csv")
	case $mode in
	posix)
		grep -q '^posix: ok$' "$tmp/out" || die "no 'posix: ok'"
		[ "$acq" -gt 0 ] || die "the preload counted no acquisitions" ;;
	misuse)
		for want in 'destroying a lock held for write: EBUSY' 'destroying a lock held for read: EBUSY' \
			'does not hold it: EPERM' 'fork(.*held for write by the forking thread' \
			'fork(.*held for read by another thread' 'preload_misuse on .* at SIGUSR2: .* acquisitions'; do
			grep -q "$want" "$tmp/err" || die "no diagnostic matching '$want'"
		done
		grep -q '^misuse child: ok$' "$tmp/out" || die "the forked child did not finish"
		[ "$(field preload.misuse "$tmp/csv")" -ge 3 ] || die "preload.misuse below 3" ;;
	ossl)
		grep -q '^ok$' "$tmp/out" || die "wrong digests"
		want=$(sed -n 's/^digests: //p' "$tmp/out")
		[ "$acq" -ge "$want" ] || die "the preload counted $acq acquisitions for $want fetches" ;;
	glib)
		grep -q '^ok$' "$tmp/out" || die "torn reads or wrong counts"
		want=$(sed -n 's/^acquisitions: //p' "$tmp/out")
		[ "$acq" -ge "$want" ] || die "the preload counted $acq acquisitions for $want GRWLock calls" ;;
	esac
	if [ -s "$tmp/err" ] && [ "$mode" != misuse ]; then
		die "unexpected stderr (a sanitizer report?)"
		cat "$tmp/err"
	fi
	echo "[$v] ok: $acq acquisitions, $(field preload.contended "$tmp/csv") contended"
done
if [ "$mode" = posix ]; then
	# A 16-slot side table: 20 locks held at once overflow it onto the list.
	v=rwsem-table16
	env LD_PRELOAD="$pre" RWLAB_LOCK=rwsem RWLAB_TABLE_BITS=4 RWLAB_QUIET=1 "$@" >"$tmp/out" 2>&1 &&
		grep -q '^posix: ok$' "$tmp/out" || { die "with RWLAB_TABLE_BITS=4"; cat "$tmp/out"; }
fi
exit $fail
