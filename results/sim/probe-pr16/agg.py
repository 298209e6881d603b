# SPDX-License-Identifier: GPL-2.0-only
import re,collections,sys
acc=collections.Counter(); sw=collections.Counter(); n=collections.Counter(); hits=collections.Counter()
for line in open(sys.argv[1]):
    m=re.search(r'one-CPU line (\S+) cpu (\d+) task (\d+)(.*?): (\d+) accesses, (\d+) hits, (\d+) sw before; first at (\S+) latest at (\S+)',line)
    if not m: continue
    f1=m.group(8).split('+')[0]; f2=m.group(9).split('+')[0]
    k=(f1,f2)
    acc[k]+=int(m.group(5)); hits[k]+=int(m.group(6)); sw[k]+=int(m.group(7)); n[k]+=1
tot=sum(sw.values())
print("one-CPU lines: sw before an access",tot, "accesses",sum(acc.values()))
for k,v in sw.most_common(10):
    print(f"  first {k[0]:24s} latest {k[1]:24s} lines {n[k]:6d} acc {acc[k]:9d} hits {hits[k]:9d} sw {v:9d} ({100*v/tot:.1f}%)")
