#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install: `meson install --destdir D`, then D's rwlab runs
# `--matrix quick` from another directory with the source and build trees
# out of sight (a private mount namespace binds an empty directory over
# both), finding its matrices in D's share/rwlab; the man page and the bash
# completion are installed beside it; `run --sim` executes the installed
# rwlab-sim, which finds its machine files in D's share/rwlab/machines; report
# --reference NAME finds the published table in D's share/rwlab/reference. The run is the quick matrix cut short
# by options after it (one iteration of 20 ms, two variants, locktest, one
# thread) so that the test takes seconds; the whole matrix runs the same way.
#   usage: install.sh SOURCE-ROOT BUILD-ROOT
set -u
src=$1 build=$2
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
meson install -C "$build" --destdir "$d/dest" --no-rebuild --quiet >"$d/log" 2>&1 || { cat "$d/log"; exit 1; }
bin=$(find "$d/dest" -type f -name rwlab -path '*/bin/*' | head -n 1)
[ -x "$bin" ] || { echo "FAIL: no bin/rwlab under the destdir"; exit 1; }
prefix=${bin%/bin/rwlab}
for f in share/rwlab/matrices/quick.matrix share/rwlab/machines/generic.machine bin/rwlab-sim share/man/man1/rwlab.1 share/bash-completion/completions/rwlab share/doc/rwlab/README.md; do
	[ -s "$prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
mkdir "$d/empty" "$d/work"
# A sanitizer setup's suppressions file lies in the source tree, which the
# run below hides: give the run a copy (TSan refuses to start without it).
case ${TSAN_OPTIONS:-} in *suppressions=*)
	supp=$(printf '%s\n' "$TSAN_OPTIONS" | sed 's/.*suppressions=\([^:]*\).*/\1/')
	cp "$supp" "$d/tsan.supp" && TSAN_OPTIONS=$(printf '%s\n' "$TSAN_OPTIONS" | sed "s|suppressions=[^:]*|suppressions=$d/tsan.supp|")
	export TSAN_OPTIONS ;;
esac
run="cd '$d/work' && '$bin' run --matrix quick -l pthread,rwsem -w locktest -t 1 -n 1 -d 20ms --warmup 0 -q -o q.csv &&
	'$bin' run --sim generic-4 -l rwsem -w locktest -t 2 -n 1 -d 1ms --warmup 0 -q --no-report -o s.csv &&
	'$bin' exec -l rwsem -n 1 -q --force -o e.csv -- true &&
	{ '$bin' report q.csv --reference per-vma-locks-pft >ref.out 2>&1; true; }"
if unshare -m true 2>/dev/null; then
	unshare -m sh -c "mount --bind '$d/empty' '$build' && mount --bind '$d/empty' '$src' &&
		[ ! -e '$src/tools' ] && $run" >"$d/out" 2>&1
	rc=$? hidden="source and build trees hidden"
else
	sh -c "$run" >"$d/out" 2>&1
	rc=$? hidden="SOURCE TREE NOT HIDDEN (no unshare -m here)"
fi
[ "$rc" = 0 ] || { echo "FAIL: installed rwlab --matrix quick exited $rc ($hidden)"; cat "$d/out"; exit 1; }
grep -q '^3,.*,rwsem,locktest,1,0,total_rate,' "$d/work/q.csv" || { echo "FAIL: no rwsem row in q.csv"; exit 1; }
grep -q ',rwsem,' "$d/work/e.csv" || { echo "FAIL: installed rwlab exec: no rows (librwlab-preload.so not found?)"; cat "$d/out"; exit 1; }
grep -q 'sim generic-4' "$d/work/s.csv" || { echo "FAIL: installed rwlab run --sim: no simulated CSV"; cat "$d/out"; exit 1; }
# --reference NAME finds the installed published table (its path is in the message, as it maps no row here).
grep -q "share/rwlab/reference/per-vma-locks-pft.csv" "$d/work/ref.out" ||
	{ echo "FAIL: report --reference per-vma-locks-pft did not find the installed table"; cat "$d/work/ref.out"; exit 1; }
grep -q 'Hmean' "$d/out" || { echo "FAIL: no mmtests table (the matrix's report = mmtests)"; cat "$d/out"; exit 1; }
echo "ok: installed rwlab ran --matrix quick from $d/work, $hidden"
