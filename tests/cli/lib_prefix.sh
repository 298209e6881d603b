#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The error lines of the libraries beneath a subcommand (locks/, workloads/)
# and of rwlab-sim begin with the subcommand that runs them, as its own lines
# do (locks/err.h), never with a bare "rwlab:":
# - a lazy-mm use after free (the none scheme, --unsafe, under --sim: it
#   happens in every such run) is "rwlab run: lazy-mm: use after free ...",
#   in the cell's own rwlab-sim;
# - rwlab-sim given the protocol with a machine it cannot load says so as
#   the command named in it would, "rwlab run:" or "rwlab torture:"; a
#   command line that is not the protocol (no front) is "rwlab-sim:".
# Usage: lib_prefix.sh RWLAB
. "${0%/*}/../lib.sh"
rwlab=$1
need_sim "$rwlab"

# the abort leaves no core file, and the shell's "Aborted" goes to /dev/null
(ulimit -c 0; "$rwlab" run --sim generic-8 -l null -w context_switch:recreate_hz=1000 -m none --unsafe -t 2 -d 2ms \
	--warmup 1ms -n 1 -q --no-report -o "$tmp/none.csv" >/dev/null 2>"$tmp/none.err") 2>/dev/null
# (an AddressSanitizer build reports the use of the freed mm first, as heap-use-after-free)
if ! grep -q 'heap-use-after-free' "$tmp/none.err"; then
	grep -q '^rwlab run: lazy-mm: use after free of mm ' "$tmp/none.err" ||
		fail "run --sim -m none --unsafe: no 'rwlab run: lazy-mm: use after free' line: $(head -c 600 "$tmp/none.err")"
fi
grep -q '^rwlab: ' "$tmp/none.err" && fail "run --sim -m none --unsafe: a bare 'rwlab:' line: $(grep '^rwlab: ' "$tmp/none.err")"

for cmd in run torture; do
	"$sim" --machine nosuch --seed 1 --seeds 1 -- $cmd -l rwsem >/dev/null 2>"$tmp/m.err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$tmp/m.err")" = 1 ] && grep -q "^rwlab $cmd: unknown machine 'nosuch' " "$tmp/m.err" ||
		fail "rwlab-sim -- $cmd with an unknown machine: exit $rc, want 2 and one 'rwlab $cmd:' line: $(cat "$tmp/m.err")"
done
"$sim" --machine generic-4 --seed 1 -- run >/dev/null 2>"$tmp/p.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/p.err")" = 1 ] && grep -q '^rwlab-sim: started by ' "$tmp/p.err" ||
	fail "rwlab-sim without the protocol: exit $rc, want 2 and one 'rwlab-sim:' line: $(cat "$tmp/p.err")"

echo "lib-prefix: $fails failures"
exit $((fails > 0))
