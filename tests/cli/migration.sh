#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# CSV migration (README "Older files"): results files of the older schemas, committed under
# results/ (schema 1: the context in every row, no provenance columns; schema 3: the
# provenance, shard and plan in every row), read as they always were; `merge -o` rewrites
# one in schema 4 (the run's context once, in its '# context' line) and report gives the
# same tables from both; the two files pool under one logical schema (the same run in both
# is refused as a file given twice); --resume refuses to append schema 4 rows to an old
# file; and schema 4's rows are at most about 200 bytes.
# Usage: migration.sh RWLAB SOURCE-ROOT
. "${0%/*}/../lib.sh"
set -o pipefail
rwlab=$1 root=$2
case $rwlab in /*) ;; *) rwlab=$PWD/$rwlab ;; esac
cd "$tmp" || exit 1

# bytes per row of FILE: the file's bytes over its rows (the header and the context lines counted in)
per_row() { echo $(($(wc -c <"$1") / $(grep -vc '^#' "$1"))); }

for old in results/slurm/local.csv results/kernel/quiet-20261202/locktest/r2-v0.csv; do
	src=$root/$old
	schema=$(sed -n 2p "$src" | cut -d, -f1)
	name=$(basename "$old" .csv)
	cp "$src" "$name.old.csv"
	for f in table csv mmtests locktest; do
		"$rwlab" report "$name.old.csv" -f $f -m all >"$name.$f.old" 2>"$name.$f.olderr" ||
			fail "$old (schema $schema): report -f $f exited $?: $(head -2 "$name.$f.olderr")"
	done
	"$rwlab" merge -o "$name.new.csv" "$name.old.csv" 2>"$name.merge.err"
	[ $? -le 1 ] || fail "$old: merge -o (the conversion) refused it: $(cat "$name.merge.err")"
	head -1 "$name.new.csv" | grep -qx 'schema,run,timestamp,variant,workload,threads,iteration,metric,value,unit,host,better' ||
		fail "$old: the merged file's header is not schema 4's: $(head -1 "$name.new.csv")"
	runs=$(tail -n +2 "$name.old.csv" | cut -d, -f2 | sort -u | wc -l)
	[ "$(grep -c '^# context,run=' "$name.new.csv")" = "$runs" ] || fail "$old: not one context line per run ($runs runs)"
	[ "$(grep -vc '^#' "$name.new.csv")" = "$(wc -l <"$name.old.csv")" ] || fail "$old: the merged file lost or gained rows"
	[ "$(grep -v '^#' "$name.new.csv" | tail -n +2 | cut -d, -f1 | sort -u)" = 4 ] || fail "$old: rows not of schema 4"
	for f in table csv mmtests locktest; do
		"$rwlab" report "$name.new.csv" -f $f -m all 2>"$name.$f.newerr" | sed "s/$name\.new\.csv/$name.old.csv/g" >"$name.$f.new" ||
			fail "$old: report -f $f of the schema 4 copy exited $?"
		cmp -s "$name.$f.old" "$name.$f.new" || fail "$old: report -f $f differs between schema $schema and its schema 4 copy: $(diff "$name.$f.old" "$name.$f.new" | head -4)"
		cmp -s "$name.$f.olderr" "$name.$f.newerr" || fail "$old: report -f $f says other things: $(diff "$name.$f.olderr" "$name.$f.newerr" | head -4)"
	done
	# the context is kept: every context column of the old rows is in the new file's context lines
	for col in cpu_model kernel compiler git_rev; do
		c=$(head -1 "$name.old.csv" | tr ',' '\n' | grep -nx $col | cut -d: -f1)
		v=$(sed -n 2p "$name.old.csv" | cut -d, -f"$c")
		grep -qF "$col=$v" "$name.new.csv" || fail "$old: $col '$v' is not in the context lines"
	done
	# schema 3 and 4 are one logical schema: the two files pool, and the same run in both is a
	# file given twice (schema 1 has fewer columns: refused as another schema, as it always was)
	"$rwlab" report "$name.old.csv" "$name.new.csv" -f csv >/dev/null 2>err
	rc=$?
	if [ "$schema" = 3 ]; then
		[ $rc = 1 ] && grep -q "the row repeats $name.old.csv:2 .*the same run in two files" err ||
			fail "$old: old and new copies of one run were not refused as a file given twice: $(cat err)"
	else
		[ $rc = 1 ] && grep -q "not CSVs of one rwlab schema" err || fail "$old: schema 1 pooled with schema 4: $(cat err)"
	fi
	echo "$old (schema $schema): $(per_row "$name.old.csv") bytes a row; as schema 4: $(per_row "$name.new.csv")"
	[ "$(per_row "$name.new.csv")" -le 200 ] || fail "$old: schema 4 rows of $(per_row "$name.new.csv") bytes, want <= 200"
done

# --resume on an old file: refused before measuring, the file untouched.
for name in local r2-v0; do
	cp $name.old.csv resume.csv
	"$rwlab" run -l pthread -w locktest -t 1 -n 1 -d 10ms --warmup 0 -q --no-report -o resume.csv --resume 2>err
	rc=$?
	[ $rc = 2 ] && grep -q "not a results file of this version\|results file of an older rwlab .*start a new file" err ||
		fail "--resume on $name.old.csv: exit $rc: $(cat err)"
	cmp -s resume.csv $name.old.csv || fail "--resume changed $name.old.csv"
done

[ $fails = 0 ] && echo "all migration checks passed"
exit $((fails > 0))
