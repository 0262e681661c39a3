#!/usr/bin/env python3
"""top_check.py - oracles for test/top.test, from /proc itself.

  node BEFORE AFTER OUT [json]   (BEFORE, AFTER: /proc/uptime, then each
                                 JVM's /proc/PID/stat line, read around
                                 the run)   every pid of BEFORE in each refresh of OUT,
                                 its mean CPU % within 10 points of /proc's
  threads OUT [json]             the last refresh: burn-90 first, then
                                 burn-45, then burn-20; burn-90's stack
                                 holds Burn.spin90
  alloc JT JCMD PID              top PID --alloc --json -d 2 between two
                                 real `jcmd PID Thread.print -e`: each
                                 alloc-* worker's bytes/s within 15 % of
                                 the allocated= delta over the jcmd window
Columns are found by their titles: a batch view drops some to fit 80.
"""
import json
import os
import re
import subprocess
import sys
import time

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
        lines = block.splitlines()
        col = lines[1].split().index("%CPU")
        for line in lines[2:]:
            f = line.split()
            rows[f[0]] = None if f[col] == "-" else float(f[col])
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
        table = last.split("\n    TID ")[1].split("\n\n")[0]
        at = len("    TID ") + table.index(" NAME") + 1
        rows = table.splitlines()[1:]
        names = [r[at:] for r in rows]
        stack = last.split("\n\n")[1].splitlines() if "\n\n" in last else []
    burn = [n for n in names if n.startswith("burn-")]
    print("threads by CPU: %s; stack: %s" % (names[:5], stack[:3]))
    return (names[0] == "burn-90" and burn == ["burn-90", "burn-45", "burn-20"]
            and any("Burn.spin90" in s for s in stack))


# "alloc-3k..." #21 ... allocated=2888M ... nid=0x1aae
HEAD = re.compile(r'^"(alloc-[0-9]k)[^\n]*" #.* allocated=([0-9]+)([BKMG]) ')


def jcmd_alloc(jcmd, pid):
    """(monotonic time the reply came, {worker: allocated bytes})."""
    out = subprocess.run([jcmd, pid, "Thread.print", "-e"], check=True,
                         capture_output=True, text=True,
                         errors="replace").stdout
    at = time.monotonic()
    got = {}
    for line in out.splitlines():
        m = HEAD.match(line)
        if m:
            got[m.group(1)] = int(m.group(2)) * 1024 ** "BKMG".index(m.group(3))
    return at, got


def alloc(jt, jcmd, pid):
    t0, a = jcmd_alloc(jcmd, pid)
    out = subprocess.run([jt, "top", pid, "--alloc", "--json", "-b", "-n",
                          "1", "-d", "2"], check=True, capture_output=True,
                         text=True).stdout
    t1, b = jcmd_alloc(jcmd, pid)
    o = json.loads(out.splitlines()[-1])
    ok = sorted(a) == ["alloc-1k", "alloc-3k"] and o["dumps"] == 2
    print("dumps %d, jcmd window %.2f s" % (o["dumps"], t1 - t0))
    for w in sorted(a):
        want = (b[w] - a[w]) / (t1 - t0)
        got = [t["alloc_bytes_per_s"] for t in o["threads"]
               if t["name"].startswith(w)]
        good = len(got) == 1 and got[0] is not None and \
            abs(got[0] - want) <= 0.15 * want
        print("%s: top %s B/s, jcmd %.0f B/s: %s"
              % (w, got, want, "ok" if good else "OFF"))
        ok = ok and good
    return ok


def main():
    cmd = sys.argv[1]
    if cmd == "node":
        return 0 if node(*sys.argv[2:5], js=len(sys.argv) > 5) else 1
    if cmd == "alloc":
        return 0 if alloc(*sys.argv[2:5]) else 1
    if cmd == "threads":
        return 0 if threads(sys.argv[2], len(sys.argv) > 3) else 1
    return 2


sys.exit(main())
