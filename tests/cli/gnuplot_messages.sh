#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# plot passes gnuplot's messages on, for .png as for .svg: a warning after a
# line naming gnuplot and the figure (exit 0); a failure as one line naming
# gnuplot, its exit status (or the signal that killed it) and the figure, then
# what gnuplot said (exit 1, no figure left). A process gnuplot leaves
# behind holding its stderr is not waited for. A gnuplot without pngcairo is
# still answered silently with the libgd png terminal. The gnuplots are fakes
# (RWLAB_GNUPLOT).
# Usage: gnuplot_messages.sh RWLAB DATA-DIR
. "${0%/*}/../lib.sh"
rwlab=$1 data=$2

fake() {
	printf '#!/bin/sh\n%s\n' "$2" >"$tmp/$1"
	chmod +x "$tmp/$1"
}
fake warn 'echo "\"$1\" line 9: warning: a gnuplot warning" >&2; exit 0'
fake fail 'echo "\"$1\" line 9: a gnuplot error" >&2; exit 1'
fake mute 'exit 3'
fake segv 'echo "\"$1\" line 9: about to crash" >&2; kill -SEGV $$'
# gnuplot done, but something it started still holds its stderr: plot does not wait for that
fake bg 'sleep 20 & echo $! >"$(dirname "$0")/bg.pid"; echo "\"$1\" line 9: warning: a gnuplot warning" >&2; exit 0'
# a build without cairo: pngcairo is an unknown terminal; then the real gnuplot
fake nocairo 'if grep -q pngcairo "$1"; then echo "\"$1\" line 1: unknown or ambiguous terminal type; type just '"'"'set terminal'"'"' for a list" >&2; exit 1; fi; exec gnuplot "$@"'

for ext in png svg; do
	out=$tmp/fig.$ext
	RWLAB_GNUPLOT=$tmp/warn "$rwlab" plot "$data/good.csv" -o "$out" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 0 ] || fail "$ext, gnuplot warns: exit $rc: $(cat "$tmp/err")"
	[ "$(sed -n 1p "$tmp/err")" = "rwlab plot: gnuplot drew $out, and said:" ] &&
		sed -n 2p "$tmp/err" | grep -q '" line 9: warning: a gnuplot warning$' && [ "$(wc -l <"$tmp/err")" = 2 ] ||
		fail "$ext: gnuplot's warning is not passed on after a line naming gnuplot: '$(cat "$tmp/err")'"

	rm -f "$out"
	RWLAB_GNUPLOT=$tmp/fail "$rwlab" plot "$data/good.csv" -o "$out" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 1 ] || fail "$ext, gnuplot fails: exit $rc, want 1"
	[ "$(sed -n 1p "$tmp/err")" = "rwlab plot: gnuplot failed (exit 1) drawing $out; it said:" ] &&
		sed -n 2p "$tmp/err" | grep -q '" line 9: a gnuplot error$' && [ "$(wc -l <"$tmp/err")" = 2 ] ||
		fail "$ext: gnuplot's failure is not one line of ours then its message: '$(cat "$tmp/err")'"
	[ -e "$out" ] && fail "$ext: a failed figure was left behind"

	rm -f "$out"
	RWLAB_GNUPLOT=$tmp/segv "$rwlab" plot "$data/good.csv" -o "$out" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 1 ] && [ "$(sed -n 1p "$tmp/err")" = "rwlab plot: gnuplot was killed by signal 11 (Segmentation fault) drawing $out; it said:" ] &&
		sed -n 2p "$tmp/err" | grep -q '" line 9: about to crash$' ||
		fail "$ext, gnuplot killed by a signal: exit $rc, '$(cat "$tmp/err")'"

	start=$(date +%s)
	RWLAB_GNUPLOT=$tmp/bg "$rwlab" plot "$data/good.csv" -o "$out" >/dev/null 2>"$tmp/err"
	rc=$?
	took=$(($(date +%s) - start))
	[ -s "$tmp/bg.pid" ] && kill "$(cat "$tmp/bg.pid")" 2>/dev/null
	[ $rc = 0 ] && [ $took -lt 15 ] && [ "$(wc -l <"$tmp/err")" = 2 ] ||
		fail "$ext, gnuplot's child holds its stderr: exit $rc after ${took}s: '$(cat "$tmp/err")'"

	RWLAB_GNUPLOT=$tmp/mute "$rwlab" plot "$data/good.csv" -o "$out" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 1 ] && [ "$(cat "$tmp/err")" = "rwlab plot: gnuplot failed (exit 3) drawing $out" ] ||
		fail "$ext, gnuplot fails saying nothing: exit $rc, '$(cat "$tmp/err")'"
done

# report -f html draws its graphs through the same code: its lines are report's (they said 'rwlab plot:')
RWLAB_GNUPLOT=$tmp/warn "$rwlab" report "$data/two-variants.csv" -f html -o "$tmp/r.html" >/dev/null 2>"$tmp/err"
sed -n 1p "$tmp/err" | grep -q "^rwlab report: gnuplot drew .*\.svg, and said:$" ||
	fail "report -f html, gnuplot warns: not report's line naming gnuplot: '$(cat "$tmp/err")'"
RWLAB_GNUPLOT=$tmp/mute "$rwlab" report "$data/two-variants.csv" -f html -o "$tmp/r.html" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q "^rwlab report: gnuplot failed (exit 3) drawing .*\.svg$" "$tmp/err" && [ "$(wc -l <"$tmp/err")" = 1 ] ||
	fail "report -f html, gnuplot fails saying nothing: exit $rc, '$(cat "$tmp/err")'"

if command -v gnuplot >/dev/null; then
	RWLAB_GNUPLOT=$tmp/nocairo "$rwlab" plot "$data/good.csv" -o "$tmp/gd.png" >/dev/null 2>"$tmp/err" ||
		fail "png without pngcairo: exit $?: $(cat "$tmp/err")"
	[ -s "$tmp/err" ] && fail "png without pngcairo: the fallback to libgd png is not silent: $(cat "$tmp/err")"
	[ "$(head -c 8 "$tmp/gd.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
		fail "png without pngcairo: gd.png is not a PNG"
fi
echo "gnuplot-messages: $fails failures"
exit $((fails > 0))
