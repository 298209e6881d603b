#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The README's variant, workload and lazy-mm tables must list exactly what `rwlab list --names` prints,
# and its lock events table ("fired by") exactly the events `rwlab list --verbose` gives each variant
# and scheme (their ops' events lists).
set -eu
rwlab=$1 readme=$2
# differ: the two lists' lines that differ ($want from rwlab, $got from README), then exit 1
differ() {
	t=${TMPDIR:-/tmp}/rwlab-readme.$$
	echo "$want" >"$t.want"
	echo "$got" >"$t.got"
	diff "$t.want" "$t.got" || true
	rm -f "$t.want" "$t.got"
	exit 1
}
want=$("$rwlab" list --names | sort)
got=$( {
	sed -n '/<!-- variants/,/<!-- \/variants -->/p' "$readme" | sed -n 's/^| `\([^`]*\)`.*/variant \1/p'
	sed -n '/<!-- workloads -->/,/<!-- \/workloads -->/p' "$readme" | sed -n 's/^| `\([^`]*\)`.*/workload \1/p'
	sed -n '/<!-- lazy-mm -->/,/<!-- \/lazy-mm -->/p' "$readme" | sed -n 's/^| `\([^`]*\)`.*/lazy-mm \1/p'
} | sort)
if [ "$want" != "$got" ]; then
	echo "README tables and 'rwlab list --names' differ (< rwlab list, > README):"
	differ
fi
echo "README lists $(echo "$want" | wc -l) names, same as rwlab list"

# "VARIANT EVENT" a line: of rwlab list --verbose's "lock events:" lines (a variant's own, not its base's)
want=$("$rwlab" list --verbose | awk '/^  [^ ]/ { cur = $1 } /^      lock events:/ {
	sub(/^      lock events: */, ""); sub(/;.*/, ""); n = split($0, e, ", ")
	for (i = 1; i <= n; i++) if (e[i] != "none") print cur, e[i] }' | sort)
# ... and of the README's table: `a`, `b` | meaning | fired by (short names: xadd = rwsem-xadd, ...)
got=$(sed -n '/<!-- events/,/<!-- \/events -->/p' "$readme" | grep '^| `' |
	awk -F'|' -v known="$(echo "$want" | cut -d' ' -f2 | sort -u | tr '\n' ' ')" '
	BEGIN { nk = split(known, k, " ") }
	{
		by = $(NF - 1); gsub(/\([^)]*\)/, "", by); nb = split(by, v, ",")
		names = $2; ne = 0
		while (match(names, /`[^`]*`/)) {
			ev = substr(names, RSTART + 1, RLENGTH - 2); names = substr(names, RSTART + RLENGTH)
			if (ev ~ /\*$/) { p = substr(ev, 1, length(ev) - 1); for (j = 1; j <= nk; j++) if (index(k[j], p) == 1) e[++ne] = k[j] }
			else e[++ne] = ev
		}
		for (i = 1; i <= nb; i++) {
			gsub(/^ +| +$/, "", v[i])
			if (v[i] ~ /^(xadd|rspin|dhandoff)$/) v[i] = "rwsem-" v[i]
			for (j = 1; j <= ne; j++) print v[i], e[j]
		}
	}' | sort)
if [ "$want" != "$got" ]; then
	echo "README's lock events table and 'rwlab list --verbose' differ (< rwlab list, > README):"
	differ
fi
echo "README's lock events table: $(echo "$want" | wc -l) (variant, event) pairs, same as rwlab list --verbose"
