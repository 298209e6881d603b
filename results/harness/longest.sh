#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Longest functions (lines from the opening line to the closing brace at column 0) in harness/*.c
for f in "$@"; do
awk -v F="$f" '
/^[a-z].*\(/ && !/;$/ { name=$0; start=NR; infn=1; next_brace=1 }
/^}/ && infn { printf "%5d %s:%d %s\n", NR-start+1, F, start, name; infn=0 }
' "$f"
done | sort -rn | head -${N:-12}
