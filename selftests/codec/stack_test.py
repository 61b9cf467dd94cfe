#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The codec is usable from atomic context: its call graph, as GCC reports
it (-fcallgraph-info=su), has no recursion and no dynamic stack, calls
nothing outside itself but the environment's crc32 and mem*() functions,
and its deepest call chain uses less than 512 bytes of stack. Prints TAP.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

BUDGET = 512
ALLOWED = {"crc32_z", "crc32_le", "memcpy", "memmove", "memset"}

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.normpath(os.path.join(here, "../.."))
codec = os.path.join(src, "kernel/naobody/codec")
results = []


def report(ok, name, diag=None):
    results.append((ok, name, diag))


nodes, edges = {}, {}
with tempfile.TemporaryDirectory() as tmp:
    for c in sorted(glob.glob(os.path.join(codec, "*.c"))):
        obj = os.path.join(tmp, os.path.basename(c)[:-2] + ".o")
        subprocess.run(["gcc", "-std=gnu11", "-O2", "-fcallgraph-info=su",
                        "-I" + os.path.join(src, "uapi"), "-I" + codec,
                        "-c", c, "-o", obj], check=True, cwd=tmp)
    for ci in glob.glob(os.path.join(tmp, "*.ci")):
        for line in open(ci):
            m = re.match(r'node: \{ title: "([^"]+)" label: "([^"]*)"', line)
            if m:
                size = re.search(r"\\n(\d+) bytes \((\w+)\)", m.group(2))
                old = nodes.get(m.group(1))
                if size or old is None:
                    nodes[m.group(1)] = (int(size.group(1)), size.group(2)) \
                        if size else None
                continue
            m = re.match(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"',
                         line)
            if m:
                edges.setdefault(m.group(1), set()).add(m.group(2))

ours = {n for n, v in nodes.items() if v is not None}
external = {n for n, v in nodes.items() if v is None}
bad = sorted(n for n in external if n not in ALLOWED)
report(not bad, "codec calls only crc32 and mem*() outside itself",
       "also calls: " + ", ".join(bad) if bad else None)
dynamic = sorted(n for n in ours if nodes[n][1] != "static")
report(not dynamic, "codec has no dynamic stack frames",
       ", ".join(dynamic) if dynamic else None)

# Deepest chain, and recursion, by depth-first search.
best, cycle = {}, []


def depth(n, path):
    if n in path:
        cycle.append(" -> ".join(path + [n]))
        return 0, [n]
    if n in best:
        return best[n]
    own = nodes[n][0] if nodes.get(n) else 0
    deep, chain = 0, []
    for t in sorted(edges.get(n, ())):
        d, c = depth(t, path + [n])
        if d > deep:
            deep, chain = d, c
    best[n] = (own + deep, [n] + chain)
    return best[n]


worst, chain = 0, []
for n in sorted(ours):
    d, c = depth(n, [])
    if d > worst:
        worst, chain = d, c
report(not cycle, "codec has no recursion", cycle[0] if cycle else None)
report(worst < BUDGET,
       f"deepest codec call chain under {BUDGET} bytes of stack",
       f"{worst} bytes: " + " -> ".join(chain))

print("TAP version 13")
print(f"1..{len(results)}")
for i, (ok, name, diag) in enumerate(results, 1):
    if diag:
        print(f"# {diag}")
    print(f"{'ok' if ok else 'not ok'} {i} {name}")
sys.exit(0 if all(r[0] for r in results) else 1)
