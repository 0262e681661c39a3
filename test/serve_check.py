"""serve_check.py - helpers for test/serve.test (python3, standard library).

  serve_check.py parse FILE                -> "family{labels} value" sanity
  serve_check.py compare PROM MX PID       -> MXBean pools/gcs equal ours
  serve_check.py areas PROM MX PID         -> --names simpleclient: bytes
      used of each pool, heap and non-heap equal test/java/MXArea.java's
  serve_check.py load HOST PORT PID        -> hostile load; VmHWM printed
  serve_check.py perf FILE KIND [ARG]      -> write a PerfData 2.0 file:
      hostile  long counters with names that test the exposition
      many N   N long counters x.0000000, x.0000001, ... (mkperf's 1 MiB
               and 255-byte names are too small for these)
      sparse N a valid 32-byte prologue, then zeros to N bytes (a hole)
  serve_check.py order HOST PORT           -> GET /metrics, then GET / at
      once: which answer was whole first ("index first", "metrics first")
  serve_check.py timeout HOST PORT         -> a head that never ends: the
      408 reply, read to EOF, printed with CR LF as \r\n
"""
import re, socket, struct, sys, threading, time

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')


def samples(text):
    out = []
    for line in text.splitlines():
        if line.startswith('#') or not line:
            continue
        m = LINE.match(line)
        if not m:
            raise SystemExit('bad line: ' + line)
        out.append((m.group(1), dict(LABEL.findall(m.group(2))),
                    float(m.group(3))))
    return out


def compare(prom, mx, pid):
    s = [x for x in samples(open(prom).read()) if x[1].get('pid') == pid]
    if not s:
        raise SystemExit('pid %r: no series' % pid)
    pools, gcs = {}, {}
    for line in open(mx):
        f = line.rstrip('\n').split('\t')
        if f[0] == 'pool' and not f[1].startswith('Code'):  # no PerfData
            pools[f[1]] = (int(f[3]), int(f[4]), int(f[5]))
        elif f[0] == 'gc':
            gcs[f[1]] = (int(f[2]), int(f[3]))
    if not pools or not gcs:
        raise SystemExit('%s: no MXBean pools or collectors' % mx)
    ours_p = {x[1]['pool'] for x in s if x[0] == 'jvm_memory_pool_used_bytes'}
    ours_g = {x[1]['gc'] for x in s
              if x[0] == 'jvm_gc_collection_seconds_count'}
    bad = []
    if ours_p != set(pools):
        bad.append('pools: ours %s, MXBeans %s' % (sorted(ours_p),
                                                    sorted(pools)))
    # every collector we name is one the JVM names; all of them where
    # specs/prom_map.def has rows for this collector (not yet: ZGC and
    # Shenandoah, ZGC's cycles, JDK 25's G1 Concurrent GC)
    known = {'Copy', 'MarkSweepCompact', 'PS Scavenge', 'PS MarkSweep',
             'G1 Young Generation', 'G1 Old Generation', 'ZGC Pauses',
             'ZGC Minor Pauses', 'ZGC Major Pauses'}
    if not ours_g <= set(gcs) or (set(gcs) & known) - ours_g:
        bad.append('gcs: ours %s, MXBeans %s' % (sorted(ours_g), sorted(gcs)))
    for x in s:
        # counts only grow: ours (read later) at least the MXBean's
        if x[0] == 'jvm_gc_collection_seconds_count' and x[1]['gc'] in gcs:
            if x[2] < gcs[x[1]['gc']][0]:
                bad.append('%s count %d < MXBean %d' % (x[1]['gc'], x[2],
                                                        gcs[x[1]['gc']][0]))
        # a pool's max is fixed at start where the MXBean gives one
        if x[0] == 'jvm_memory_pool_max_bytes' and x[1]['pool'] in pools:
            want = pools[x[1]['pool']][2]
            # exact where PerfData's maxCapacity is the MXBean's max (young
            # spaces and G1's old gen differ by design: not compared)
            fixed = x[1]['pool'] in ('Compressed Class Space', 'Tenured Gen',
                                     'PS Old Gen', 'ZHeap', 'Shenandoah')
            if fixed and want >= 0 and x[2] != want:
                bad.append('%s max %d, MXBean %d' % (x[1]['pool'], x[2],
                                                     want))
    if bad:
        raise SystemExit('pid %s: ' % pid + '; '.join(bad))


def areas(prom, mx, pid):
    """simpleclient names: jvm_memory_pool_bytes_used{pool} and
    jvm_memory_bytes_used{area} equal what the JVM's MXBeans said, byte
    for byte (MXArea prints them when they hold still)."""
    s = [x for x in samples(open(prom).read()) if x[1].get('pid') == pid]
    want = {}
    for line in open(mx):
        f = line.rstrip('\n').split('\t')
        if f[0] in ('pool', 'area'):
            want[(f[0], f[1])] = int(f[2])
    if ('area', 'heap') not in want:
        raise SystemExit('%s: no MXBean numbers' % mx)
    ours = {}
    for name, labels, v in s:
        if name == 'jvm_memory_pool_bytes_used':
            ours[('pool', labels['pool'])] = int(v)
        elif name == 'jvm_memory_bytes_used':
            ours[('area', labels['area'])] = int(v)
    if ours != want:
        raise SystemExit('pid %s: ours %s, MXBeans %s' % (pid, sorted(
            ours.items()), sorted(want.items())))


def read_all(c):
    got = b''
    while True:
        b = c.recv(65536)
        if not b:
            return got
        got += b


def request(host, port, data, timeout=30):
    c = socket.create_connection((host, port), timeout=timeout)
    c.sendall(data)
    got = read_all(c)
    c.close()
    return got


def load(host, port, pid):
    port = int(port)
    errors = []
    idle = []
    for _ in range(300):  # held open, never sending
        idle.append(socket.create_connection((host, port), timeout=30))
    slow = socket.create_connection((host, port), timeout=30)
    slow.sendall(b'GET /metrics HTTP/1.1\r\n')

    def scraper():
        for _ in range(10):
            try:
                r = request(host, port, b'GET /metrics HTTP/1.1\r\n'
                            b'Host: x\r\nConnection: close\r\n\r\n')
                if not r.startswith(b'HTTP/1.1 200 ') or b'jvm_' not in r:
                    errors.append('scrape: ' + repr(r[:60]))
            except Exception as e:  # noqa: BLE001 - reported, fails the run
                errors.append('scrape: %r' % e)

    def hostile():
        cases = [
            (b'GET /metrics HTTP/1.1\r\nX: ' + b'a' * 20000 + b'\r\n\r\n',
             b'HTTP/1.1 431'),
            (b'GET /metrics HTTP/1.1\r\n' + b'X: y\r\n' * 100 + b'\r\n',
             b'HTTP/1.1 431'),
            (b'\x00\x01\x02garbage\r\n\r\n', b'HTTP/1.1 400'),
            (b'DELETE /metrics HTTP/1.1\r\n\r\n', b'HTTP/1.1 405'),
            (b'GET /nope HTTP/1.1\r\n\r\n', b'HTTP/1.1 404'),
            (b'GET /metrics HTTP/9.9\r\n\r\n', b'HTTP/1.1 505'),
            (b'POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc',
             b'HTTP/1.1 501'),
        ]
        for _ in range(5):
            for data, want in cases:
                try:
                    r = request(host, port, data)
                    if not r.startswith(want):
                        errors.append('%r -> %r' % (data[:30], r[:40]))
                except Exception as e:  # noqa: BLE001
                    errors.append('hostile: %r' % e)

    ts = [threading.Thread(target=scraper) for _ in range(20)]
    ts += [threading.Thread(target=hostile) for _ in range(3)]
    for t in ts:
        t.start()
    for _ in range(6):  # slowloris: one byte a second
        time.sleep(1)
        try:
            slow.send(b'X')
        except OSError:
            break
    for t in ts:
        t.join()
    # keep-alive: two requests on one connection
    c = socket.create_connection((host, port), timeout=30)
    c.sendall(b'GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\nConnection: close'
              b'\r\n\r\n')
    got = read_all(c)
    c.close()
    if got.count(b'HTTP/1.1 200 OK') != 2:
        errors.append('keep-alive: %r' % got[:80])
    for s in idle:
        s.close()
    slow.close()
    hwm = [l for l in open('/proc/%s/status' % pid) if l.startswith('VmHWM')]
    print(hwm[0].split()[1])
    if errors:
        raise SystemExit('\n'.join(errors[:10]))


def perf(path, kind, arg=None):
    """PerfData 2.0, little-endian (docs/jvmstat.md section 1)."""
    if kind == 'hostile':
        names = [b'evil\njvm_threads_current{pid="1"} 99999\nx',
                 b'back\\slash', b'q"uote', b'evil.c', b'evil_c',
                 b'caf\xc3\xa9', b'bad\xff', b'a' * 200, b'sp ace',
                 b'x.1.2', b'java.threads.live']
        entries = [(n, i + 1) for i, n in enumerate(names)]
        entries.append((b'sun.rt.javaCommand', b'Evil\n"main\\ \xff'))
    else:
        entries = [(b'x.%07d' % i, i) for i in range(int(arg))] \
            if kind == 'many' else []
    body = bytearray()
    for name, v in entries:
        if isinstance(v, int):
            data = (20 + len(name) + 1 + 7) & ~7
            value, vlen, typ, units = struct.pack('<q', v), 0, b'J', 1
        else:
            data = 20 + len(name) + 1
            value, vlen, typ, units = v + b'\0', len(v) + 1, b'B', 5
        size = (data + len(value) + 7) & ~7
        e = struct.pack('<iii', size, 20, vlen) + typ + bytes([0, units, 3])
        e += struct.pack('<i', data) + name + b'\0'
        e = e.ljust(data, b'\0') + value
        body += e.ljust(size, b'\0')
    used = 32 + len(body)
    head = b'\xca\xfe\xc0\xc0' + bytes([1, 2, 0, 1])
    head += struct.pack('<iiqii', used, 0, 0, 32, len(entries))
    with open(path, 'wb') as f:
        f.write(head + body)
        if kind == 'sparse':
            f.truncate(int(arg))


def order_once(host, port):
    import select
    m = socket.create_connection((host, int(port)), timeout=600)
    i = socket.create_connection((host, int(port)), timeout=600)
    i.sendall(b'GET / HTTP/1.1\r\nHost: x\r\n')  # all but its end
    m.sendall(b'GET /metrics HTTP/1.1\r\nHost: x\r\n'
              b'Connection: close\r\n\r\n')
    i.sendall(b'Connection: close\r\n\r\n')
    names, done = {m: 'metrics', i: 'index'}, []
    while len(done) < 2:
        for s in select.select([s for s in names if s not in done], [], [],
                               600)[0]:
            if not s.recv(65536):
                done.append(s)
    m.close()
    i.close()
    return names[done[0]]


def order(host, port):
    # The index request is complete microseconds after /metrics; a loaded
    # machine may hold this script back until the scrape is over. A serve
    # that answers nothing during a scrape says "metrics" every time, one
    # that answers between JVMs says "index" at least once in five.
    for _ in range(5):
        first = order_once(host, port)
        if first == 'index':
            break
    print(first + ' first')


def timeout(host, port):
    c = socket.create_connection((host, int(port)), timeout=60)
    c.sendall(b'GET / HTTP/1.1\r\nHost: x\r\n')
    print(read_all(c).decode('latin-1').replace('\r\n', '\\r\\n'))


if __name__ == '__main__':
    if sys.argv[1] == 'perf':
        perf(*sys.argv[2:5])
    elif sys.argv[1] == 'order':
        order(*sys.argv[2:4])
    elif sys.argv[1] == 'timeout':
        timeout(*sys.argv[2:4])
    elif sys.argv[1] == 'parse':
        samples(open(sys.argv[2]).read())
    elif sys.argv[1] == 'compare':
        compare(*sys.argv[2:5])
    elif sys.argv[1] == 'areas':
        areas(*sys.argv[2:5])
    elif sys.argv[1] == 'load':
        load(*sys.argv[2:5])
