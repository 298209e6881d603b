#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The temporary files of report and plot. The copy report keeps of an input it can read only
# once (stdin, a FIFO, a device: csv.h, lab_csv_reader_open()) goes to $TMPDIR, else /tmp; where no
# file can be made or written there (a read-only or full /tmp) it is kept in memory, said in one
# note naming the directory and why, and the report is the same; an input that is no CSV (a NUL
# byte, or no line end, in its first 64 KiB) or no results CSV (its header) stops the copy at once
# with one line, so an endless device or stream is never copied to its end. plot's gnuplot script
# and report -f html's graphs go to $TMPDIR too.
# The read-only and full directories are made in a user and mount namespace (unshare -rm): where
# that is not allowed, those checks are skipped (exit 77 when the others pass).
#   usage: input_copy.sh RWLAB DATA-DIR
. "${0%/*}/../lib.sh"
rwlab=$1 data=$2
case $rwlab in /*) ;; *) rwlab=$PWD/$rwlab ;; esac
good=$data/good.csv

# An endless device: one line, exit 1, at once. The file size limit keeps a copy that does not stop
# (it wrote /dev/zero into /tmp until the disk was full) from filling anything.
for dev in /dev/zero /dev/urandom; do
	(ulimit -f 20000; timeout 20 "$rwlab" report "$dev" >"$tmp/o" 2>"$tmp/e")
	rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$tmp/e")" = 1 ] &&
		grep -q "^rwlab report: $dev: binary data (a NUL byte at offset [0-9]*) in its first 64 KiB: not a results file$" "$tmp/e" ||
		fail "report $dev: exit $rc (124: copied for ever; 153: past the file size limit): $(head -c 300 "$tmp/e")"
done
(ulimit -f 20000; timeout 20 "$rwlab" plot - -o "$tmp/z.svg" </dev/zero >"$tmp/o" 2>"$tmp/e")
rc=$?
[ $rc = 1 ] && grep -q '^rwlab plot: stdin: binary data (a NUL byte at offset 0)' "$tmp/e" ||
	fail "plot - </dev/zero: exit $rc: $(head -c 300 "$tmp/e")"
# A stream of text whose first line is no results CSV's header (yes: endless): refused at its
# header, exit 2, at once (it passed the NUL and line-end checks and was copied until stopped);
# so from a FIFO, and from plot and merge. A file of that header says the same.
(ulimit -f 20000; yes | timeout 20 "$rwlab" report - >"$tmp/o" 2>"$tmp/e")
rc=$?
nr="no column 'variant' \\(columns: y\\): not an rwlab results CSV \\(what rwlab run, bench and exec write, with columns variant, workload, threads, metric, value, unit and better\\)$"
[ $rc = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && grep -Eq "^rwlab report: stdin: $nr" "$tmp/e" ||
	fail "yes | report -: exit $rc (124: copied for ever): $(head -c 300 "$tmp/e")"
(ulimit -f 20000; timeout 20 "$rwlab" report <(yes) >"$tmp/o" 2>"$tmp/e")
rc=$?
[ $rc = 2 ] && grep -Eq "^rwlab report: /dev/fd/[0-9]+: $nr" "$tmp/e" ||
	fail "report <(yes): exit $rc: $(head -c 300 "$tmp/e")"
(ulimit -f 20000; yes | timeout 20 "$rwlab" plot - -o "$tmp/y.svg" >"$tmp/o" 2>"$tmp/e")
rc=$?
[ $rc = 2 ] && grep -Eq "^rwlab plot: stdin: $nr" "$tmp/e" || fail "yes | plot -: exit $rc: $(head -c 300 "$tmp/e")"
(ulimit -f 20000; yes | timeout 20 "$rwlab" merge - -o "$tmp/m.csv" >"$tmp/o" 2>"$tmp/e")
rc=$?
[ $rc = 2 ] && [ ! -e "$tmp/m.csv" ] && grep -Eq "^rwlab merge: stdin: $nr" "$tmp/e" ||
	fail "yes | merge -: exit $rc: $(head -c 300 "$tmp/e")"
yes | head -3 >"$tmp/y.csv"
expect "merge of a file of y lines" 2 "^rwlab merge: $tmp/y.csv: $nr" "$rwlab" merge "$tmp/y.csv" -o "$tmp/m.csv"
expect "report of a file of y lines" 2 "^rwlab report: $tmp/y.csv: $nr" "$rwlab" report "$tmp/y.csv"
# A first line past 64 KiB is no CSV: bad input, exit 2, one line, from stdin and from a file alike
# (stdin's was exit 1 in report and plot, and a file's header was read whole: no column 'variant'
# and the 100000 bytes)
lh='no CSV header in its first 64 KiB \(its first line does not end there\): not a results file$'
{ head -c 100000 /dev/zero | tr '\0' a; echo; grep -v '^schema' "$good"; } >"$tmp/long"
for cmd in report merge plot; do
	expect "$cmd - of a first line past 64 KiB" 2 "^rwlab $cmd: stdin: $lh" "$rwlab" $cmd - -o "$tmp/l.svg" <"$tmp/long"
	expect "$cmd of a file whose first line runs past 64 KiB" 2 "^rwlab $cmd: $tmp/long: $lh" \
		"$rwlab" $cmd "$tmp/long" -o "$tmp/l.svg"
done
# A header whose quote never closes runs past 64 KiB too, whatever line ends follow (it was taken to
# end at its first line end, did not parse, and the stream was copied for ever): the same line.
for head in '"a\n' 'schema,"run\n'; do
	for cmd in report merge; do
		(ulimit -f 20000; (printf "$head"; yes) | timeout 20 "$rwlab" $cmd - -o "$tmp/q.out" >"$tmp/o" 2>"$tmp/e")
		rc=$?
		[ $rc = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && grep -Eq "^rwlab $cmd: stdin: $lh" "$tmp/e" ||
			fail "$cmd - of $head then yes: exit $rc (124: copied for ever; 153: past the file size limit): $(head -c 300 "$tmp/e")"
	done
done
# Lines that end in a CR alone (an old Mac's) end the header where the reader ends them: a results
# CSV of those past 64 KiB reads from stdin as from the file (its header was taken not to end, and
# refused as no CSV)
awk -v ORS='\r' 'NR == 1 { print; next } { for (i = 0; i < 600; i++) { $7 = i; print } }' FS=, OFS=, "$good" >"$tmp/cr.csv"
"$rwlab" report "$tmp/cr.csv" >"$tmp/cr.want" 2>"$tmp/e" || fail "report of CR-only lines: exit $?: $(head -c 300 "$tmp/e")"
"$rwlab" report - <"$tmp/cr.csv" >"$tmp/o" 2>"$tmp/e" || fail "report - of CR-only lines: exit $?: $(head -c 300 "$tmp/e")"
cmp -s "$tmp/o" "$tmp/cr.want" || fail "report - of CR-only lines differs from the file's: $(head -c 300 "$tmp/o")"
[ "$(wc -c <"$tmp/cr.csv")" -gt 65536 ] || fail "CR-only lines: $tmp/cr.csv is not past 64 KiB"
# A quote that closes ("" inside it kept) ends the header where the reader ends it: refused there.
(ulimit -f 20000; (printf '"x""y",c\n'; yes) | timeout 20 "$rwlab" report - >"$tmp/o" 2>"$tmp/e")
rc=$?
[ $rc = 2 ] && grep -q "^rwlab report: stdin: no column 'variant' (columns: x\"y, c)" "$tmp/e" ||
	fail "report - of a quoted header then yes: exit $rc: $(head -c 300 "$tmp/e")"

# TMPDIR is where the copy goes: one that does not exist is named in the note, and the report is made.
"$rwlab" report "$good" >"$tmp/want" 2>&1 || fail "report of $good: exit $?"
TMPDIR=$tmp/none "$rwlab" report - <"$good" >"$tmp/o" 2>"$tmp/e"
rc=$?
[ $rc = 0 ] && cmp -s "$tmp/o" "$tmp/want" && [ "$(wc -l <"$tmp/e")" = 1 ] &&
	grep -q "^rwlab report: note: cannot copy stdin into $tmp/none (No such file or directory; TMPDIR names the directory): it is kept in memory$" "$tmp/e" ||
	fail "report - with TMPDIR=$tmp/none: exit $rc, not the note naming it and the report: $(head -c 300 "$tmp/e")"
TMPDIR=$tmp "$rwlab" report - <"$good" >"$tmp/o" 2>"$tmp/e"
[ $? = 0 ] && cmp -s "$tmp/o" "$tmp/want" && [ ! -s "$tmp/e" ] ||
	fail "report - with a writable TMPDIR: not the report alone: $(head -c 300 "$tmp/e")"

# plot's gnuplot script and report -f html's graphs go there too (they were made in /tmp whatever TMPDIR said)
RWLAB_GNUPLOT=/bin/true TMPDIR=$tmp/none expect "plot with TMPDIR=$tmp/none" 1 \
	"^rwlab plot: cannot make a temporary directory in $tmp/none: No such file or directory$" \
	"$rwlab" plot "$good" -o "$tmp/p.svg"
TMPDIR=$tmp/none expect "report -f html with TMPDIR=$tmp/none" 1 \
	"^rwlab report: cannot make a temporary directory in $tmp/none: No such file or directory$" \
	"$rwlab" report "$data/two-variants.csv" -f html -o "$tmp/p.html"
RWLAB_GNUPLOT=/bin/true TMPDIR=$tmp "$rwlab" plot "$good" -o "$tmp/p.svg" >"$tmp/o" 2>&1 ||
	fail "plot with a writable TMPDIR: exit $?: $(cat "$tmp/o")"

# /tmp read-only (the copy was made there whatever TMPDIR said: 'cannot read '-': Read-only file
# system', exit 1) and a TMPDIR that fills up halfway through the copy.
if ! unshare -rm true 2>/dev/null; then
	echo "input_copy: unshare -rm is not allowed here: the read-only and full directories are not checked"
	[ $fails = 0 ] && exit 77
	exit 1
fi
awk -F, 'BEGIN { OFS = "," } NR == 1 { print } NR == 2 { for (i = 0; i < 1000; i++) { $7 = i; print } }' "$good" >"$tmp/big.csv"
"$rwlab" report "$tmp/big.csv" >"$tmp/bigwant" 2>&1 || fail "report of big.csv: exit $?"
# (the results go to $tmp/out, a writable bind mount of its own: $tmp itself may be under /tmp)
mkdir "$tmp/w" "$tmp/full" "$tmp/out"
cat >"$tmp/ns.sh" <<EOF
mount --bind "$tmp/out" "$tmp/out" && mount --rbind /tmp /tmp && mount -o remount,bind,ro /tmp || exit 99
mount -t tmpfs -o size=8m tmpfs "$tmp/w" && mount -t tmpfs -o size=64k tmpfs "$tmp/full" || exit 99
touch /tmp/rwlab-input-copy-probe 2>/dev/null && exit 98
o=$tmp/out
"$rwlab" report - <"$good" >"\$o/o1" 2>"\$o/e1"; echo \$? >"\$o/rc1"
TMPDIR="$tmp/w" "$rwlab" report - <"$good" >"\$o/o2" 2>"\$o/e2"; echo \$? >"\$o/rc2"
TMPDIR="$tmp/full" "$rwlab" report - <"$tmp/big.csv" >"\$o/o3" 2>"\$o/e3"; echo \$? >"\$o/rc3"
TMPDIR="$tmp/w" RWLAB_GNUPLOT=/bin/true "$rwlab" plot "$good" -o "\$o/p.svg" >"\$o/e4" 2>&1; echo \$? >"\$o/rc4"
EOF
unshare -rm sh "$tmp/ns.sh"
rc=$?
[ $rc = 0 ] || fail "the namespace's read-only /tmp or its tmpfs could not be made (exit $rc)"
[ "$(cat "$tmp/out/rc1")" = 0 ] && cmp -s "$tmp/out/o1" "$tmp/want" && [ "$(wc -l <"$tmp/out/e1")" = 1 ] &&
	grep -q "^rwlab report: note: cannot copy stdin into /tmp (Read-only file system; TMPDIR names the directory): it is kept in memory$" "$tmp/out/e1" ||
	fail "report - with /tmp read-only: exit $(cat "$tmp/out/rc1"), not the note and the report: $(head -c 300 "$tmp/out/e1")"
[ "$(cat "$tmp/out/rc2")" = 0 ] && cmp -s "$tmp/out/o2" "$tmp/want" && [ ! -s "$tmp/out/e2" ] ||
	fail "report - with /tmp read-only and a writable TMPDIR: exit $(cat "$tmp/out/rc2"): $(head -c 300 "$tmp/out/e2")"
[ "$(cat "$tmp/out/rc3")" = 0 ] && cmp -s "$tmp/out/o3" "$tmp/bigwant" && [ "$(wc -l <"$tmp/out/e3")" = 1 ] &&
	grep -q "^rwlab report: note: cannot copy stdin into $tmp/full (No space left on device; TMPDIR names the directory): it is kept in memory$" "$tmp/out/e3" ||
	fail "report - into a TMPDIR that fills up: exit $(cat "$tmp/out/rc3"), not the note and the report: $(head -c 300 "$tmp/out/e3")"
[ "$(cat "$tmp/out/rc4")" = 0 ] ||
	fail "plot with /tmp read-only and a writable TMPDIR: exit $(cat "$tmp/out/rc4"): $(head -c 300 "$tmp/out/e4")"
echo "input_copy: $fails failures"
exit $((fails > 0))
