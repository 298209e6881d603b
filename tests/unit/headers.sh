#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Layers the build enforces: every header compiles on its
# own, seeing only its own layer's directory and the layers beneath it
# (harness -> workloads -> locks -> sim, the simulator beneath locks/). A
# header that needs an include it does not make itself, or reaches up into a
# higher layer, fails here. Each is compiled natively and as the simulated
# build compiles it (-DLAB_SIM=1, build/rwlab-sim).
#   usage: headers.sh SRCDIR BUILDDIR CC [CFLAGS...]
set -u
src=$1 build=$2
shift 2
fails=0 n=0
# layer: directories it may see (source and build, for generated headers)
dirs_sim="sim"
dirs_locks="locks sim"
dirs_workloads="workloads locks sim"
dirs_harness="harness workloads locks sim"
for sim in 0 1; do
for layer in sim locks workloads harness; do
	eval "dirs=\$dirs_$layer"
	incs=""
	for d in $dirs; do incs="$incs -I$src/$d -I$build/$d"; done
	for h in "$src/$layer"/*.h; do
		n=$((n + 1))
		# An X-macro list (variants.h: LAB_VARIANT(sym) lines, no include
		# guard) is included with its macro defined: define it empty.
		xdef=""
		if ! grep -q '#pragma once' "$h"; then
			m=$(sed -n 's/^\([A-Z_]*\)(.*/\1/p' "$h" | head -n 1)
			[ -n "$m" ] && xdef="-D$m(x)="
		fi
		# shellcheck disable=SC2086
		if ! printf '#include "%s"\n' "$(basename "$h")" |
			"$@" -std=gnu11 -D_GNU_SOURCE -DLAB_SIM=$sim -fsyntax-only -Werror $xdef $incs -x c - \
				2>"$build/headers.err"; then
			echo "FAIL: $layer/$(basename "$h") (LAB_SIM=$sim) does not compile alone with -I for: $dirs"
			head -5 "$build/headers.err"
			fails=$((fails + 1))
		fi
	done
done
done
echo "$n headers, $fails failed"
[ "$n" -gt 80 ] || { echo "FAIL: found only $n headers"; exit 1; }
exit $((fails > 0))
