#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# .ci/run's failure paths, with meson, ninja and the browser faked (seconds, not
# CI's 8 minutes): a failed stage ends CI with its FAILED line and exit status,
# the TSan cli tests run beside the ASan tests are stopped with it, and the
# logs go. Its EXIT trap ran under set -e: the kill of the background builds'
# group, ended long before, failed and ended the trap there, so the run beside
# was left running, the logs kept and the FAILED line not printed.
#   usage: ci_run.sh SOURCE-ROOT
. "${0%/*}/../lib.sh"
root=$1
src=$tmp/src bin=$tmp/bin
mkdir -p "$src/.ci" "$src/tools" "$bin" "$tmp/t"
cp "$root/.ci/run" "$src/.ci/run"
printf '#!/bin/sh\necho t1 t2\n' >"$src/.ci/targets"
printf '#!/bin/sh\nexit 0\n' >"$src/tools/setup"
printf '#!/bin/sh\nexit 0\n' >"$bin/ninja"
cp "$bin/ninja" "$bin/chromium"
cp "$bin/ninja" "$bin/chromedriver"
# meson: setup makes the tree; test exits as $ASAN or $TSANCLI says ("fail", "wait": until killed,
# its pid in tsancli.pid), once the TSan cli run beside has started (tsancli.pid)
cat >"$bin/meson" <<'EOF'
#!/bin/bash
[ "$1" = setup ] && { mkdir -p "$2" && touch "$2/build.ninja"; exit 0; }
case "$*" in
*"--suite cli"*)
	echo $$ >"$T/tsancli.pid"
	[ "$TSANCLI" = wait ] && exec sleep 60
	[ "$TSANCLI" = fail ] && exit 1 ;;
*build-asan*)
	for _ in $(seq 100); do [ -e "$T/tsancli.pid" ] && break; sleep 0.1; done
	[ "$ASAN" = fail ] && exit 1 ;;
esac
exit 0
EOF
chmod +x "$src/.ci/run" "$src/.ci/targets" "$src/tools/setup" "$bin"/*

# ci WHAT ASAN TSANCLI WANT: .ci/run exits WANT (1: with its FAILED line), nothing of it left running
# or in TMPDIR
ci() {
	local what=$1 rc pid
	rm -f "$tmp/tsancli.pid"
	T=$tmp ASAN=$2 TSANCLI=$3 PATH=$bin:$PATH TMPDIR=$tmp/t timeout 60 bash "$src/.ci/run" >"$tmp/out" 2>&1
	rc=$?
	[ "$rc" = "$4" ] || fail "$what: exit $rc, want $4: $(tail -n 3 "$tmp/out")"
	if [ "$4" = 0 ]; then
		grep -q '^==== CI passed in ' "$tmp/out" || fail "$what: no 'CI passed' line: $(tail -n 3 "$tmp/out")"
	else
		grep -q "^==== CI FAILED (exit $4) after " "$tmp/out" || fail "$what: no FAILED line: $(tail -n 3 "$tmp/out")"
	fi
	pid=$(cat "$tmp/tsancli.pid" 2>/dev/null)
	for _ in $(seq 20); do
		[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		fail "$what: the TSan cli run beside the ASan tests still runs after CI ended"
		kill "$pid"
	fi
	[ -z "$(ls "$tmp/t")" ] || fail "$what: left in TMPDIR: $(ls "$tmp/t")"
	rm -rf "${tmp:?}/t"/*
}
ci "every stage passes" pass pass 0
ci "the ASan tests fail while the TSan cli tests run" fail wait 1
ci "the TSan cli tests fail" pass fail 1
exit $((fails > 0))
