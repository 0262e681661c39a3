"""mxbean_check.py - test/mxbean.test: one JVM's /metrics against what its
own MXBeans said (test/java/MXReport.java's report), python3 stdlib.

  mxbean_check.py PROM REPORT PID JDK -> exit 0 when they agree, else 1
                                         and each difference on stdout
  mxbean_check.py uptime JT PID REPORT -> JT ps --json's uptime_s of PID
      is the MXBean's uptime in REPORT plus the time since REPORT was
      written (its mtime), within 0.5 s (RuntimeMXBean counts from the
      JVM's os init, ps from sun.rt.createVmBeginTime: both at its start)

Every family that has an MXBean twin is compared, each value exactly
(the JVM holds still between the report and the scrape: the caller asks
again while they differ): each pool's used, committed and max (-1 where
the MXBean has none); the heap's and non-heap's (the non-heap without the
code cache: PerfData has no counter of it; its max -1 where the MXBean's
is, else absent); each collector's count, its time within the MXBean's
millisecond rounding; threads live, daemon, peak, started; classes loaded
now, since start, unloaded; the start time (RuntimeMXBean.getStartTime).
A collector's time is PerfData's (sun.gc.collector.N.time), which HotSpot
times around the MXBean's own clock (TraceCollectorStats made before
TraceMemoryManagerStats and gone after it: the pool usages recorded
before and after each collection, and any wait of the VM thread between
the two, count in PerfData's only). So the series is checked against
both: it is exactly the counter the JVM wrote (read here from the file
the JVM maps) of a collector whose invocations are the MXBean's count,
never below the MXBean's (truncated) milliseconds, and the nearest such
counter above them: a collector's time under another's name, seconds
taken for milliseconds, or ticks taken for nanoseconds all fail, and a
busy machine, which only widens the span between the two clocks, does
not.
Young generations whose used HotSpot writes to PerfData only at a GC
(specs/prom_map.def: ZGC's; Serial's and Parallel's eden from JDK 25
on) may trail the MXBean by what was allocated since the GC the
reporter ran (a TLAB, a ZGC page: at most 2 MiB), never lead it.
Collectors PerfData does not count (specs/prom_map.def: ZGC's and
Shenandoah's Cycles, Shenandoah's Pauses, JDK 11's ZGC) must be absent.
"""
import json, os, re, struct, subprocess, sys, time

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')
NOT_IN_PERFDATA = {'ZGC Cycles', 'ZGC Minor Cycles', 'ZGC Major Cycles',
                   'Shenandoah Cycles', 'Shenandoah Pauses', 'ZGC'}


def ours(prom, pid):
    out = {}
    for line in open(prom):
        m = LINE.match(line.rstrip('\n'))
        if not m:
            continue
        lab = dict(LABEL.findall(m.group(2)))
        if lab.get('pid') != pid:
            continue
        key = (m.group(1), lab.get('pool') or lab.get('area') or
               lab.get('gc') or '')
        out[key] = float(m.group(3))
    return out


def report(path):
    r = {'pool': {}, 'area': {}, 'gc': {}}
    for line in open(path):
        f = line.rstrip('\n').split('\t')
        if f[0] == 'pool':
            r['pool'][f[1]] = [int(x) for x in f[3:6]]
        elif f[0] == 'area':
            r['area'][f[1]] = [int(x) for x in f[2:5]]
        elif f[0] == 'gc':
            r['gc'][f[1]] = (int(f[2]), int(f[3]))
        elif f[0] in ('threads', 'classes', 'runtime'):
            r[f[0]] = [int(x) for x in f[1:]]
    if 'runtime' not in r:
        raise SystemExit('%s: no whole report' % path)
    return r


LAG = 2 << 20


def perfdata(pid):
    """The JVM's PerfData counters, name -> value (longs and strings), read
    through the shared mapping of its hsperfdata file the JVM holds."""
    data = None
    for line in open('/proc/%s/maps' % pid):
        f = line.split(None, 5)
        if len(f) == 6 and f[1][3] == 's' and '/hsperfdata_' in f[5]:
            with open('/proc/%s/map_files/%s' % (pid, f[0]), 'rb') as h:
                data = h.read()
            break
    if not data or data[:4] != b'\xca\xfe\xc0\xc0':
        return {}
    e = '<' if data[4] == 1 else '>'
    off, n = struct.unpack_from(e + 'ii', data, 24)
    out = {}
    for _ in range(n):
        size, name, vlen, kind, _f, _u, _v, at = \
            struct.unpack_from(e + 'iiibbbbi', data, off)
        key = data[off + name:data.index(b'\0', off + name)].decode('latin-1')
        if kind == ord('J'):
            out[key] = struct.unpack_from(e + 'q', data, off + at)[0]
        elif kind == ord('B'):
            out[key] = data[off + at:off + at + vlen].split(b'\0')[0] \
                .decode('latin-1')
        off += size
    return out


def main(prom, path, pid, jdk):
    o, r, bad = ours(prom, pid), report(path), []
    if not o:
        return ['pid %s: no series' % pid]
    lagging = {'ZGC Young Generation', 'ZHeap'}
    if int(jdk) >= 25:
        lagging |= {'Eden Space', 'PS Eden Space'}
    lag = [0]

    def want(name, key, v):
        got = o.get((name, key))
        if (name == 'jvm_memory_pool_used_bytes' and key in lagging and
                got is not None and 0 <= v - got <= LAG):
            lag[0] += v - got
            return
        if name == 'jvm_memory_used_bytes' and key == 'heap' and \
                got is not None:
            v -= lag[0]
        if got is None:
            if v is not None:
                bad.append('%s{%s}: absent, MXBean %s' % (name, key, v))
        elif v is None:
            bad.append('%s{%s}: %d, the MXBean has none' % (name, key, got))
        elif got != v:
            bad.append('%s{%s}: %d, MXBean %d' % (name, key, got, v))

    pools = {k: v for k, v in r['pool'].items() if not k.startswith('Code')}
    code = [v for k, v in r['pool'].items() if k.startswith('Code')]
    mine = {k[1] for k in o if k[0] == 'jvm_memory_pool_used_bytes'}
    if mine != set(pools):
        bad.append('pools: ours %s, MXBeans %s' % (sorted(mine),
                                                    sorted(pools)))
    for p, v in pools.items():
        for f, x in zip(('used', 'committed', 'max'), v):
            want('jvm_memory_pool_%s_bytes' % f, p, x)
    h = r['area']['heap']
    nh = [r['area']['nonheap'][i] - sum(c[i] for c in code) for i in (0, 1)]
    for f, x, y in zip(('used', 'committed', 'max'), h,
                       nh + [-1 if r['area']['nonheap'][2] == -1 else None]):
        want('jvm_memory_%s_bytes' % f, 'heap', x)
        want('jvm_memory_%s_bytes' % f, 'nonheap', y)
    gcs = {k for k in r['gc'] if k not in NOT_IN_PERFDATA}
    mine = {k[1] for k in o if k[0] == 'jvm_gc_collection_seconds_count'}
    if mine != gcs:
        bad.append('collectors: ours %s, MXBeans %s' % (sorted(mine),
                                                         sorted(gcs)))
    perf = perfdata(pid)
    freq = perf.get('sun.os.hrt.frequency')
    collectors = []
    for k, v in perf.items():
        m = re.match(r'^sun\.gc\.collector\.(\d+)\.invocations$', k)
        t = perf.get('sun.gc.collector.%s.time' % (m and m.group(1)))
        if m and freq and t is not None:
            collectors.append((v, t / freq))
    for g in gcs & mine:
        want('jvm_gc_collection_seconds_count', g, r['gc'][g][0])
        t = o.get(('jvm_gc_collection_seconds_sum', g))
        n, ms = r['gc'][g]
        # the counters of as many collections, at or above the MXBean's
        # milliseconds (it truncates), the nearest first
        near = sorted(x for c, x in collectors if c == n and x * 1000 > ms - 1e-6)
        if t is None or not near or abs(t - near[0]) > 1e-9 * max(1, t):
            bad.append('%s time: %s s, MXBean %d ms (%d collections), '
                       'PerfData\'s collectors of %d collections at or '
                       'above it: %s s' % (g, t, ms, n, n, near))
    for f, x in zip(('current', 'daemon', 'peak', 'started_total'),
                    r['threads']):
        want('jvm_threads_' + f, '', x)
    for f, x in zip(('currently_loaded', 'loaded_total', 'unloaded_total'),
                    r['classes']):
        want('jvm_classes_' + f, '', x)
    st = o.get(('process_start_time_seconds', ''))
    if st is None or round(st * 1000) != r['runtime'][1]:
        bad.append('start time %s s, MXBean %d ms' % (st, r['runtime'][1]))
    return bad


def uptime(jt, pid, path):
    w, up = os.stat(path).st_mtime, report(path)['runtime'][0] / 1000
    t0 = time.time()
    out = subprocess.run([jt, 'ps', '--json'], capture_output=True).stdout
    t1 = time.time()
    v = [x['uptime_s'] for x in json.loads(out) if x['pid'] == int(pid)]
    lo, hi = up + t0 - w - 0.5, up + t1 - w + 0.5
    if len(v) != 1 or v[0] is None or not lo <= v[0] <= hi:
        return ['pid %s: ps uptime_s %s, the MXBean\'s %.3f to %.3f' %
                (pid, v, lo + 0.5, hi - 0.5)]
    return []


if __name__ == '__main__':
    if sys.argv[1] == 'uptime':
        b = uptime(*sys.argv[2:5])
    else:
        b = main(*sys.argv[1:5])
    for x in b:
        print(x)
    sys.exit(1 if b else 0)
