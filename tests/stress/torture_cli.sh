#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `rwlab torture` end to end, with the built binary:
# - `-l all`: every registered variant in "all" is tortured (or skipped for a
#   stated reason), each ends "End of test: SUCCESS", the run exits 0, and the
#   statistics lines are in locktorture's format;
# - `-l busted`: the negative control ends "End of test: FAILURE" with "!!!"
#   and a non-zero exit (under ThreadSanitizer, TSan may stop it first with a
#   race report on the payload and exit 66: also a failure, and also right);
# - bad options exit 2 before anything runs;
# - --kill's kill=1 only on a variant with killable verbs; Ctrl-C's lines.
# Usage: torture_cli.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1

# 1. Every variant in all: SUCCESS.
"$rwlab" torture -l all -d 0.3s --readers 2 --writers 2 -v >"$tmp/all.out" 2>"$tmp/all.err"
rc=$?
cat "$tmp/all.out"
[ $rc -eq 0 ] || fail "torture -l all exited $rc"
grep -q '^rwlab torture: SUCCESS: [1-9][0-9]* variants$' "$tmp/all.out" || fail "no final SUCCESS line"
grep -q 'FAILURE\|!!!' "$tmp/all.out" && fail "a FAILURE or !!! in -l all"
for v in $("$rwlab" list --names | sed -n 's/^variant //p'); do
	[ "$v" = busted ] && continue
	grep -q "^$v-torture:--- End of test: SUCCESS: " "$tmp/all.out" ||
		grep -q "^$v-torture: skipped" "$tmp/all.out" || fail "variant $v neither succeeded nor was skipped"
done
# locktorture's lines: "Writes:  Total: N  Max/Min: a/b ???  Fail: k !!!" and "Reads :  ...".
n_w=$(grep -c '^[^ ]*-torture: Writes:  Total: [0-9]*  Max/Min: [0-9]*/[0-9]* \(???\)\{0,1\}  Fail: 0 $' "$tmp/all.out")
n_r=$(grep -c '^[^ ]*-torture: Reads :  Total: [0-9]*  Max/Min: [0-9]*/[0-9]* \(???\)\{0,1\}  Fail: 0 $' "$tmp/all.out")
n_ok=$(grep -c -- '-torture:--- End of test: SUCCESS' "$tmp/all.out")
[ "$n_w" -eq "$n_ok" ] && [ "$n_r" -eq "$n_ok" ] || fail "$n_ok variants but $n_w Writes and $n_r Reads lines in the format"
grep -q '^busted-torture' "$tmp/all.out" && fail "busted ran in -l all"
# The Start line names the trylock and downgrade options for the verbs the variant has (rwlab
# list's capabilities), and only those: trylock= with both trylocks, read_trylock= with the read one;
# so does -v's line of counts.
"$rwlab" list | awk 'f && /^$/ { exit } f && /^  [^ ]/ { print $1, substr($0, 28, 26) } /^  name/ { f = 1 }' >"$tmp/caps"
[ -s "$tmp/caps" ] || fail "no capabilities read from rwlab list"
while read -r v caps; do
	want=
	case " $caps " in
	*" rtry wtry "*) want=" trylock=1" ;;
	*" rtry "*) want=" read_trylock=1" ;;
	*" wtry "*) want=" write_trylock=1" ;;
	esac
	case " $caps " in *" downgrade "*) want="$want downgrade=1" ;; esac
	line=$(grep "^$v-torture:--- Start of test: " "$tmp/all.out")
	[ -n "$line" ] || continue	# skipped (null), or not in all (busted: below)
	got=$(echo "$line" | sed 's/^.* think=[0-9]*//')
	[ "$got" = "$want" ] || fail "$v ($caps): its Start line's verb options are '$got', want '$want'"
	# -v's counts line: downgrades and failed trylocks only where the verbs are (it said both, 0)
	want=
	case " $caps " in *" downgrade "*) want="downgrades [0-9]*, " ;; esac
	case " $caps " in *" rtry "* | *" wtry "*) want="${want}failed trylocks [0-9]*, " ;; esac
	grep -q "^$v-torture: ${want}long holds [0-9]*, stutter pauses [0-9]*\$" "$tmp/all.out" ||
		fail "$v ($caps): -v's counts line: $(grep "^$v-torture: .*long holds" "$tmp/all.out")"
done <"$tmp/caps"
grep -q '^percpu-rwsem-torture:--- Start of test: .* read_trylock=1$' "$tmp/all.out" ||
	fail "percpu-rwsem: not read_trylock=1 alone: $(grep '^percpu-rwsem-torture:--- Start' "$tmp/all.out")"

# --events: a variant that counts no lock events says so at the end of its paths line (it ended "events:")
# (pthread: ck-* are skipped under ThreadSanitizer)
"$rwlab" torture -l pthread --events -d 50ms --readers 1 --writers 1 >"$tmp/ev.out" 2>&1 ||
	fail "torture -l pthread --events: exit $?"
grep -q '^pthread-torture: paths: .* events: none counted$' "$tmp/ev.out" ||
	fail "pthread's paths line: $(grep 'paths:' "$tmp/ev.out")"

# 2. busted must fail.
"$rwlab" torture -l busted -d 0.3s --readers 2 --writers 2 >"$tmp/busted.out" 2>"$tmp/busted.err"
rc=$?
cat "$tmp/busted.out"
[ $rc -ne 0 ] || fail "torture -l busted exited 0"
if grep -q 'ThreadSanitizer: data race' "$tmp/busted.err"; then
	echo "busted: ThreadSanitizer reported the race (exit $rc)"
else
	[ $rc -eq 1 ] || fail "torture -l busted exited $rc, want 1"
	grep -q '^busted-torture:--- End of test: FAILURE: ' "$tmp/busted.out" || fail "busted: no End of test: FAILURE"
	grep -q '^busted-torture: \(Writes\|Reads \):.*Fail: [1-9][0-9]* !!!$' "$tmp/busted.out" || fail "busted: no Fail: k !!! line"
	grep -q '^rwlab torture: FAILURE: 1 of 1 variant failed: busted$' "$tmp/busted.out" || fail "busted: no final FAILURE line"
fi

# 3. Usage errors: exit 2, one line naming the problem, nothing run.
for args in "-d 0" "-d nan" "--readers -1" "--writers x" "--readers 0 --writers 0" "-l nosuch" "-l null" \
	"-m bogus" "--stutter 5q" "extra"; do
	# shellcheck disable=SC2086
	"$rwlab" torture $args >"$tmp/u.out" 2>"$tmp/u.err"
	rc=$?
	[ $rc -eq 2 ] || fail "torture $args exited $rc, want 2"
	grep -q 'Start of test' "$tmp/u.out" && fail "torture $args started a test"
	[ -s "$tmp/u.err" ] || fail "torture $args printed no error"
done

# 4. Lazy-mm schemes: a safe scheme passes, none (no tracking) must fail.
"$rwlab" torture -m hazptr -d 0.3s >"$tmp/lazy.out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "torture -m hazptr exited $rc, want 0"
grep -q '^hazptr-torture:--- End of test: SUCCESS$' "$tmp/lazy.out" || fail "hazptr: no End of test: SUCCESS"
"$rwlab" torture --lazy-mm none -d 0.3s >"$tmp/lazynone.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "torture --lazy-mm none exited $rc, want 1"
grep -q 'none-torture:--- End of test: FAILURE' "$tmp/lazynone.out" || fail "none: no End of test: FAILURE"

# 5. A wrapper inherits its base's TSan exemption: where ck-rwlock is skipped
#    (ThreadSanitizer builds), bravo:base=ck-rwlock is skipped too (its base's
#    ck_pr atomics are as invisible to TSan), and elsewhere both run.
"$rwlab" torture -l ck-rwlock,bravo:base=ck-rwlock -d 0.2s --readers 1 --writers 1 >"$tmp/wrap.out" 2>"$tmp/wrap.err"
rc=$?
cat "$tmp/wrap.out"
grep -q 'ThreadSanitizer: data race' "$tmp/wrap.err" && fail "bravo:base=ck-rwlock drew a TSan report"
if grep -q '^ck-rwlock-torture: skipped under ThreadSanitizer' "$tmp/wrap.out"; then
	grep -q '^bravo:base=ck-rwlock-torture: skipped under ThreadSanitizer' "$tmp/wrap.out" ||
		fail "ck-rwlock skipped under TSan but bravo:base=ck-rwlock ran"
else
	[ $rc -eq 0 ] || fail "torture -l ck-rwlock,bravo:base=ck-rwlock exited $rc"
	grep -q '^bravo:base=ck-rwlock-torture:--- End of test: SUCCESS' "$tmp/wrap.out" ||
		fail "bravo:base=ck-rwlock did not succeed"
fi

# 6. --kill names kill=1 and its seed only for a variant with killable verbs: ck-rwlock has none.
"$rwlab" torture --kill -l ck-rwlock,rwsem -d 0.1s --readers 1 --writers 1 --seed 3 >"$tmp/kill.out" 2>&1 ||
	fail "torture --kill -l ck-rwlock,rwsem exited $?"
grep -- '^ck-rwlock-torture:---' "$tmp/kill.out" | grep -q 'kill=\|seed=' &&
	fail "ck-rwlock (no killable verbs): its Start or End line says kill=: $(grep -- '-torture:---' "$tmp/kill.out")"
[ "$(grep -c -- '^rwsem-torture:--- .* kill=1 seed=3$' "$tmp/kill.out")" = 2 ] ||
	fail "rwsem: its Start and End lines do not say kill=1 seed=3: $(grep -- '-torture:---' "$tmp/kill.out")"

# 7. Ctrl-C in the second of three variants: the first's verdict and the closing line for it,
#    one line naming the one cut short and the one not run, exit 130.
"$rwlab" torture -l rwsem,bravo,pthread -d 3s --readers 1 --writers 1 >"$tmp/int.out" 2>"$tmp/int.err" &
signal_when INT $! '^bravo-torture:--- Start of test' "$tmp/int.out"
[ $rc -eq 130 ] || fail "torture interrupted: exit $rc, want 130"
grep -q '^rwsem-torture:--- End of test: SUCCESS' "$tmp/int.out" && grep -q '^rwlab torture: SUCCESS: 1 variant$' "$tmp/int.out" ||
	fail "torture interrupted: no verdict or closing line for the finished variant: $(cat "$tmp/int.out")"
grep -q '^bravo-torture:--- End\|^pthread-torture' "$tmp/int.out" && fail "torture interrupted: a verdict after the signal"
[ "$(tail -n 1 "$tmp/int.err")" = "rwlab torture: interrupted after 1 of 3 variants; bravo was cut short (no verdict); not run: pthread" ] ||
	fail "torture interrupted: not the interrupted line: $(cat "$tmp/int.err")"

[ $fails -eq 0 ] && echo "torture CLI: all checks passed"
[ $fails -eq 0 ]
