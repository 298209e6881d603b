#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every sim/machines/*.machine against the machine-file format:
# all required keys once, no unknown key, every numeric value positive and
# carrying a citation whose [keys] are defined in results/sim/machines.md (or
# are [calc], [proxy], [missing: ...], [calib PATH [METRIC]] with PATH present;
# a [calib PATH METRIC] value without [calc] must equal that metric's summary
# in PATH), name = file name, the topology giving the CPU count the summary
# states (": N CPUs"), and c2c latencies ordered smt <= l3 <= socket <= remote (socket <=
# socket_far_home; both equal to l3 when l3_per_socket = 1). Then the same
# check must FAIL on broken copies, each for the reason it was broken.
# Usage: machines.sh SOURCE-ROOT
. "${0%/*}/../lib.sh"
root=$1

sources=$root/results/sim/machines.md

# check_machine FILE: prints one line per problem, exit 1 if any.
check_machine() {
	awk -v file="$1" -v root="$root" -v sources="$sources" '
	function problem(msg) { printf "%s: %s\n", file, msg; bad++ }
	function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
	function isnum(s) { return s ~ /^-?[0-9]+(\.[0-9]+)?$/ }
	function isint(s) { return s ~ /^[0-9]+$/ }
	# The summary lines of a calibration record: summary<TAB>metric<TAB>median...
	function calib_value(path, metric,    line, f, v) {
		v = ""
		while ((getline line < path) > 0) {
			split(line, f, "\t")
			if (f[1] == "summary" && f[2] == metric)
				v = f[3]
		}
		close(path)
		return v
	}
	function check_citation(key, val, cit, line,    rest, tag, n, sourced, calc, parts, path, metric, want) {
		rest = cit
		sourced = 0
		calc = (cit ~ /\[calc\]/)
		n = 0
		while (match(rest, /\[[^]]*\]/)) {
			tag = substr(rest, RSTART + 1, RLENGTH - 2)
			rest = substr(rest, RSTART + RLENGTH)
			n++
			if (tag == "calc" || tag == "proxy")
				continue
			if (tag ~ /^missing: ./) {
				sourced = 1
				continue
			}
			if (tag ~ /^calib /) {
				split(tag, parts, " ")
				path = parts[2]
				metric = parts[3]
				if ((getline dummy < (root "/" path)) <= 0) {
					problem("line " line ": " key ": calibration file " path " not found")
					continue
				}
				close(root "/" path)
				sourced = 1
				if (metric != "") {
					want = calib_value(root "/" path, metric)
					if (want == "")
						problem("line " line ": " key ": metric " metric " not in the summary of " path)
					else if (!calc && (val - want > 0.05 + 0.0005 * want || want - val > 0.05 + 0.0005 * want))
						problem("line " line ": " key " = " val " differs from the calibration " metric " = " want)
				}
				continue
			}
			if (!(tag in known)) {
				problem("line " line ": " key ": unknown source [" tag "] (not in results/sim/machines.md)")
				continue
			}
			sourced = 1
		}
		if (n == 0)
			problem("line " line ": " key " = " val " has no citation")
		else if (!sourced)
			problem("line " line ": " key ": the citation names no source, only [calc]/[proxy]")
	}
	BEGIN {
		while ((getline line < sources) > 0)
			if (match(line, /^\| \[[^]]+\] \|/))
				known[substr(line, 4, RLENGTH - 6)] = 1
		close(sources)
		split("name summary sockets l3_per_socket cores_per_l3 smt numbering hz ghz " \
		      "c2c.smt_ns c2c.l3_ns c2c.socket_ns c2c.socket_far_home_ns c2c.remote_ns " \
		      "rmw.local_ns rmw.hold_share load.local_ns mem.local_ns mem.remote_ns bw.core_gbs bw.socket_gbs " \
		      "relax_ns sched sched.lb_busy_factor " \
		      "cost.ctxsw_ns cost.wakeup_ns cost.futex_wake_ns cost.futex_wait_ns cost.syscall_ns cost.ipi_ns", req, " ")
		for (i in req)
			required[req[i]] = 1
		# the keys of one scheduler: checked against sched = cfs|eevdf at the end
		split("sched.latency_ns sched.min_granularity_ns sched.wakeup_granularity_ns", cfskeys, " ")
		for (i in cfskeys)
			optional[cfskeys[i]] = 1
		optional["sched.base_slice_ns"] = 1
		optional["sb.entries"] = 1	# the store buffer (sim/coherence.c rule 8): absent means none
		optional["c2c.pairs"] = 1	# a published per-pair matrix (rule 9): absent means the class figures
	}
	/^[ \t]*#/ || /^[ \t]*$/ { next }
	{
		if (!match($0, /^[a-z0-9_.]+[ \t]*=/)) {
			problem("line " FNR ": not key = value: " $0)
			next
		}
		key = trim(substr($0, 1, index($0, "=") - 1))
		rest = substr($0, index($0, "=") + 1)
		cit = ""
		if (index(rest, "#")) {
			cit = substr(rest, index(rest, "#") + 1)
			rest = substr(rest, 1, index(rest, "#") - 1)
		}
		val = trim(rest)
		if (key in seen)
			problem("line " FNR ": " key " given twice")
		seen[key] = 1
		value[key] = val
		if (!(key in required) && !(key in optional) && key !~ /^(cost|note|bw)\.[a-z0-9_.]+$/)
			problem("line " FNR ": unknown key " key)
		if (key == "c2c.pairs" && cit !~ /\[[^]]+\]/)
			problem("line " FNR ": c2c.pairs has no [source]")
		if (isnum(val)) {
			if (val + 0 <= 0 && !(key == "rmw.hold_share" && val + 0 == 0))
				problem("line " FNR ": " key " = " val " is not positive")
			check_citation(key, val, cit, FNR)
		}
	}
	END {
		if ("c2c.pairs" in value) {
			pf = FILENAME
			sub(/[^\/]*$/, "", pf)
			pf = pf value["c2c.pairs"]
			if ((getline pl < pf) <= 0)
				problem("c2c.pairs = " value["c2c.pairs"] ": " pf " cannot be read")
			close(pf)
		}
		for (k in required)
			if (!(k in seen))
				problem("missing key " k)
		if (value["sched"] != "cfs" && value["sched"] != "eevdf")
			problem("sched = " value["sched"] ": want cfs or eevdf")
		for (i in cfskeys)
			if ((cfskeys[i] in seen) != (value["sched"] == "cfs"))
				problem("sched = " value["sched"] " and " cfskeys[i] ((cfskeys[i] in seen) ? " given" : " missing"))
		if (("sched.base_slice_ns" in seen) != (value["sched"] == "eevdf"))
			problem("sched = " value["sched"] " and sched.base_slice_ns " (("sched.base_slice_ns" in seen) ? "given" : "missing"))
		base = file
		sub(/.*\//, "", base)
		sub(/\.machine$/, "", base)
		if (("name" in value) && value["name"] != base)
			problem("name " value["name"] " does not match the file name " base)
		generic = (base == "generic")
		if (generic) {
			if (value["sockets"] != "auto" || value["l3_per_socket"] != "auto" || value["cores_per_l3"] != "auto")
				problem("generic: sockets, l3_per_socket and cores_per_l3 must be auto")
			if (value["summary"] !~ /^generic-N/)
				problem("generic: the summary must start with generic-N")
		} else {
			if (!isint(value["sockets"]) || !isint(value["l3_per_socket"]) || !isint(value["cores_per_l3"]))
				problem("sockets, l3_per_socket and cores_per_l3 must be whole numbers")
			cpus = value["sockets"] * value["l3_per_socket"] * value["cores_per_l3"] * value["smt"]
			if (!match(value["summary"], /: [0-9]+ CPUs/))
				problem("the summary does not state \": N CPUs\"")
			else if (substr(value["summary"], RSTART + 2, RLENGTH - 7) + 0 != cpus)
				problem("CPU count: the summary says " substr(value["summary"], RSTART + 2, RLENGTH - 7) \
					" CPUs, the topology gives " cpus)
		}
		if (value["smt"] != 1 && value["smt"] != 2)
			problem("smt = " value["smt"] ": must be 1 or 2")
		if (value["numbering"] != "linux" && value["numbering"] != "adjacent")
			problem("numbering = " value["numbering"] ": must be linux or adjacent")
		if (!isint(value["hz"]))
			problem("hz = " value["hz"] ": must be a whole number")
		s = value["c2c.smt_ns"] + 0; l = value["c2c.l3_ns"] + 0; k = value["c2c.socket_ns"] + 0
		f = value["c2c.socket_far_home_ns"] + 0; r = value["c2c.remote_ns"] + 0
		if (!(s <= l && l <= k && k <= r))
			problem("c2c order broken: smt " s " <= l3 " l " <= socket " k " <= remote " r " does not hold")
		if (k > f)
			problem("c2c order broken: socket " k " > socket_far_home " f)
		if (value["l3_per_socket"] == 1 && (k != l || f != k))
			problem("l3_per_socket = 1 but c2c.socket_ns/socket_far_home_ns differ from c2c.l3_ns")
		exit bad > 0
	}' "$1"
}

# check_record FILE: a calibration record's summary lines are, per metric,
# the median of the run medians (its min and max those of the runs); a full
# record has at least 13 metrics, one made with --only LIST exactly those.
check_record() {
	awk -F '\t' -v file="$1" '
	function problem(msg) { printf "%s: %s\n", file, msg; bad++ }
	/^# rwlab-calibrate: .*, only / { only = $0; sub(/.*, only /, "", only); nonly = split(only, ol, ",") }
	/^#/ || NF != 6 && $1 != "summary" { next }
	$1 == "summary" { sum[$2] = $3; smin[$2] = $4; smax[$2] = $5; next }
	{ v[$1, ++n[$1]] = $2 }
	END {
		for (m in n) {
			k = n[m]
			for (i = 1; i <= k; i++)	# insertion sort of the run medians
				for (j = i; j > 1 && v[m, j - 1] + 0 > v[m, j] + 0; j--) {
					t = v[m, j]; v[m, j] = v[m, j - 1]; v[m, j - 1] = t
				}
			med = k % 2 ? v[m, (k + 1) / 2] : (v[m, k / 2] + v[m, k / 2 + 1]) / 2
			if (!(m in sum))
				problem("no summary line for " m)
			else if (sum[m] - med > 0.0005 || med - sum[m] > 0.0005 || smin[m] + 0 != v[m, 1] + 0 || smax[m] + 0 != v[m, k] + 0)
				problem("summary of " m " is " sum[m] " (" smin[m] ".." smax[m] "), the runs give " med " (" v[m, 1] ".." v[m, k] ")")
		}
		if (nonly && length(n) != nonly)	# a record of rwlab-calibrate --only LIST
			problem(length(n) " metrics recorded, --only named " nonly)
		else if (!nonly && length(n) < 13)
			problem("only " length(n) " metrics recorded")
		exit bad > 0
	}' "$1"
}
for r in "$root"/results/sim/calibration/*.txt; do
	check_record "$r" || fail "$(basename "$r"): summary does not match its runs (above)"
done
sed 's/^\(summary	c2c_ns	\)[0-9.]*/\1999.5/' "$root/results/sim/calibration/epyc-2vcpu.txt" >"$tmp/record.txt"
if check_record "$tmp/record.txt" >"$tmp/record.log"; then
	fail "a record whose c2c_ns summary was edited passed"
elif ! grep -q "summary of c2c_ns is 999.5" "$tmp/record.log"; then
	fail "edited record failed for another reason: $(cat "$tmp/record.log")"
fi

n=0
for m in "$root"/sim/machines/*.machine; do
	n=$((n + 1))
	check_machine "$m" || fail "$(basename "$m") does not pass (above)"
done
[ "$n" -ge 7 ] || fail "only $n machine files in sim/machines"
for want in epyc-2vcpu xeon-16vcpu ivb-ep-2s40 icx-8336c-2s128 epyc9654-2s384 icx-6338-2s128 generic; do
	[ -f "$root/sim/machines/$want.machine" ] || fail "sim/machines/$want.machine missing"
done

# broken COPY-NAME EXPECTED-PATTERN SED-SCRIPT [SOURCE]: a copy of SOURCE
# (default epyc9654-2s384) edited by SED-SCRIPT must fail, naming the reason.
broken() {
	name=$1 pat=$2 script=$3 src=${4:-epyc9654-2s384}
	mkdir -p "$tmp/$name"
	out=$tmp/$name/$( [ "$name" = rename ] && echo other || echo "$src" ).machine
	sed -e "$script" "$root/sim/machines/$src.machine" >"$out"
	if cmp -s "$out" "$root/sim/machines/$src.machine" && [ "$name" != rename ]; then
		fail "broken copy '$name': the edit changed nothing"
		return
	fi
	if check_machine "$out" >"$tmp/$name.log"; then
		fail "broken copy '$name' passed the check"
	elif ! grep -Eq -- "$pat" "$tmp/$name.log"; then
		fail "broken copy '$name' failed for another reason: $(cat "$tmp/$name.log")"
	fi
}
broken uncited 'c2c.l3_ns = 24.0 has no citation' 's/^\(c2c.l3_ns = 24.0\) .*/\1/'
broken missing-key 'missing key hz' '/^hz = /d'
broken order 'c2c order broken' 's/^c2c.remote_ns = 193.0/c2c.remote_ns = 50/'
broken far-home 'socket 100.5 > socket_far_home 90' 's/^c2c.socket_far_home_ns = 193.0/c2c.socket_far_home_ns = 90/'
broken cpus 'CPU count: the summary says 256 CPUs, the topology gives 384' 's/: 384 CPUs/: 256 CPUs/'
broken topology 'CPU count: the summary says 384 CPUs, the topology gives 320' 's/^l3_per_socket = 12/l3_per_socket = 10/'
broken rename 'name epyc9654-2s384 does not match the file name other' ''
broken unknown-source 'unknown source \[nosuch\]' 's/^\(ghz = 2.4 *\)# .*/\1# [nosuch] made up/'
broken only-calc 'names no source, only' 's/^\(ghz = 2.4 *\)# .*/\1# [calc] [proxy]/'
# shellcheck disable=SC2016  # sed's $a (append after the last line)
broken unknown-key 'unknown key foo.bar' '$a\
foo.bar = 3   # [c2c]'
# shellcheck disable=SC2016
broken twice 'hz given twice' '$a\
hz = 100   # [linux-6.18]'
broken negative 'is not positive' 's/^relax_ns = [0-9.]*/relax_ns = 0/'
broken calib-value 'rmw.local_ns = 99 differs from the calibration rmw_local_ns' \
	's/^rmw.local_ns = [0-9.]*/rmw.local_ns = 99/' epyc-2vcpu
broken calib-metric 'metric nosuch_ns not in the summary' \
	's/rmw_local_ns\]/nosuch_ns]/' epyc-2vcpu
broken calib-file 'calibration file results/sim/calibration/none.txt not found' \
	's/epyc-2vcpu.txt rmw_local_ns/none.txt rmw_local_ns/' epyc-2vcpu
broken generic-topology 'must be auto' 's/^sockets = auto/sockets = 2   # [c2c]/' generic

# results/sim/machines.md carries tools/machine-tables' output: it must be current.
sed -n '/^<!-- machine-tables -->$/,/^<!-- \/machine-tables -->$/p' "$sources" | sed '1d;$d' >"$tmp/doc.md"
"$root/tools/machine-tables" >"$tmp/gen.md" || fail "tools/machine-tables failed"
cmp -s "$tmp/doc.md" "$tmp/gen.md" ||
	fail "results/sim/machines.md tables are stale: re-run tools/machine-tables (diff: $(diff "$tmp/doc.md" "$tmp/gen.md" | head -3))"

[ "$fails" = 0 ] && echo "machines: $n files ok, 16 broken copies refused, tables current, records consistent"
exit "$fails"
