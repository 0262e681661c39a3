#!/usr/bin/env python3
"""serve_pull.py - checks for test/serve_pull.test

  scrapes HOST PORT N DONE   N concurrent GET /metrics while a pull runs;
                             DONE is a file the pull's reader creates when
                             it has its answer. Prints how many answered
                             200 and how many of those before DONE existed.
  sd FILE HOST PID=CLASS...  the /sd answer in FILE: valid JSON, one group
                             per PID (no other), targets [HOST], labels pid,
                             main_class (CLASS), __param_pid; extra groups
                             (other JVMs) are ignored. Prints "ok".
  targets FILE PID=CLASS...  prometheus' /api/v1/targets answer in FILE:
                             one active target per PID with labels pid and
                             main_class, its scrape URL with pid=PID.
"""
import json
import os
import sys
import threading
import urllib.request


def scrapes(host, port, n, done):
    got = []

    def one():
        try:
            with urllib.request.urlopen('http://%s:%s/metrics' % (host, port),
                                        timeout=120) as r:
                r.read()
                got.append((r.status, os.path.exists(done)))
        except Exception as e:  # counted as not answered
            got.append((str(e), True))
    ts = [threading.Thread(target=one) for _ in range(int(n))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    ok = [g for g in got if g[0] == 200]
    print(len(ok), len([g for g in ok if not g[1]]))


def want(args):
    """PID=CLASS arguments, a literal \\n in CLASS standing for a newline"""
    return {p: c.replace('\\n', '\n')
            for p, c in (a.split('=', 1) for a in args)}


def sd(path, host, *args):
    groups = json.load(open(path, encoding='utf-8'))
    w = want(args)
    seen = {}
    for g in groups:
        lab = g['labels']
        if set(g) != {'targets', 'labels'} or lab['pid'] != lab['__param_pid']:
            raise SystemExit('bad group %r' % g)
        if lab['pid'] in seen:
            raise SystemExit('pid twice: %s' % lab['pid'])
        seen[lab['pid']] = g
    for pid, cls in w.items():
        g = seen.get(pid)
        if not g or g['targets'] != [host] or \
                g['labels']['main_class'] != cls:
            raise SystemExit('pid %s: %r' % (pid, g))
    print('ok')


def targets(path, *args):
    t = json.load(open(path, encoding='utf-8'))['data']['activeTargets']
    w = want(args)
    for pid, cls in w.items():
        m = [x for x in t if x['labels'].get('pid') == pid]
        if len(m) != 1 or m[0]['labels'].get('main_class') != cls or \
                'pid=%s' % pid not in m[0]['scrapeUrl']:
            raise SystemExit('pid %s: %r' % (pid, m))
    print('ok')


if __name__ == '__main__':
    {'scrapes': scrapes, 'sd': sd, 'targets': targets}[sys.argv[1]](
        *sys.argv[2:])
