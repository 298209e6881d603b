#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every row of the README's "When the input is wrong" table, run: the command
# must exit with the documented status and print exactly one line on stderr,
# the documented message ("..." in it stands for any text). The commands run
# in a scratch directory holding copies of tests/data/*.csv; nothing else.
# Usage: readme_errors.sh RWLAB README DATA-DIR
. "${0%/*}/../lib.sh"
rwlab=$1 readme=$2 data=$3
case $rwlab in /*) ;; *) rwlab=$PWD/$rwlab ;; esac
cp "$data"/*.csv "$tmp"/
rows=0
tab=$(printf '\t')

# "| input | `command` | exit | `message` |" -> command<TAB>exit<TAB>message
sed -n '/<!-- errors/,/<!-- \/errors -->/p' "$readme" |
	sed -n 's/^| [^|]* | `\([^`]*\)` | \([0-9]*\) | `\([^`]*\)` |$/\1\t\2\t\3/p' >"$tmp/rows"
while IFS="$tab" read -r cmd want msg; do
	rows=$((rows + 1))
	case $cmd in
	rwlab | rwlab\ *) ;;
	*) echo "FAIL: row '$cmd' does not start with rwlab"; fails=$((fails + 1)); continue ;;
	esac
	(cd "$tmp" && eval "\"\$rwlab\"${cmd#rwlab}") >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	got=$(head -n 1 "$tmp/err")
	nl=$(wc -l <"$tmp/err")
	ok=1 doc=$msg
	[ "$rc" = "$want" ] || { echo "FAIL: '$cmd' exited $rc, README says $want"; ok=0; }
	[ "$nl" -eq 1 ] || { echo "FAIL: '$cmd' printed $nl lines on stderr, not one:"; cat "$tmp/err"; ok=0; }
	case $msg in
	*...*)
		# Each piece between the "..." must follow the last, anchored at both ends.
		rest=$got first=1
		while :; do
			piece=${msg%%...*}
			msg_tail=${msg#*...}
			[ "$msg_tail" = "$msg" ] && last=1 || last=0
			if [ $first = 1 ]; then
				case $rest in "$piece"*) rest=${rest#"$piece"} ;; *) ok=0 ;; esac
			elif [ $last = 1 ]; then
				case $rest in *"$piece") ;; *) ok=0 ;; esac
			else
				case $rest in *"$piece"*) rest=${rest#*"$piece"} ;; *) ok=0 ;; esac
			fi
			[ $last = 1 ] && break
			first=0 msg=$msg_tail
		done
		;;
	*)
		[ "$got" = "$msg" ] || ok=0
		;;
	esac
	[ $ok = 1 ] || { echo "FAIL: '$cmd'"; echo "  README: $doc"; echo "  got:    $got"; fails=$((fails + 1)); }
done <"$tmp/rows"

# The fixtures must be untouched by the refused commands (--resume on a foreign file).
for f in "$data"/*.csv; do
	cmp -s "$f" "$tmp/$(basename "$f")" || { echo "FAIL: a command changed $(basename "$f")"; fails=$((fails + 1)); }
done
[ "$rows" -ge 30 ] || { echo "FAIL: only $rows rows read from the README table"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "README error table: $rows rows, all as documented"
[ $fails -eq 0 ]
