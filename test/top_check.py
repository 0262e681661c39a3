#!/usr/bin/env python3
"""top_check.py - oracles for test/top.test, from /proc itself.

  node BEFORE AFTER OUT [json]   (BEFORE, AFTER: /proc/uptime, then each
                                 JVM's /proc/PID/stat line, read around
                                 the run)   every pid of BEFORE in each refresh of OUT,
                                 its mean CPU % within 10 points of /proc's
  threads OUT [json]             the last refresh: burn-90 first, then
                                 burn-45, then burn-20; burn-90's stack
                                 holds Burn.spin90
"""
import json
import os
import sys

HZ = os.sysconf("SC_CLK_TCK")


def load_snap(path):
    """/proc/uptime's first number, then stat lines: (t, {pid: ticks})."""
    with open(path) as f:
        lines = f.read().split("\n")
    t = float(lines[0].split()[0])
    got = {}
    for s in lines[1:]:
        if s:
            rest = s[s.rindex(")") + 2:].split()
            got[s.split()[0]] = int(rest[11]) + int(rest[12])
    return t, got


def node_refreshes(out, js):
    """[{pid: cpu}] per refresh."""
    refs = []
    with open(out) as f:
        text = f.read()
    if js:
        for line in text.splitlines():
            o = json.loads(line)
            refs.append({str(v["pid"]): v["cpu_pct"] for v in o["jvms"]})
        return refs
    for block in text.split("\n\n"):
        rows = {}
        for line in block.splitlines()[2:]:
            f = line.split()
            rows[f[0]] = None if f[3] == "-" else float(f[3])
        refs.append(rows)
    return refs


def node(before, after, out, js):
    t0, a = load_snap(before)
    t1, b = load_snap(after)
    refs = node_refreshes(out, js)
    ok = len(refs) == 2
    print("refreshes: %d" % len(refs))
    for pid in a:
        want = (b[pid] - a[pid]) / HZ / (t1 - t0) * 100
        got = [r.get(pid) for r in refs]
        if None in got:
            print("pid %s: missing or no CPU in a refresh: %s" % (pid, got))
            ok = False
            continue
        mean = sum(got) / len(got)
        good = abs(mean - want) <= 10
        print("pid %s: top %.1f (%s), /proc %.1f: %s"
              % (pid, mean, got, want, "ok" if good else "OFF"))
        ok = ok and good
    return ok


def threads(out, js):
    with open(out) as f:
        text = f.read()
    if js:
        o = json.loads(text.splitlines()[-1])
        names = [t["name"] for t in o["threads"]]
        stack = o["threads"][0].get("stack", [])
    else:
        last = text.split("\ntop - ")[-1]
        rows = last.split("    TID ")[1].split("\n\n")[0].splitlines()[1:]
        names = [r[49:] for r in rows]
        stack = last.split("\n\n")[1].splitlines() if "\n\n" in last else []
    burn = [n for n in names if n.startswith("burn-")]
    print("threads by CPU: %s; stack: %s" % (names[:5], stack[:3]))
    return (names[0] == "burn-90" and burn == ["burn-90", "burn-45", "burn-20"]
            and any("Burn.spin90" in s for s in stack))


def main():
    cmd = sys.argv[1]
    if cmd == "node":
        return 0 if node(*sys.argv[2:5], js=len(sys.argv) > 5) else 1
    if cmd == "threads":
        return 0 if threads(sys.argv[2], len(sys.argv) > 3) else 1
    return 2


sys.exit(main())
