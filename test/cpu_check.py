#!/usr/bin/env python3
"""cpu_check.py - judge a CPU profile against the kernel's accounting.

  cpu_check.py watch PID FILE
      every 50 ms until PID ends or FILE.stop exists: the time, the
      process's utime+stime and each thread's (tid, ticks, comm) from
      /proc, appended to FILE; the oracle around a profile
  cpu_check.py judge FILE RAW FOLDED [THREAD...]
      RAW: go tool pprof -raw's text of the profile (its Time and
      Duration); FOLDED: its "thread;frames value" lines in ns
      (pprof_fold.py, thread labels on). The process's CPU over the
      profile is its /proc CPU between the snapshots nearest to START and
      START + DURATION. Checks: the profile's total within 5 % of that
      (30 ms slack);
      each THREAD's share of the total within 10 % of its /proc share
      (20 ms slack: 10 ms ticks); the
      GC threads' CPU (frames "[GC] ...") within 10 % of theirs (20 ms
      slack: 10 ms ticks). Prints what it compared; exit 0 when all hold.
  cpu_check.py wall CLOCK RAW FOLDED
      CLOCK: CpuShare's own "T <epoch s> <burn ns> <nap ns>" lines for
      wall-25. The profile's share of wall-25's time under [sleeping]
      must be within 10 % of the time it spent in nap75() over the same
      window, by its own clock, and a nap at each edge of the window
      (waited for until CLOCK covers the window: its lines are written
      every 50 ms, later on a busy machine).
  cpu_check.py states RAW FOLDED THREAD=STATE=FRAME...
      Each THREAD waited through the whole profile (WallStates): its
      stacks sum to the window's length (the pprof's Duration, 1 % + 10 ms), and
      those under [STATE] with FRAME in them to 90 % of it at least.
"""
import datetime
import os
import re
import sys
import time

GC = re.compile(r"^(GC Thread#|G1 |Z(Director|Driver|Worker|Stat)|Shenandoah)")


def ticks(path):
    with open(path) as f:
        s = f.read()
    rest = s[s.rindex(")") + 2:].split()
    return int(rest[11]) + int(rest[12])


def snap(pid):
    out = ["T %.6f %d" % (time.time(), ticks("/proc/%s/stat" % pid))]
    for tid in os.listdir("/proc/%s/task" % pid):
        try:
            with open("/proc/%s/task/%s/comm" % (pid, tid)) as f:
                comm = f.read().rstrip("\n")
            t = ticks("/proc/%s/task/%s/stat" % (pid, tid))
        except OSError:
            continue
        out.append("%s %d %s" % (tid, t, comm))
    return "\n".join(out) + "\n"


def watch(pid, path):
    with open(path, "w") as f:
        while not os.path.exists(path + ".stop"):
            try:
                f.write(snap(pid))
            except OSError:
                break
            f.flush()
            time.sleep(0.05)


def load(path):
    snaps = []
    with open(path) as f:
        for line in f:
            if line.startswith("T "):
                _, when, total = line.split()
                snaps.append((float(when), int(total), {}))
            elif snaps:
                tid, t, comm = line.rstrip("\n").split(" ", 2)
                snaps[-1][2][tid] = (int(t), comm)
    return snaps


def nearest(snaps, t):
    return min(snaps, key=lambda s: abs(s[0] - t))


def when(raw):
    """The profile's start (epoch seconds) and length from pprof -raw."""
    start = duration = None
    with open(raw) as f:
        for line in f:
            m = re.match(r"^Time: (\S+ \S+?)(?:\.(\d+))? ([-+]\d{4}) ", line)
            if m:
                t = datetime.datetime.strptime(m.group(1) + " " + m.group(3),
                                               "%Y-%m-%d %H:%M:%S %z")
                start = t.timestamp() + float("0." + (m.group(2) or "0"))
            m = re.match(r"^Duration: ([0-9.]+)", line)
            if m:
                duration = float(m.group(1))
    return start, duration


def judge(path, raw, folded, names):
    hz = os.sysconf("SC_CLK_TCK")
    start, duration = when(raw)
    snaps = load(path)
    t0, p0, th0 = nearest(snaps, start)
    t1, p1, th1 = nearest(snaps, start + duration)
    proc = (p1 - p0) / hz
    per = {}
    for tid, (t, comm) in th1.items():
        d = (t - th0.get(tid, (0, comm))[0]) / hz
        per[comm] = per.get(comm, 0) + d
    prof, prof_thread, prof_gc = 0, {}, 0
    with open(folded) as f:
        for line in f:
            key, v = line.rstrip("\n").rsplit(" ", 1)
            v = int(v) / 1e9
            prof += v
            thread = key.split(";", 1)[0]
            prof_thread[thread] = prof_thread.get(thread, 0) + v
            if ";[GC] " in key or key.startswith("[GC] "):
                prof_gc += v
    ok = True
    r = prof / proc if proc else 0
    # 5 %, and 30 ms: 10 ms ticks at the window's and snapshots' edges
    good = proc > 0 and abs(prof - proc) <= 0.05 * proc + 0.03
    ok &= good
    print("total: profile %.3f s, /proc %.3f s (snapshots %.3f s apart, the "
          "profile %.3f s): %.3f %s" % (prof, proc, t1 - t0, duration, r,
                                       "ok" if good else "FAIL"))
    for n in names:
        ps = prof_thread.get(n, 0) / prof if prof else 0
        ks = per.get(n, 0) / proc if proc else 0
        # 10 %, and a tick at each end of the window (10 ms)
        good = ks > 0 and abs(ps - ks) * proc <= 0.10 * ks * proc + 0.02
        ok &= good
        print("%s: profile share %.3f, /proc share %.3f %s" %
              (n, ps, ks, "ok" if good else "FAIL"))
    gc = sum(v for c, v in per.items() if GC.match(c))
    good = gc > 0 and abs(prof_gc - gc) <= 0.10 * gc + 0.02
    ok &= good
    print("GC threads: profile %.3f s, /proc %.3f s %s" %
          (prof_gc, gc, "ok" if good else "FAIL"))
    return 0 if ok else 1


def wall(clock, raw, folded):
    """wall-25's share asleep in the profile against its own naps (each
    one's epoch interval, as CpuShare logs them) within the profile's
    window: exact whatever the load, the window's edges aside (the nap
    going on at each edge: JFR's event, the thread dump and the kernel's
    clock ticks each place its part a little differently), so within 10 %
    and the longest nap twice. CpuShare writes its naps every 50 ms (on a
    busy machine, later): the log is read once it has gone past the
    window's end twice (60 s at most)."""
    start, duration = when(raw)
    lo, hi = start * 1e9, (start + duration) * 1e9
    for _ in range(600):
        with open(clock) as f:
            past = sum(1 for line in f if line.startswith("T ") and
                       float(line.split()[1]) * 1e9 > hi)
        if past >= 2:
            break
        time.sleep(0.1)
    nap, longest = 0, 0
    with open(clock) as f:
        for line in f:
            p = line.split()
            if len(p) == 3 and p[0] == "N":
                a, b = max(int(p[1]), lo), min(int(p[2]), hi)
                if b > a:
                    nap += b - a
                    longest = max(longest, int(p[2]) - int(p[1]))
    truth = nap / (hi - lo) if hi > lo else 0
    tot, slept = 0, 0
    with open(folded) as f:
        for line in f:
            key, v = line.rstrip("\n").rsplit(" ", 1)
            if not key.startswith("wall-25;"):
                continue
            tot += int(v)
            if key.startswith("wall-25;[sleeping]"):
                slept += int(v)
    share = slept / tot if tot else 0
    edge = 2 * longest / (hi - lo) if hi > lo else 0
    good = truth > 0 and abs(share - truth) <= 0.10 * truth + edge
    print("wall-25 asleep: profile %.3f of %.3f s, its own naps %.3f of "
          "the window's %.3f s (10 %% and two naps of %.3f s: %.3f) %s" %
          (share, tot / 1e9, truth, duration, longest / 1e9,
           0.10 * truth + edge, "ok" if good else "FAIL"))
    return 0 if good else 1


def states(raw, folded, want):
    """Threads that waited all along: each listed for the whole window,
    in the state it waited in."""
    _, duration = when(raw)
    win = duration * 1e9 if duration else 0
    tot, held = {}, {}
    rules = [w.split("=", 2) for w in want]
    with open(folded) as f:
        for line in f:
            key, v = line.rstrip("\n").rsplit(" ", 1)
            fr = key.split(";")
            for name, state, frame in rules:
                if fr[0] != name:
                    continue
                tot[name] = tot.get(name, 0) + int(v)
                if len(fr) > 1 and fr[1] == "[%s]" % state and any(
                        x.split(":")[0] == frame for x in fr[2:]):
                    held[name] = held.get(name, 0) + int(v)
    ok = win > 0
    for name, state, frame in rules:
        t, h = tot.get(name, 0), held.get(name, 0)
        # pprof -raw prints Duration with 3 digits: 10 ms more slack
        good = win > 0 and abs(t - win) <= 0.01 * win + 1e7 and h >= 0.9 * win
        ok &= good
        print("%s: %.3f s listed, %.3f s [%s] at %s, window %.3f s %s" %
              (name, t / 1e9, h / 1e9, state, frame, win / 1e9,
               "ok" if good else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1] == "states":
        sys.exit(states(sys.argv[2], sys.argv[3], sys.argv[4:]))
    if sys.argv[1] == "wall":
        sys.exit(wall(sys.argv[2], sys.argv[3], sys.argv[4]))
    if sys.argv[1] == "watch":
        watch(sys.argv[2], sys.argv[3])
        sys.exit(0)
    sys.exit(judge(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]))
