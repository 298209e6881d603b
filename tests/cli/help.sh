#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The table-driven command line: for every subcommand
# `rwlab CMD --help`, `rwlab CMD -h` and `rwlab help CMD` exit 0 and print the
# same help, starting "usage: rwlab CMD", every line within 80 columns, every
# option with a one-line description; bare `rwlab` exits 2; --version and -V
# print a semantic version and the git revision; the man page and the bash
# completion name every subcommand.
#   usage: help.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1

cmds=$("$rwlab" help | sed -n '/^commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p')
[ "$(echo "$cmds" | wc -w)" -ge 7 ] || fail "rwlab help lists only: $cmds"
for c in $cmds; do
	"$rwlab" "$c" --help >"$tmp/long" 2>&1 || fail "rwlab $c --help exited $?"
	"$rwlab" "$c" -h >"$tmp/short" 2>&1 || fail "rwlab $c -h exited $?"
	"$rwlab" help "$c" >"$tmp/help" 2>&1 || fail "rwlab help $c exited $?"
	cmp -s "$tmp/long" "$tmp/short" || fail "rwlab $c: --help and -h differ"
	cmp -s "$tmp/long" "$tmp/help" || fail "rwlab $c: --help and 'help $c' differ"
	head -n 1 "$tmp/long" | grep -q "^usage: rwlab $c " || fail "rwlab $c --help: first line '$(head -n 1 "$tmp/long")'"
	awk -v c="$c" 'length($0) > 80 { print "FAIL: rwlab " c " --help: line over 80 columns: " $0; bad = 1 }
		END { exit bad }' "$tmp/long" || fails=$((fails + 1))
	grep -q -- '--help' "$tmp/long" || fail "rwlab $c --help does not list --help"
done
# help about help too (its usage line ran to 107 columns)
"$rwlab" help --help | awk 'length($0) > 80 { print "FAIL: rwlab help --help: line over 80 columns: " $0; bad = 1 }
	END { exit bad }' || fails=$((fails + 1))
# help takes one argument: a second is refused, not ignored
"$rwlab" help run --x >"$tmp/o" 2>"$tmp/e"
[ $? = 2 ] && [ ! -s "$tmp/o" ] && [ "$(wc -l <"$tmp/e")" = 1 ] ||
	fail "rwlab help run --x: not one refusal line and exit 2: $(cat "$tmp/e")"
# run --help's --sim names every workload the simulated build runs (atomics and futex_pingpong were missing)
"$rwlab" run --help | awk '/^      --sim /, /^  -/' | tr -s ' \n' ' ' >"$tmp/simhelp"
for w in $("$rwlab" list | sed -n '/^Workloads/,$s/^  \([a-z_]*\) .*/\1/p'); do
	"$rwlab" run --sim generic-8 -l null -w "$w" -t 2 --list-cells 2>&1 >/dev/null | grep -q 'not modelled under --sim' &&
		continue
	grep -q "[ ,]$w[ ,]" "$tmp/simhelp" || fail "run --help: --sim does not name $w, which runs under --sim"
done
# --seed means the same in run and torture (the seed of the random choices; under --sim the engine's
# schedule's too) and is described in the same words; only what it drives, its default and its range
# differ (they read "PRNG seed (...)" and "random choices of the threads ...")
for c in run torture; do
	"$rwlab" help $c | awk '/^      --seed / { p = 1; sub(/^ *--seed N */, ""); print; next }
		p && /^  -|^      --/ { exit } p' | tr -s ' \n' '  ' >"$tmp/seed.$c"
done
for c in run torture; do
	grep -q "^seed of the random choices: .*; under --sim also the engine's schedule (default " "$tmp/seed.$c" ||
		fail "rwlab help $c: --seed is not 'seed of the random choices: ...; under --sim also the engine's schedule': $(cat "$tmp/seed.$c")"
done
"$rwlab" help torture | awk '/^      --sim / { p = 1; next } p && /^  -|^      --/ { exit } p' | grep -q -- '--seed' &&
	fail "rwlab help torture: --sim describes --seed again, in other words than --seed's"
# exec's baseline is none wherever it stands in -l, as exec_baseline() takes it (it said "Put none first")
"$rwlab" help exec | tr -s ' \n' '  ' |
	grep -q "none in -l, wherever it stands, runs CMD without the preload: the baseline column (else passthrough, else the first)" ||
	fail "rwlab help exec: the baseline is not none wherever it stands: $("$rwlab" help exec | grep -i -A1 baseline)"
# report's --significance names its whole default (it said "ci, or ttest with --mmtests-era 2019",
# while a matrix's key and the published table's marks come first)
"$rwlab" help report | awk '/^      --significance / { p = 1 } p && /^      --matrix / { exit } p' | tr -s ' \n' '  ' |
	grep -q "(default the matrix's, else the published marks' rule, else the era's: ci (2019: ttest))" ||
	fail "rwlab help report: --significance's default is not the whole rule: $("$rwlab" help report | grep -A3 -- --significance)"
"$rwlab" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] || fail "bare rwlab exited $rc, want 2"
grep -q '^usage: rwlab' "$tmp/err" || fail "bare rwlab does not print usage on stderr"
for v in --version -V; do
	"$rwlab" $v | grep -Eq '^rwlab [0-9]+\.[0-9]+\.[0-9]+ \(git [0-9a-f]{7,}' ||
		fail "rwlab $v: '$("$rwlab" $v)' is not 'rwlab X.Y.Z (git REV...'"
done
"$rwlab" help --man >"$tmp/man" || fail "rwlab help --man exited $?"
"$rwlab" help --bash >"$tmp/bash" || fail "rwlab help --bash exited $?"
for c in $cmds; do
	grep -q "^\.SS \"rwlab $c" "$tmp/man" || fail "the man page has no section for $c"
	grep -q "^	$c)" "$tmp/bash" || fail "the completion has no case for $c"
done
if command -v bash >/dev/null; then
	bash -n "$tmp/bash" || fail "the completion is not valid bash"
	# Complete "rwlab run -l pthr" and "rwlab run --pi".
	out=$(bash -c '. "$1"; COMP_WORDS=(rwlab run -l pthr); COMP_CWORD=3; _rwlab; echo "${COMPREPLY[*]}"' _ "$tmp/bash")
	case " $out " in *" pthread "*) ;; *) fail "completing -l pthr gave '$out'" ;; esac
	out=$(bash -c '. "$1"; COMP_WORDS=(rwlab run --pi); COMP_CWORD=2; _rwlab; echo "${COMPREPLY[*]}"' _ "$tmp/bash")
	[ "$out" = "--pin" ] || fail "completing --pi gave '$out'"
fi
if command -v man >/dev/null; then
	MANWIDTH=80 man -l "$tmp/man" >/dev/null 2>"$tmp/manerr" || fail "man cannot render the man page"
fi
# A repeated list option appends, for run as for the others: -l a -l b is -l a,b.
"$rwlab" run -l pthread -l null -w locktest -t 1 -n 1 -d 10ms --warmup 0 -q --no-report -o "$tmp/r.csv" 2>/dev/null ||
	fail "run -l pthread -l null failed"
[ "$(cut -d, -f4 "$tmp/r.csv" | sort -u | grep -c -e '^pthread$' -e '^null$')" = 2 ] ||
	fail "run -l pthread -l null did not run both variants"
# sim validate --help said MACHINE may be generic-N, which the ladder has no rungs for: it says which it takes
"$rwlab" sim validate --help >"$tmp/vhelp" || fail "sim validate --help: exit $?"
tr '\n' ' ' <"$tmp/vhelp" | grep -q "must be one the ladder has rungs for: a machine file it names or 'here' (not generic-N;" ||
	fail "sim validate --help does not say which machines it takes: $(cat "$tmp/vhelp")"
"$rwlab" sim validate generic-8 >/dev/null 2>"$tmp/e"
[ $? = 2 ] && grep -q "^rwlab sim validate: no rung for machine 'generic-8' in the ladder (valid: the machines with rungs, here, " "$tmp/e" ||
	fail "sim validate generic-8: $(cat "$tmp/e")"
echo "$(echo "$cmds" | wc -w) subcommands checked, $fails failures"
exit $((fails > 0))
