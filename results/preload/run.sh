#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The issue #16 must-show run: the OpenSSL 3 driver (tests/preload/ossl_driver:
# EVP_MD_fetch + EVP_get_digestbyname + SHA-256 per iteration) at 1, 2 and 8
# threads on pthread, rwsem, rwsem-rspin and bravo, 5 interleaved iterations,
# under librwlab-preload.so. Native timing: rerun on a quiet machine.
#
#   results/preload/run.sh [OUTDIR]     (default results/preload; needs build/)
set -eu
cd "$(dirname "$0")/../.."
out=${1:-results/preload}
iters=${ITERS:-20000}
mkdir -p "$out"
{ echo "# $(date -u +%FT%TZ) $(uname -n) $(nproc) CPUs"; echo "# before: $(uptime)"; } >"$out/uptime.txt"
for t in 1 2 8; do
	rm -f "$out/ossl-t$t.csv"
	build/rwlab exec -l pthread,rwsem,rwsem-rspin,bravo -n 5 -t "$t" -q \
		--metric 'digests/s:higher=digests/s: ([0-9.]+)' \
		-o "$out/ossl-t$t.csv" -- build/tests/preload/ossl_driver "$t" "$iters" >"$out/ossl-t$t.txt"
	echo "# after t=$t: $(uptime)" >>"$out/uptime.txt"
done
