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
  stuck HOST PORT S BUDGET PID...
                             pulls of the (frozen) JVMs PID at once, seconds=S,
                             while /metrics is scraped every 0.5 s; before,
                             6 scrapes set the usual time. Prints per pull
                             "504 in time" (within S + BUDGET + 5 s), and
                             "scrapes ok" when there were 10 or more, each
                             within 1 s of the slowest usual one.
  value                      the one value of a prometheus query on stdin.
  series FILE PID...         prometheus' jvm_threads_current in FILE: one
                             series per PID, no exported_* labels.
  targets FILE PID=CLASS...  prometheus' /api/v1/targets answer in FILE:
                             one active target per PID with labels pid and
                             main_class, its scrape URL with pid=PID.
"""
import json
import os
import sys
import threading
import time
import urllib.error
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


def get(url):
    """(status, seconds) of one GET; status 0 when none came"""
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=180) as r:
            r.read()
            st = r.status
    except urllib.error.HTTPError as e:
        e.read()
        st = e.code
    except Exception:  # no answer at all
        st = 0
    return st, time.monotonic() - t0


def stuck(host, port, secs, budget, *pids):
    base = 'http://%s:%s' % (host, port)
    usual = max(get(base + '/metrics')[1] for _ in range(6))
    got = {}

    def pull(pid):
        got[pid] = get('%s/debug/pprof/profile?pid=%s&seconds=%s' %
                       (base, pid, secs))
    ts = [threading.Thread(target=pull, args=(p,)) for p in pids]
    for t in ts:
        t.start()
    during = []
    while any(t.is_alive() for t in ts):
        during.append(get(base + '/metrics'))
        time.sleep(0.5)
    for t in ts:
        t.join()
    limit = int(secs) + int(budget) + 5
    for p in pids:
        st, s = got[p]
        print('504 in time' if st == 504 and s <= limit else
              'pid %s: %s after %.1f s (limit %d s)' % (p, st, s, limit))
    bad = [d for d in during if d[0] != 200 or d[1] > usual + 1]
    if len(during) >= 10 and not bad:
        print('scrapes ok')
    else:
        print('%d scrapes, usual %.3f s, slow or failed: %s' %
              (len(during), usual, bad[:5]))


def series(path, *pids):
    """prometheus' /api/v1/query answer for jvm_threads_current: one series
    per PID, its pid label that PID, its instance "<serve>/PID" (/sd's: one
    instance per JVM), no exported_* label on any series, and as many
    series as distinct pids and instances (no JVM stored twice)"""
    r = json.load(open(path, encoding='utf-8'))['data']['result']
    labels = [x['metric'] for x in r]
    bad = [m for m in labels if any(k.startswith('exported_') for k in m)]
    if bad:
        raise SystemExit('exported labels: %r' % bad[:3])
    if len(labels) != len({m.get('pid') for m in labels}) or \
            len(labels) != len({m.get('instance') for m in labels}):
        raise SystemExit('a pid or instance twice: %r' % labels)
    for p in pids:
        m = [x for x in labels if x.get('pid') == p]
        if len(m) != 1 or not m[0].get('instance', '').endswith('/' + p):
            raise SystemExit('pid %s: %r' % (p, labels))
    print('ok')


def value():
    """the value of a one-sample prometheus query answer on stdin, or -"""
    r = json.load(sys.stdin)['data']['result']
    print(r[0]['value'][1] if r else '-')


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
                g['labels']['main_class'] != cls or \
                g['labels'].get('instance') != '%s/%s' % (host, pid):
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
    {'scrapes': scrapes, 'sd': sd, 'series': series, 'stuck': stuck,
     'targets': targets, 'value': value}[sys.argv[1]](
        *sys.argv[2:])
