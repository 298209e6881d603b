#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Lock events mean what the kernel's mean (README "Lock events"): a variant's rows hold the events
# its kernel version (or port) counts, as `rwlab list --verbose` names them, and no row for
# another's; the readers show an event a column does not count as not counted ("-", no figure),
# never as a 0 and never as a change, also in a file written before (data/old-event-rows.csv:
# every event's row for every variant, as runs wrote them, rwsem-xadd's 1234176 read trylocks
# against rwsem-rspin's 0, rwsem-rspin's 5100 reader spins against rwsem-xadd's 0).
# Usage: events.sh RWLAB DATA-DIR
. "${0%/*}/../lib.sh"
rwlab=$1 data=$2
old=$data/old-event-rows.csv

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

# LKP: an event one side does not count is no changed stat; a real change stays
"$rwlab" report "$old" --format lkp >"$tmp/lkp" 2>"$tmp/err" || fail "report --format lkp: exit $?: $(cat "$tmp/err")"
grep -q 'lock_events.rwsem_rtrylock\|lock_events.rwsem_wtrylock\|lock_events.rwsem_opt_rlock' "$tmp/lkp" &&
	fail "lkp: an event one variant does not count shown as a change: $(grep lock_events "$tmp/lkp")"
grep -q '+90.9%.*lock_events.rwsem_sleep_reader' "$tmp/lkp" || fail "lkp: the change both count is gone: $(cat "$tmp/lkp")"
[ -s "$tmp/err" ] && fail "lkp: said $(cat "$tmp/err")"

# ... and -m all, every stat, has no row of "-" for an event only the baseline counts (no comparison),
# as the changed stats have none: rwsem-xadd's rwsem_rtrylock and rwsem_wtrylock against rwsem-rspin
"$rwlab" report "$old" --format lkp -m all >"$tmp/lkpall" 2>"$tmp/err" || fail "report --format lkp -m all: exit $?: $(cat "$tmp/err")"
grep 'lock_events.rwsem_rtrylock\|lock_events.rwsem_wtrylock' "$tmp/lkpall" &&
	fail "lkp -m all: a row of '-' for an event only the baseline counts (above)"
grep -q '+90.9%.*lock_events.rwsem_sleep_reader' "$tmp/lkpall" && grep -q 'lock_events.rwsem_wlock$' "$tmp/lkpall" ||
	fail "lkp -m all: the events both count are gone: $(cat "$tmp/lkpall")"

# locktest's layout: a variant that counts no lock event says so (it said "none fired")
"$rwlab" report "$tmp/run.csv" -f locktest >"$tmp/lt" 2>"$tmp/err" || fail "report -f locktest: exit $?: $(cat "$tmp/err")"
[ "$(awk '/^Running locktest with ck-pflock / { t = 1 } t && /^lock events/ { print; exit }' "$tmp/lt")" = \
	"lock events: none: ck-pflock counts no lock events" ] ||
	fail "locktest: ck-pflock's cell does not say it counts no lock events: $(grep -A4 'with ck-pflock' "$tmp/lt")"
grep -A4 '^Running locktest with rwsem-xadd ' "$tmp/lt" | grep -q 'counts no lock events' &&
	fail "locktest: rwsem-xadd said to count no lock events: $(grep -A4 'with rwsem-xadd' "$tmp/lt")"

# the tables: "-" and a line saying what it means, not 0 (and no change)
m=event.rwsem_rtrylock,event.rwsem_opt_rlock
"$rwlab" report "$old" -m $m >"$tmp/table" 2>&1 || fail "report -m $m: exit $?: $(cat "$tmp/table")"
awk '/event.rwsem_rtrylock/ { t = 1 } t && /^2 threads/ { print; exit }' "$tmp/table" | grep -q '1,234,000 ±0.0% *-$' ||
	fail "table: rwsem-rspin's rwsem_rtrylock is not '-': $(cat "$tmp/table")"
awk '/event.rwsem_opt_rlock/ { t = 1 } t && /^2 threads/ { print; exit }' "$tmp/table" | grep -q '^2 threads *- *5,100' ||
	fail "table: rwsem-xadd's rwsem_opt_rlock is not '-': $(cat "$tmp/table")"
[ "$(grep -c '^- : a lock event that variant does not count' "$tmp/table")" = 2 ] ||
	fail "table: no line under each table saying what its '-' is: $(cat "$tmp/table")"
grep -q ' 0\.0\b\| 0 ±' "$tmp/table" && fail "table: a 0 for an event not counted: $(cat "$tmp/table")"
for f in markdown mmtests; do
	"$rwlab" report "$old" -f $f -m $m >"$tmp/$f" 2>&1 || fail "report -f $f: exit $?"
	grep -q 'rwsem_rtrylock-2 .*| - |\|rwsem_rtrylock-2 .*(   0.00%) *- *$' "$tmp/$f" ||
		fail "$f: rwsem-rspin's rwsem_rtrylock is not '-': $(grep rtrylock "$tmp/$f" | head -2)"
	grep -q '100\.00%' "$tmp/$f" && fail "$f: a -100% change of an event not counted: $(grep '100\.00%' "$tmp/$f" | head -2)"
done
# csv and json: no series for it (not a series of 0)
"$rwlab" report "$old" -f csv -m $m >"$tmp/csv" || fail "report -f csv: exit $?"
[ "$(cut -d, -f2,4 "$tmp/csv" | tail -n +2 | sort | tr '\n' ' ')" = "rwsem-rspin,event.rwsem_opt_rlock rwsem-xadd,event.rwsem_rtrylock " ] ||
	fail "csv: not one series per counted event: $(cat "$tmp/csv")"
"$rwlab" report "$old" -f json -m $m >"$tmp/json" || fail "report -f json: exit $?"
[ "$(grep -c '"metric": "event\.' "$tmp/json")" = 2 ] || fail "json: not one series per counted event: $(cat "$tmp/json")"
"$rwlab" report "$old" -f html -m $m -o "$tmp/page.html" || fail "report -f html: exit $?"
grep -q 'a lock event that variant does not count' "$tmp/page.html" || fail "html: no line saying what its '-' is"

# plot: no line of 0 for the column that does not count it
RWLAB_GNUPLOT=/bin/true "$rwlab" plot "$old" -m event.rwsem_opt_rlock -o "$tmp/p.svg" --keep-script 2>"$tmp/err" ||
	fail "plot: exit $?: $(cat "$tmp/err")"
[ "$(grep '^# ' "$tmp/p.svg.dat" | tr '\n' ' ')" = "# rwsem-rspin " ] ||
	fail "plot: not the one line of the variant that counts it: $(cat "$tmp/p.svg.dat")"

# merge rewrites the old file as it was (rows kept); its report hides the same rows
"$rwlab" merge -o "$tmp/merged.csv" "$old" 2>"$tmp/err"
[ $? -le 1 ] || fail "merge: refused the old file: $(cat "$tmp/err")"
[ "$(grep -vc '^#' "$tmp/merged.csv")" = "$(grep -vc '^#' "$old")" ] || fail "merge: lost or gained rows"
"$rwlab" report "$tmp/merged.csv" -f csv -m $m | sed 1d >"$tmp/csv2"
[ "$(sed 1d "$tmp/csv" | cut -d, -f2-)" = "$(cut -d, -f2- "$tmp/csv2")" ] || fail "merge: the merged file reports otherwise: $(cat "$tmp/csv2")"

# a file of a variant this build does not know keeps its rows: which events it counts cannot be told
sed 's/,rwsem-rspin,/,rwsem-future,/' "$old" >"$tmp/unknown.csv"
"$rwlab" report "$tmp/unknown.csv" -f csv -m event.rwsem_rtrylock >"$tmp/csv3" || fail "report of an unknown variant: exit $?"
grep -q '^locktest,rwsem-future,.*,event.rwsem_rtrylock,.*,amean,0,' "$tmp/csv3" ||
	fail "an unknown variant's event rows were hidden: $(cat "$tmp/csv3")"

# an uncounted event's row with a value other than 0 (an older rwlab's counter that meant otherwise) is
# left out like the zeros, but said, once, naming the first such row; zeros alone say nothing
"$rwlab" report "$old" -f none 2>"$tmp/err0" >/dev/null
grep -q 'does not count hold' "$tmp/err0" && fail "zeros alone gave a note: $(cat "$tmp/err0")"
awk -F, 'BEGIN { OFS = "," } $4 == "rwsem-rspin" && $8 == "event.rwsem_rtrylock" { $9 = 7 } { print }' "$old" >"$tmp/nz.csv"
n=$(awk -F, '$4 == "rwsem-rspin" && $8 == "event.rwsem_rtrylock"' "$tmp/nz.csv" | wc -l)
line=$(grep -n ',rwsem-rspin,.*,event.rwsem_rtrylock,' "$tmp/nz.csv" | head -1 | cut -d: -f1)
"$rwlab" report "$tmp/nz.csv" -f csv -m event.rwsem_rtrylock 2>"$tmp/err1" >"$tmp/csv4"
[ "$n" -gt 0 ] && grep -q "^rwlab report: note: $n rows of lock events the variant does not count hold a value other than 0 (the first, $tmp/nz.csv:$line: rwsem-rspin event.rwsem_rtrylock 7), left out" "$tmp/err1" ||
	fail "non-zero uncounted rows: no note: $(cat "$tmp/err1")"
grep -q '^locktest,rwsem-rspin,.*,event.rwsem_rtrylock,' "$tmp/csv4" && fail "the non-zero uncounted rows were reported"

# -m naming an event whose every row is of a variant that does not count it: the rows are there, of
# an event not counted (it said "metric ... is not in FILE (metrics: ..., event.*)")
grep -v ',rwsem-xadd,' "$old" >"$tmp/rspin.csv"
why="has no figure in $tmp/rspin.csv: its rows are of rwsem-rspin, which does not count that lock event"
expect "report -m an event of uncounted rows alone" 2 "^rwlab report: metric 'event.rwsem_rtrylock' $why" \
	"$rwlab" report "$tmp/rspin.csv" -m event.rwsem_rtrylock
RWLAB_GNUPLOT=/bin/true expect "plot -m an event of uncounted rows alone" 2 "^rwlab plot: metric 'event.rwsem_rtrylock' $why" \
	"$rwlab" plot "$tmp/rspin.csv" -m event.rwsem_rtrylock -o "$tmp/r.svg"
expect "report -m a metric the file lacks" 2 "^rwlab report: metric 'event.nosuch' is not in $tmp/rspin.csv \(metrics: " \
	"$rwlab" report "$tmp/rspin.csv" -m event.nosuch

echo "events: $fails failures"
exit $((fails > 0))
