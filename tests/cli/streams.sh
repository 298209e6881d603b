#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Streams (issue 14 item 5): `run -o -` writes the CSV, and only the CSV, to
# stdout; `report -` reads it from stdin; report pools several CSVs of one
# host and refuses one cell from two hosts unless --by has host.
#   usage: streams.sh RWLAB DATA-DIR
set -u
rwlab=$1 data=$2
case $rwlab in /*) ;; *) rwlab=$PWD/$rwlab ;; esac
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
run="$rwlab run -l pthread,null -w locktest -t 1 -n 2 -d 10ms --warmup 0"

(cd "$dir" && $run -o - >"$dir/out.csv" 2>"$dir/err") || fail "run -o - exited $?"
head -n 1 "$dir/out.csv" | grep -q '^schema,run,' || fail "stdout does not start with the CSV header"
[ "$(grep -vc '^3,' "$dir/out.csv")" = 1 ] || fail "stdout holds lines that are not CSV rows"
[ "$(ls "$dir" | grep -c '^rwlab-.*\.csv$')" = 0 ] || fail "run -o - also wrote a file"
grep -q 'total_rate' "$dir/err" || fail "the per-cell lines did not go to stderr"
"$rwlab" report - <"$dir/out.csv" >"$dir/rep" 2>&1 || fail "report - exited $?"
grep -q 'pthread' "$dir/rep" && grep -q 'null' "$dir/rep" || fail "report - did not tabulate both variants"

# Two files of one host pool; a third from another host is refused, and taken with --by.
$run -q --no-report -o "$dir/a.csv" 2>/dev/null || fail "run a"
$run -q --no-report -o "$dir/b.csv" 2>/dev/null || fail "run b"
"$rwlab" report "$dir/a.csv" "$dir/b.csv" -f csv >"$dir/ab" 2>&1 || fail "report a b exited $?: $(cat "$dir/ab")"
"$rwlab" report "$data/good.csv" "$data/other-host.csv" >"$dir/gh" 2>&1
[ $? = 1 ] || fail "report of one cell from two hosts did not exit 1"
grep -q "measured on hosts 'host' and 'host2'" "$dir/gh" || fail "the refusal does not name the hosts: $(cat "$dir/gh")"
"$rwlab" report "$data/good.csv" "$data/other-host.csv" --by variant,host >"$dir/gh" 2>&1 ||
	fail "report --by variant,host exited $?"
grep -q "host2" "$dir/gh" || fail "--by variant,host does not show host2"
echo "streams: $fails failures"
exit $((fails > 0))
