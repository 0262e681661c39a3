#!/usr/bin/env python3
"""jfr_fold.py - the JDK's own reader as an oracle for `jvmtool collapse x.jfr`

Reads `jfr print --json --stack-depth 2048 --events ...` on stdin and writes
folded stacks the way our reader names them (docs/jfr.md §5, §6): frames root
first as dotted.Class.method (hidden classes as Class.getName() spells them), a "[truncated]"
root when JFR cut the stack, "[no stack]" when there is none, the allocated
class as the leaf for allocation events, the monitor's (or the object
parked on) for lock events (an event with none of these:
"[no stack]"); values: one a sample, bytes from jdk.ThreadAllocationStatistics
per thread (`weight` with --raw), `tlabSize`/`allocationSize`, or the
duration in ns.

usage: jfr_fold.py KIND [--thread-frames] [--lines] [--raw]   (KIND: cpu alloc lock ...)
"""
import json
import re
import sys

kind = sys.argv[1]
threads = "--thread-frames" in sys.argv
lines = "--lines" in sys.argv
PRIMS = {"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int",
         "J": "long", "F": "float", "D": "double"}


def clean(s):
    return "".join("_" if c == ";" or ord(c) < 0x20 or c == "\x7f" else c
                   for c in s)


def class_name(c):
    if c is None or c.get("name") is None:
        return "[unknown]"
    name = c["name"]
    dims = len(name) - len(name.lstrip("["))
    base = name[dims:]
    if dims and len(base) == 1 and base in PRIMS:
        base = PRIMS[base]
    else:
        if dims and base.startswith("L"):
            base = base[1:]
        if dims and base.endswith(";"):
            base = base[:-1]
        if not c.get("hidden"):
            base = base.replace("/", ".")
        else:
            # JDK 17's hidden name "X+0x<addr>/<mirror hash>" spelled as
            # Class.getName() and a thread dump spell it: "X/0x<addr>"
            base = re.sub(r"\+(0x[0-9a-fA-F]+)/[0-9]+$", r"/\1", base)
    return base + "[]" * dims


def frame(f):
    m = f.get("method")
    if m is None or m.get("type") is None:
        s = "[unknown]"
    else:
        s = class_name(m["type"]) + "." + m["name"]
    if lines and f.get("lineNumber", -1) >= 0:
        s += ":%d" % f["lineNumber"]
    return clean(s)


def duration_ns(d):
    m = re.fullmatch(r"(-)?PT(?:(\d+)H)?(?:(\d+)M)?(?:(-?\d+)(?:\.(\d+))?S)?", d)
    if not m:
        raise ValueError("duration " + d)
    h, mi, s, frac = (int(m.group(2) or 0), int(m.group(3) or 0),
                      int(m.group(4) or 0), (m.group(5) or "").ljust(9, "0"))
    ns = ((h * 60 + mi) * 60 + s) * 10**9 + int(frac)
    return -ns if m.group(1) else ns


VALUE = {"jdk.ObjectAllocationSample": "weight",
         "jdk.ObjectAllocationInNewTLAB": "tlabSize",
         "jdk.ObjectAllocationOutsideTLAB": "allocationSize",
         "jdk.JavaMonitorEnter": "duration", "jdk.ThreadPark": "duration"}
LEAF = kind == "alloc"
scaled = "--raw" not in sys.argv

def thread_id(t):
    if t is None:
        return None
    return (t.get("osThreadId"), t.get("javaThreadId"), t.get("javaName"))


# jdk.ObjectAllocationSample: a stack's share of its thread's samples times
# the thread's growth of jdk.ThreadAllocationStatistics.allocated (raw
# weights for a thread without two of those), rounded per thread and stack
# (docs/jfr.md §13)
tas = {}        # thread -> [lo, hi, n]
samples = {}    # thread -> samples
per = {}        # (thread, key) -> [count, weight]

totals = {}
for e in json.load(sys.stdin)["recording"]["events"]:
    v = e["values"]
    if e["type"] == "jdk.ThreadAllocationStatistics":
        t = thread_id(v.get("thread"))
        a = int(v["allocated"])
        lo, hi, n = tas.get(t, [a, a, 0])
        tas[t] = [min(lo, a), max(hi, a), n + 1]
        continue
    st = v.get("stackTrace")
    if st is None:
        stack = ["[no stack]"]
    else:
        stack = [frame(f) for f in reversed(st["frames"])]
        if st.get("truncated"):
            stack.insert(0, "[truncated]")
    if threads:
        t = v.get("sampledThread", v.get("eventThread"))
        name = "[unknown]"
        if t is not None:
            name = t.get("javaName") or t.get("osName") or "[unknown]"
        stack.insert(0, clean(name))
    if LEAF:
        stack.append(clean(class_name(v.get("objectClass"))))
    elif kind == "lock":
        # the monitor's class, or the object parked on (none: no leaf)
        c = v.get("monitorClass", v.get("parkedClass"))
        if c is not None:
            stack.append(clean(class_name(c)))
    if not stack:
        stack = ["[no stack]"]
    field = VALUE.get(e["type"])
    value = 1
    if field == "duration":
        value = duration_ns(v["duration"])
    elif field:
        value = int(v[field])
    key = ";".join(stack)
    if e["type"] == "jdk.ObjectAllocationSample" and scaled:
        t = thread_id(v.get("eventThread"))
        samples[t] = samples.get(t, 0) + 1
        c = per.setdefault((t, key), [0, 0])
        c[0] += 1
        c[1] += value
        continue
    totals[key] = totals.get(key, 0) + value

for (t, key), (count, weight) in per.items():
    lo, hi, n = tas.get(t, [0, 0, 0])
    value = weight
    if n >= 2 and samples.get(t):
        value = int(count / samples[t] * (hi - lo) + 0.5)
    totals[key] = totals.get(key, 0) + value

for key in sorted(totals, key=lambda k: k.encode()):
    print("%s %d" % (key, totals[key]))
