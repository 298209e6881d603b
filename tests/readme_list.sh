#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The README's variant, workload and lazy-mm tables must list exactly what `rwlab list --names` prints.
set -eu
rwlab=$1 readme=$2
want=$("$rwlab" list --names | sort)
got=$( {
	sed -n '/<!-- variants/,/<!-- \/variants -->/p' "$readme" | sed -n 's/^| `\([^`]*\)`.*/variant \1/p'
	sed -n '/<!-- workloads -->/,/<!-- \/workloads -->/p' "$readme" | sed -n 's/^| `\([^`]*\)`.*/workload \1/p'
	sed -n '/<!-- lazy-mm -->/,/<!-- \/lazy-mm -->/p' "$readme" | sed -n 's/^| `\([^`]*\)`.*/lazy-mm \1/p'
} | sort)
if [ "$want" != "$got" ]; then
	echo "README tables and 'rwlab list --names' differ (< rwlab list, > README):"
	t=${TMPDIR:-/tmp}/rwlab-readme.$$
	echo "$want" >"$t.want"
	echo "$got" >"$t.got"
	diff "$t.want" "$t.got" || true
	rm -f "$t.want" "$t.got"
	exit 1
fi
echo "README lists $(echo "$want" | wc -l) names, same as rwlab list"
