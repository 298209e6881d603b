#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every RWLAB_* environment variable the sources read (a "RWLAB_..." string in
# C: getenv() and the preload's own readers; $RWLAB_... or ${RWLAB_...} in the
# tools' scripts) is documented in the
# man page's ENVIRONMENT section (made from harness/env.h), and every one
# documented there is read somewhere: no undocumented knob, no stale entry;
# and README.md names every one of them a user sets (not internal, not tests').
# Also: the man page has its ENVIRONMENT, FILES, EXAMPLES and EXIT STATUS
# sections and no build-tree path.
#   usage: env_doc.sh RWLAB SOURCE-ROOT
. "${0%/*}/../lib.sh"
rwlab=$1 src=$2

"$rwlab" help --man >"$tmp/man" || { echo "FAIL: rwlab help --man exited $?"; exit 1; }
for sec in ENVIRONMENT FILES EXAMPLES "EXIT STATUS" "SEE ALSO"; do
	grep -qx "\.SH $sec" "$tmp/man" || fail "the man page has no $sec section"
done
grep -n 'build/' "$tmp/man" && fail "the man page names a build-tree path (above)"
grep -qi 'README of the rwlab sources' "$tmp/man" && fail "the man page points to an uninstalled README"
sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$tmp/man" | sed -n 's/^\.B \(RWLAB_[A-Z0-9_]*\)$/\1/p' | sort -u >"$tmp/doc"

# What the sources read.
{
	grep -rhoE --exclude=env.h '"RWLAB_[A-Z0-9_]+"' "$src/harness" "$src/locks" "$src/workloads" "$src/sim" | tr -d '"'
	for f in "$src"/tools/*; do
		[ -f "$f" ] && head -c 2 "$f" | grep -q '#!' || continue
		grep -hoE '\$\{?RWLAB_[A-Z0-9_]+' "$f" | sed 's/^\${*//'
	done
} | sort -u >"$tmp/read"
[ -s "$tmp/read" ] || fail "found no RWLAB_* read in the sources (the search is broken)"
for v in $(comm -23 "$tmp/read" "$tmp/doc"); do
	fail "$v is read by the sources but not in the man page's ENVIRONMENT (add it to harness/env.h)"
done
for v in $(comm -13 "$tmp/read" "$tmp/doc"); do
	fail "$v is documented in ENVIRONMENT but nothing reads it"
done
# README names every one a user sets: all but those the man page marks (internal) or (tests).
sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$tmp/man" |
	awk '/^\.B RWLAB_/ { v = $2; next } v && !/^\([^)]*\((internal|tests)\)\)/ { print v } { v = "" }' >"$tmp/user"
[ -s "$tmp/user" ] || fail "found no RWLAB_* a user sets in the man page (the search is broken)"
for v in $(cat "$tmp/user"); do
	grep -q "$v\([^A-Z0-9_]\|$\)" "$src/README.md" || fail "$v is in the man page's ENVIRONMENT but README.md never names it"
done
echo "$(wc -l <"$tmp/read") RWLAB_* variables read, $(wc -l <"$tmp/doc") documented, $fails failures"
exit $((fails > 0))
