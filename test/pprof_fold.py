#!/usr/bin/env python3
"""pprof_fold.py - fold `go tool pprof -raw` output back into stacks.

Reads the text go tool pprof -raw prints (the reference reader's view of a
profile) and prints "thread;root;...;leaf value" lines, sorted, a frame
"name:line" when the location has a line, the value column given by its
index (default: the last). With no thread label the thread part is left
out. Usage: go tool pprof -raw F | pprof_fold.py [COLUMN]
"""
import re
import sys

col = int(sys.argv[1]) if len(sys.argv) > 1 else -1
samples, locs, part, cur = [], {}, None, None
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.startswith("Samples:"):
        part = "s"
        continue
    if line.startswith("Locations"):
        part = "l"
        continue
    if line.startswith("Mappings"):
        part = None
        continue
    if part == "s":
        m = re.match(r"^\s+([-0-9 ]+):((?: \d+)*) ?$", line)
        if m:
            cur = [[int(v) for v in m.group(1).split()], m.group(2).split(), None]
            samples.append(cur)
            continue
        m = re.match(r"^\s+thread:\[(.*)\]$", line)
        if m and cur:
            cur[2] = m.group(1)
    elif part == "l":
        m = re.match(r"^\s+(\d+): 0x[0-9a-f]+ M=\d+ (.*) :(\d+) s=\d+$", line)
        if m:
            name, ln = m.group(2), int(m.group(3))
            locs[m.group(1)] = name + (":%d" % ln if ln else "")
tot = {}
for vals, ids, thread in samples:
    frames = [locs[i] for i in reversed(ids)]
    if thread is not None:
        frames.insert(0, thread)
    key = ";".join(frames)
    tot[key] = tot.get(key, 0) + vals[col]
for key in sorted(tot, key=lambda k: k.encode()):
    print("%s %d" % (key, tot[key]))
