#!/bin/bash
# As run for results/sim/sensitivity/ladder.txt (paths of that session: /tmp/model/bin/rwlab was a copy of build/rwlab at main 560cc59).
# ladder-sens.sh: the validation ladder's verdicts with one machine's key group at 0.5x and 2x
# (a copy of sim/machines in a directory given to rwlab sim validate as RWLAB_SIM_MACHINES)
cd /work/wt/model
out=/tmp/model/sens/ladder; mkdir -p $out
rw=/tmp/model/bin/rwlab
run() { # run M [NAME=]GROUP F
	local m=$1 g=${2#*=} f=$3 n=${2%%=*} d
	d=$out/m/$m-$n-x$f
	rm -rf "$d"; mkdir -p "$d"; cp sim/machines/*.machine sim/machines/validate.ladder "$d"/
	IFS=+ read -r -a ks <<<"$g"
	for k in "${ks[@]}"; do
		v=$(awk -F'=' -v k="$k" '{ kk = $1; gsub(/[ \t]/, "", kk) } kk == k { split($2, a, "#"); gsub(/[ \t]/, "", a[1]); print a[1]; exit }' "$d/$m.machine")
		nv=$(awk -v v="$v" -v f="$f" 'BEGIN { x = v * f; if (k == "rmw.hold_share" && x > 1) x = 1; printf "%.6g", x }' k="$k")
		[ "$k" = rmw.hold_share ] && awk -v x="$nv" 'BEGIN { exit !(x > 1) }' && nv=1
		awk -v k="$k" -v nv="$nv" '{ kk = $0; sub(/[ \t]*=.*/, "", kk) } kk == k { i = index($0, "#"); printf "%s = %s    %s\n", k, nv, substr($0, i); next } { print }' "$d/$m.machine" > "$d/x" && mv "$d/x" "$d/$m.machine"
		echo -n "$k $v->$nv "
	done
	RWLAB_SIM_MACHINES=$d nice $rw sim validate $m > "$out/$m-$n-x$f.txt" 2>&1
	echo ": $(grep -E '^[a-z_0-9]+ +validation' "$out/$m-$n-x$f.txt" | awk '{printf "%s %s %s %s; ", $1, $4, $5, $7}')"
}
for mg in skl-6700hq-1s8:load.local_ns skx-8180-2s112:kernel=cost.wakeup_ns+cost.futex_wake_ns+cost.futex_wait_ns+cost.ipi_ns+cost.irq_ns skx-8180-2s112:mem.local_ns+mem.remote_ns hsw-ep-2s40:kernel=cost.wakeup_ns+cost.futex_wake_ns+cost.futex_wait_ns+cost.ipi_ns+cost.irq_ns hsw-ep-2s40:mem.local_ns+mem.remote_ns hsw-ep-2s40:rmw.local_ns skx-8180-2s112:hz hsw-ep-2s40:hz skx-8180-2s112:load.local_ns skx-8180-2s112:bw.core_gbs hsw-ep-2s40:load.local_ns hsw-ep-2s40:bw.core_gbs; do
	m=${mg%:*} g=${mg#*:}
	for f in 0.5 2; do echo "$m ${g%=*} x$f: $(run $m $g $f)"; done
done
