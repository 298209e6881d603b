#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Lock events mean what the kernel's mean (README "Lock events"): a variant's rows hold the events
# its kernel version (or port) counts, as `rwlab list --verbose` names them, and no row for
# another's.
# Usage: events.sh RWLAB DATA-DIR
. "${0%/*}/../lib.sh"
rwlab=$1 data=$2

# the events NAME counts, one a line, as rwlab list --verbose names them
listed() {
	"$rwlab" list --verbose | awk -v v="$1" '/^  [^ ]/ { cur = $1 } cur == v && /^      lock events:/ {
		sub(/^      lock events: */, ""); sub(/;.*/, ""); n = split($0, e, ", "); for (i = 1; i <= n; i++) if (e[i] != "none") print e[i] }' | sort
}
# the events of VARIANT's rows in FILE, one a line
rows() { awk -F, -v v="$1" '$4 == v && $8 ~ /^event\./ { sub(/^event\./, "", $8); print $8 }' "$2" | sort -u; }

# run: each variant's rows are its own events
"$rwlab" run -l rwsem-xadd,rwsem-rspin,rwsem,ck-pflock,percpu-rwsem,bravo -w locktest -t 2 -n 1 -d 20ms --warmup 0 \
	-q --no-report -o "$tmp/run.csv" 2>"$tmp/err" || fail "run: exit $?: $(cat "$tmp/err")"
for v in rwsem-xadd rwsem-rspin rwsem ck-pflock percpu-rwsem; do
	[ "$(rows $v "$tmp/run.csv")" = "$(listed $v)" ] ||
		fail "$v: the run's event rows are not the events rwlab list --verbose names: $(rows $v "$tmp/run.csv" | tr '\n' ' ')"
done
[ "$(rows bravo "$tmp/run.csv")" = "$( (listed bravo; listed rwsem) | sort)" ] ||
	fail "bravo: its rows are not its events and its base's (rwsem): $(rows bravo "$tmp/run.csv" | tr '\n' ' ')"
# the kernel's lists: rtrylock is v5.2's (rwsem-xadd) alone, opt_rlock v5.3's, rlock_steal v5.11+'s
rows rwsem-xadd "$tmp/run.csv" | grep -qx rwsem_rtrylock || fail "rwsem-xadd: no rwsem_rtrylock row"
rows rwsem-rspin "$tmp/run.csv" | grep -qx rwsem_rtrylock && fail "rwsem-rspin: a rwsem_rtrylock row (v5.3 has no such event)"
rows rwsem-rspin "$tmp/run.csv" | grep -qx rwsem_opt_rlock || fail "rwsem-rspin: no rwsem_opt_rlock row"
rows rwsem "$tmp/run.csv" | grep -qx rwsem_rlock_steal || fail "rwsem: no rwsem_rlock_steal row"
[ -z "$(rows ck-pflock "$tmp/run.csv")" ] || fail "ck-pflock counts no event, yet has rows: $(rows ck-pflock "$tmp/run.csv" | head -3)"
rows percpu-rwsem "$tmp/run.csv" | grep -q '^rwsem_' && fail "percpu-rwsem: rwsem_* rows (it counts under its own names)"

echo "events: $fails failures"
exit $((fails > 0))
