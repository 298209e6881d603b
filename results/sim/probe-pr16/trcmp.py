# SPDX-License-Identifier: GPL-2.0-only
import struct
R=24
def split(fn):
    per={}
    with open(fn,'rb') as f:
        while True:
            buf=f.read(R*65536)
            if not buf: break
            for o in range(0,len(buf),R):
                c=buf[o]|(buf[o+1]<<8)
                per.setdefault(c,bytearray()).extend(buf[o:o+R])
    return per
a=split('/tmp/pr16-runs/tr-build-th.bin'); b=split('/tmp/pr16-runs/tr-build-thm.bin')
firsts=[]
for c in sorted(a):
    x=a[c]; y=b.get(c,bytearray())
    if x==y: continue
    n=min(len(x),len(y))
    i=next((k for k in range(0,n,R) if x[k:k+R]!=y[k:k+R]), n)
    rx=struct.unpack('<HHIQQ',bytes(x[i:i+R])); ry=struct.unpack('<HHIQQ',bytes(y[i:i+R]))
    firsts.append((min(rx[3],ry[3]),c,i))
firsts.sort()
print(firsts[:4])
for _,c,i in firsts[:2]:
  print('cpu',c)
  for k in range(max(0,i-10*R),i+3*R,R):
    print('th ',struct.unpack('<HHIQQ',bytes(a[c][k:k+R])),' thm',struct.unpack('<HHIQQ',bytes(b[c][k:k+R])))
