# SPDX-License-Identifier: GPL-2.0-only
# The preamble the shell tests share; each sources it first:
#     . "${0%/*}/../lib.sh"
# It sets -u, makes $tmp, a scratch directory removed on exit, and defines
# fail MESSAGE, which prints "FAIL: MESSAGE" and counts it in $fails (a test
# ends with exit $((fails > 0)) or its own summary), and expect, signal_when and need_sim (below).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# expect WHAT RC PATTERN CMD...: CMD exits RC and its stderr is one line matching PATTERN (grep -E);
# its output is left in $tmp/o and $tmp/e.
expect() {
	local what=$1 want=$2 pat=$3 rc
	shift 3
	"$@" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	[ "$rc" = "$want" ] || fail "$what: exit $rc, want $want: $(head -c 400 "$tmp/e")"
	[ "$(wc -l <"$tmp/e")" = 1 ] || fail "$what: $(wc -l <"$tmp/e") lines on stderr, want one: $(head -c 400 "$tmp/e")"
	grep -Eq -- "$pat" "$tmp/e" || fail "$what: stderr '$(head -c 400 "$tmp/e")' does not match '$pat'"
}
# signal_when SIG PID PATTERN FILE: once FILE holds a line matching PATTERN (grep; at most 30 s), SIG to
# PID, a background job of the test; waits for it: its exit status in $rc.
signal_when() {
	local sig=$1 pid=$2 pat=$3 file=$4 i=0
	until grep -q -- "$pat" "$file" 2>/dev/null || [ $i -ge 600 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
}
# need_sim RWLAB: $sim is the rwlab-sim beside RWLAB; without one the test is skipped (exit 77).
need_sim() {
	sim=$(dirname "$1")/rwlab-sim
	if [ ! -x "$sim" ]; then
		echo "no $sim: skipped"
		exit 77
	fi
}
