#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Result files that cannot be silently corrupted or double-counted: report
# refuses a file given twice and a duplicated row (and --allow-duplicates
# counts each once), refuses inf, nan, hexadecimal and impossible negative
# values naming FILE:LINE, accepts a denormal, and leaves out an unfinished
# last cell (the tail of an interrupted write) unless --include-failed. The
# writer: ENOSPC in the middle of a cell's write on a small tmpfs, then a cell
# that fits (the file keeps whole rows of the finished cells only); --resume
# on a last line cut inside its last field and on one missing only its
# newline, on a file of CRLF lines (the rows appended end in CRLF too) and on
# labels spelt another way; two concurrent --resume runs (the second refused
# by the file's lock) and a fresh run that would move the running one's file
# aside; merge of a shard from another host.
# Usage: integrity.sh RWLAB DATA-DIR
. "${0%/*}/../lib.sh"
set -o pipefail
rwlab=$1 data=$2
case $rwlab in /*) ;; *) rwlab=$PWD/$rwlab ;; esac
case $data in /*) ;; *) data=$PWD/$data ;; esac
cd "$tmp" || exit 1
# refused CMD... : exit 1 and exactly one line on stderr; the line in $line
refused() {
	"$@" >out 2>err
	local rc=$?
	line=$(cat err)
	[ $rc = 1 ] || fail "'$*' exited $rc, want 1: $line"
	[ "$(wc -l <err)" = 1 ] || fail "'$*': not one line on stderr: $line"
}

# A real run: two cells of two iterations, the run's context in its '# context' line.
"$rwlab" run -l rwsem,rwsem-xadd -w locktest:load=10 -t 1 -n 2 -d 20ms --warmup 0 -q --no-report -o a.csv 2>/dev/null ||
	fail "run: exit $?"
cp a.csv a-copy.csv
rows=$(grep -vc '^#' a.csv); rows=$((rows - 1))	# the rows: not the header, not the context line
first=$(awk 'NR > 1 && !/^#/ { print NR; exit }' a.csv)	# the line of the first row
[ "$first" = 3 ] || fail "the first row is on line $first, want 3 (the header, the context line)"

# The same run twice: refused, naming both rows; --allow-duplicates counts each row once.
refused "$rwlab" report a.csv a-copy.csv -f csv
echo "$line" | grep -q "^rwlab report: a-copy.csv:$first: the row repeats a.csv:$first (run .*, iteration 0, metric .*): the same run in two files (a file given twice?); give --allow-duplicates to count each such row once$" ||
	fail "a file given twice: $line"
"$rwlab" report a.csv -f json -m total_rate >one.json 2>/dev/null || fail "report a.csv: exit $?"
"$rwlab" report a.csv a-copy.csv --allow-duplicates -f json -m total_rate >two.json 2>err ||
	fail "--allow-duplicates: exit $?: $(cat err)"
grep -q "rwlab report: a.csv + a-copy.csv: $rows rows repeat an earlier row's run, cell, iteration and metric: left out" err ||
	fail "--allow-duplicates does not say what it left out: $(cat err)"
# the same figures as the file alone: n 2, not 4 (the JSON's series, the context aside)
cmp -s <(grep '"n":' one.json) <(grep '"n":' two.json) || fail "--allow-duplicates pooled the copy: $(grep -m1 '"n":' two.json)"
grep -q '"n": 2,' two.json || fail "--allow-duplicates: $(grep -m1 '"n":' two.json)"

# One row written twice in one file.
{ cat a.csv; sed -n "${first}p" a.csv; } >dup.csv
refused "$rwlab" report dup.csv
echo "$line" | grep -q "^rwlab report: dup.csv:$((rows + 3)): the row repeats dup.csv:$first .*: a row written twice, which no rwlab run does" ||
	fail "a duplicated row: $line"

# Values: inf, -inf, nan, hexadecimal, and a negative rate: refused with FILE:LINE; a denormal is a number.
field=$(head -1 a.csv | tr ',' '\n' | grep -nx value | cut -d: -f1)
setv() {	# setv LINE VALUE OUT: a.csv with the value field of LINE replaced
	awk -F, -v OFS=, -v l="$1" -v v="$2" -v f="$field" 'NR == l { $f = v } { print }' a.csv >"$3"
}
for v in inf -inf nan NaN 0x1p10 1e999; do
	setv 4 "$v" bad.csv
	refused "$rwlab" report bad.csv
	case $v in 0x*) want="value '$v' is hexadecimal, not a decimal number" ;; *) want="value '$v' is not a finite number" ;; esac
	echo "$line" | grep -qF "rwlab report: bad.csv:4: $want" || fail "value $v: $line"
done
n=$(awk -F, -v f="$field" 'NR > 1 && $8 == "total_rate" { print NR; exit }' a.csv)
setv "$n" -5 neg.csv
refused "$rwlab" report neg.csv
echo "$line" | grep -qF "rwlab report: neg.csv:$n: value -5 of metric 'total_rate' is negative, which its unit 'op/s' cannot be" ||
	fail "a negative rate: $line"
setv "$n" 4.9e-324 denormal.csv
"$rwlab" report denormal.csv -f json -m total_rate >den.json 2>err || fail "a denormal value was refused: $(cat err)"
grep -q '4\.94065645[0-9]*e-324' den.json || fail "the denormal is not among the values: $(grep -m1 values den.json)"

# An unfinished last cell (a write cut at a row boundary): left out and named, unless --include-failed.
head -n -3 a.csv >cut.csv
"$rwlab" report cut.csv -f csv >cut.out 2>err || fail "report of a cut file: exit $?"
grep -q "^rwlab report: cut.csv:[0-9]*: cell .* t=1 is unfinished (not iterations 0..1 with as many rows each: an interrupted write): left out (--include-failed compares it)$" err ||
	fail "the unfinished cell is not named: $(cat err)"
[ "$(grep -c ',locktest:load=10,' cut.out)" = 1 ] || fail "the unfinished cell is in the table: $(cat cut.out)"
"$rwlab" report cut.csv -f csv --include-failed >cut2.out 2>err || fail "--include-failed: exit $?"
[ "$(grep -c ',locktest:load=10,' cut2.out)" = 2 ] || fail "--include-failed left the unfinished cell out: $(cat cut2.out)"

# ---- the writer ----------------------------------------------------------------------

# ENOSPC mid-append: the t=32 cell (about 23 KB of rows, with the run's 1 KB context line) does
# not fit in a 20 KiB tmpfs, the t=1 cell (about 14 KB, the context line with it) does. The failed
# write is cut back, the next cell appends after the header and the file holds its whole rows only.
# Without the right to mount a tmpfs (not root), RLIMIT_FSIZE (EFBIG, SIGXFSZ ignored) plays the
# full disk.
small=(-l rwsem -w locktest:load=10 -t 32,1 -n 3 -d 10ms --warmup 0 -q --no-report)
mkdir mnt
if mount -t tmpfs -o size=20k tmpfs mnt 2>/dev/null; then
	how="a 20 KiB tmpfs (ENOSPC)"
	"$rwlab" run "${small[@]}" -o mnt/full.csv 2>full.err
	rc=$?
	cp mnt/full.csv full.csv
	umount mnt
else
	how="RLIMIT_FSIZE 20 KiB (EFBIG)"
	(ulimit -f 20; trap '' XFSZ; exec "$rwlab" run "${small[@]}" -o mnt/full.csv) 2>full.err
	rc=$?
	cp mnt/full.csv full.csv
fi
echo "full disk: $how"
[ $rc = 1 ] || fail "full disk ($how): exit $rc, want 1: $(cat full.err)"
grep -q "cell rwsem locktest:load=10 t=32 failed: writing .*full.csv: \(No space left on device\|File too large\)" full.err ||
	fail "full disk: the failed cell is not named with its error: $(cat full.err)"
[ "$(tail -c 1 full.csv | od -An -c | tr -d ' ')" = '\n' ] || fail "full disk: the file does not end with a whole row"
"$rwlab" report full.csv -f csv >full.out 2>err || fail "full disk: report of the file: exit $?: $(cat err)"
[ ! -s err ] || fail "full disk: report warned: $(cat err)"
[ "$(grep -c ',locktest:load=10,1,' full.csv)" -gt 0 ] || fail "full disk: the t=1 cell after the failure is not in the file"
[ "$(grep -c ',locktest:load=10,32,' full.csv)" = 0 ] || fail "full disk: rows of the failed t=32 cell stayed"

# --resume, a last line cut inside its last field (the plan): torn by its structure, cut and run again.
pair=(-l rwsem,rwsem-xadd -w locktest:load=10 -t 1 -n 2 -d 20ms --warmup 0 -q --no-report)
"$rwlab" run "${pair[@]}" -o torn.csv 2>/dev/null || fail "run torn.csv: exit $?"
# the rows of the cell of VARIANT in FILE (rwsem's cells have more rows than rwsem-xadd's: more lock events)
cell_rows() { awk -F, -v v="$2" '$4 == v' "$1" | wc -l; }
lines=$(grep -vc '^#' torn.csv)	# the header and both cells' rows
last=$(cell_rows torn.csv "$(tail -n 1 torn.csv | cut -d, -f4)")
tail -c 5 torn.csv | grep -qx 'none' || fail "torn.csv does not end with better=none: $(tail -c 20 torn.csv)"
truncate -s -3 torn.csv		# "none\n" loses "ne\n": every field there, the last one (better) cut
"$rwlab" run "${pair[@]}" -o torn.csv --resume 2>err || fail "--resume on a torn last field: exit $?: $(cat err)"
grep -q "cut off the unfinished last cell ($((last - 1)) whole rows and a torn line) to run it again" err ||
	fail "--resume did not cut the torn row: $(cat err)"
[ "$(grep -vc '^#' torn.csv)" = "$lines" ] || fail "--resume (torn field): $(grep -vc '^#' torn.csv) lines, want $lines"
"$rwlab" report torn.csv -f csv >/dev/null 2>err && [ ! -s err ] || fail "report after --resume (torn field): $(cat err)"

# --resume, a last line missing only its newline: the row is whole, kept, and the next row starts on a new line.
"$rwlab" run "${pair[@]}" -o nl.csv 2>/dev/null || fail "run nl.csv: exit $?"
first=$(cell_rows nl.csv "$(sed -n 3p nl.csv | cut -d, -f4)")
head -n $((2 + first)) nl.csv | head -c -1 >nl2.csv	# the context line and the first cell, its last newline lost
"$rwlab" run "${pair[@]}" -o nl2.csv --resume 2>err || fail "--resume without the last newline: exit $?: $(cat err)"
grep -q "resuming nl2.csv: 1 finished cells kept, 1 of this matrix to run" err || fail "--resume (newline): $(cat err)"
[ "$(grep -vc '^#' nl2.csv)" = "$lines" ] || fail "--resume (newline): $(grep -vc '^#' nl2.csv) lines, want $lines"
"$rwlab" report nl2.csv -f csv >/dev/null 2>err && [ ! -s err ] || fail "report after --resume (newline): $(cat err)"

# --resume of a file whose labels are spelt with their knobs in another order (edited by hand): its
# cell is this run's, kept (it was run again, one configuration's cell twice in the file).
spelt=(-l rwsem:wspin=0,rsteal=0 -w locktest:load=10,rpct=60 -t 1 -n 2 -d 20ms --warmup 0 -q --no-report)
"$rwlab" run "${spelt[@]}" -o spelt.csv 2>/dev/null || fail "run spelt.csv: exit $?"
sed -i 's/"rwsem:wspin=0,rsteal=0"/"rwsem:rsteal=0,wspin=0"/; s/"locktest:rpct=60,load=10"/"locktest:load=10,rpct=60"/' spelt.csv
grep -q ',"rwsem:rsteal=0,wspin=0","locktest:load=10,rpct=60",' spelt.csv || fail "spelt.csv: the labels were not respelt"
"$rwlab" run "${spelt[@]}" -o spelt.csv --resume 2>err || fail "--resume of respelt labels: exit $?: $(cat err)"
grep -q "resuming spelt.csv: 1 finished cells kept, 0 of this matrix to run" err ||
	fail "--resume of respelt labels: the cell is not the run's: $(cat err)"

# --resume of a file whose lines end in CRLF (saved on Windows, unix2dos): the rows it appends end
# in CRLF too, as does a last row that had lost its LF or its whole CRLF; report reads the file.
for cut in 0 1 2; do
	f=crlf$cut.csv
	head -n $((2 + first)) nl.csv | sed 's/$/\r/' | head -c -$cut >$f	# the context line and the first cell
	"$rwlab" run "${pair[@]}" -o $f --resume 2>err || fail "--resume of a CRLF file (cut $cut): exit $?: $(cat err)"
	[ "$(grep -vc '^#' $f)" = "$lines" ] || fail "--resume (CRLF, cut $cut): $(grep -vc '^#' $f) lines, want $lines"
	[ "$(grep -c $'\r$' $f)" = "$(wc -l <$f)" ] && [ "$(tr -cd '\r' <$f | wc -c)" = "$(wc -l <$f)" ] &&
		[ "$(tail -c 2 $f | od -An -c | tr -d ' ')" = '\r\n' ] ||
		fail "--resume (CRLF, cut $cut): $(grep -c $'\r$' $f) of $(wc -l <$f) lines end in CRLF, $(tr -cd '\r' <$f | wc -c) CRs"
	"$rwlab" report $f -f csv >/dev/null 2>err && [ ! -s err ] || fail "report after --resume (CRLF, cut $cut): $(cat err)"
done

# Two concurrent --resume runs: the second is refused by the first's lock, with one line, before measuring.
slow=(-l rwsem,rwsem-xadd,rwsem-rspin -w locktest:load=10 -t 1,2 -n 2 -d 200ms --warmup 0 -q --no-report)
"$rwlab" run "${slow[@]}" -o conc.csv --resume 2>a.err &
apid=$!
for _ in $(seq 200); do [ -e conc.csv ] && ! flock -n conc.csv true && break; sleep 0.05; done
"$rwlab" run "${slow[@]}" -o conc.csv --resume >/dev/null 2>b.err
rc=$?
[ $rc = 2 ] || fail "a second --resume on a file being written: exit $rc, want 2"
[ "$(cat b.err)" = "rwlab run: 'conc.csv' is being written by another rwlab run (it holds the file's lock): let it finish, or give another -o" ] ||
	fail "a second --resume: $(cat b.err)"
# a fresh run would move the file aside (conc.csv.1) under its writer: refused too
"$rwlab" run "${slow[@]}" -o conc.csv >/dev/null 2>c.err
[ $? = 2 ] && grep -q "is being written by another rwlab run" c.err || fail "a fresh run on a file being written: $(cat c.err)"
[ ! -e conc.csv.1 ] || fail "a fresh run moved the running writer's file aside"
wait $apid || fail "the first --resume run: exit $?: $(cat a.err)"
[ "$(tail -n +2 conc.csv | grep -v '^#' | cut -d, -f4,6 | sort -u | wc -l)" = 6 ] || fail "concurrent --resume: not 6 cells in conc.csv"
"$rwlab" report conc.csv -f csv >/dev/null 2>err && [ ! -s err ] || fail "report after concurrent --resume: $(cat err)"

# merge: a shard from another host is refused; --mixed-hosts merges it with a warning.
for i in 1 2; do "$rwlab" run -l rwsem,rwsem-xadd -w locktest:load=10 -t 1,2 -n 2 -d 20ms --warmup 0 -q --no-report --shard $i/2 -o sh$i.csv 2>/dev/null || fail "shard $i: exit $?"; done
hcol=$(head -1 sh2.csv | tr ',' '\n' | grep -nx host | cut -d: -f1)
awk -F, -v OFS=, -v c="$hcol" 'NR > 1 && !/^#/ { $c = "elsewhere" } { print }' sh2.csv >sh2x.csv
"$rwlab" merge sh1.csv sh2x.csv -o m.csv 2>err
rc=$?
[ $rc = 2 ] || fail "merge of a shard from another host: exit $rc, want 2"
grep -q "were measured on two hosts (.*, 'elsewhere'): one run's shards mix machines there; give --mixed-hosts" err ||
	fail "merge, another host: $(cat err)"
[ ! -e m.csv ] || fail "a refused merge wrote m.csv"
"$rwlab" merge --mixed-hosts sh1.csv sh2x.csv -o m.csv 2>err || fail "merge --mixed-hosts: exit $?: $(cat err)"
grep -q "WARNING: the files' rows name more than one host (--mixed-hosts)" err || fail "merge --mixed-hosts: no warning: $(cat err)"

[ $fails = 0 ] && echo "all integrity checks passed"
exit $((fails > 0))
