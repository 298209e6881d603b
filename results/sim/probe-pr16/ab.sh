#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# usage: ab.sh TAG ROUNDS WORKLOAD THREADS ; alternates base / probe(off) / probe(LA=inf,1000,100)
tag=$1; rounds=$2; w=$3; t=$4; shift 4
variants=${VARIANTS:-"base off inf 1000 100"}
cd /tmp/pr16-runs
CMD="run --sim ivb-ep-2s40 -l rwsem-xadd -w $w -t $t -n 1 -d 1s --warmup 0 --pin none -j 1 -q"
for r in $(seq 1 $rounds); do
  for v in $variants; do
    case $v in
      base) bin=/tmp/pr16-base/rwlab; env="";;
      mc) bin=/tmp/pr16-merge/build/rwlab; env="";;
      off) bin=/work/wt/pr16/build-lean/rwlab; env="";;
      poff) bin=/work/wt/pr16/build-probe/rwlab; env="";;
      w:*) bin=/work/wt/pr16/build-lean/rwlab; env="RWLAB_PROBE_LA_WHAT=work RWLAB_PROBE_LA=${v#w:}";;
      m:*) bin=/work/wt/pr16/build-lean/rwlab; env="RWLAB_PROBE_LA_WHAT=mem RWLAB_PROBE_LA=${v#m:}";;
      *) bin=/work/wt/pr16/build-lean/rwlab; env="RWLAB_PROBE_LA=$v";;
    esac
    l0=$(cut -d' ' -f1 /proc/loadavg)
    out=$(env $env RWLAB_SIM_STATS=1 /usr/bin/time -f 'TIME %U %S %e' $bin $CMD --csv $tag-${v/:/_}-$r.csv 2>&1)
    sw=$(echo "$out" | grep -m1 -o '[0-9]* task switches' | cut -d' ' -f1)
    tm=$(echo "$out" | grep '^TIME' | cut -d' ' -f2-)
    md=$(grep -v '^#' $tag-${v/:/_}-$r.csv | cut -d, -f4-10 | md5sum | cut -c1-8)
    jpm=$(python3 -c "import csv,sys; r=[x for x in csv.reader(l for l in open(sys.argv[1]) if not l.startswith('#')) if len(x)>8 and x[7]=='JPM']; print(round(float(r[0][8])))" $tag-${v/:/_}-$r.csv)
    echo "$tag round $r $v: user/sys/wall $tm switches $sw JPM $jpm md5 $md load $l0"
  done
done
