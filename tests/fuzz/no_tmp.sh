#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Each fuzz target replays its corpus and leaves no file behind: not in a TMPDIR of its own (left
# empty), nor in /tmp under its pid (fuzz_matrix wrote /tmp/rwlab-fuzz-PID.matrix and kept it, one
# more file in /tmp a replay).
#   no_tmp.sh CORPUS_DIR TARGET EXE [TARGET EXE]...
set -u
corpus=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
touch -d "@$(($(date +%s) - 1))" "$tmp/start"	# a second early: a file made in the same second is newer
while [ $# -ge 2 ]; do
	t=$1 exe=$2
	shift 2
	mkdir "$tmp/$t"
	TMPDIR=$tmp/$t "$exe" "$corpus/$t" >"$tmp/$t.out" 2>&1 &
	pid=$!
	wait $pid || { echo "FAIL: $t: replay exit $?: $(tail -n 2 "$tmp/$t.out")"; fails=$((fails + 1)); }
	left=$(ls -A "$tmp/$t")
	# and in /tmp: a name with the replay's pid in it, newer than this test
	for f in /tmp/*; do
		case ${f#/tmp/} in
		*[!0-9]"$pid" | *[!0-9]"$pid"[!0-9]*) [ "$f" -nt "$tmp/start" ] && left="$left $f" ;;
		esac
	done
	if [ -n "$left" ]; then
		echo "FAIL: $t: left $left"
		fails=$((fails + 1))
	else
		echo "$t: no file left"
	fi
done
exit $((fails > 0))
