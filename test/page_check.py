"""page_check.py - drive headless Chromium through serve's page (test/page.test)

  page_check.py CHROME URL OUT HOSTILE_PID PID...

Chromium is driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: JSON messages ended by NUL on fds 3 and 4, so
no websocket is needed). What the page shows is read from the DOM; what
scripts said from the console (Runtime.consoleAPICalled), the browser's
own messages (Log.entryAdded: CSP refusals) and dialogs
(Page.javascriptDialogOpening). Screenshots go to OUT/node.png and
OUT/jvm.png. Prints one "name: value" line per finding; the test compares
them. Every wait is bounded (generous: a loaded machine), never timed.
"""
import base64
import json
import os
import subprocess
import sys
import time
import zlib


class Chrome:
    def __init__(self, chrome, profile):
        r_in, w_in = os.pipe()  # we write commands: Chromium's fd 3
        r_out, w_out = os.pipe()  # it writes answers: its fd 4

        def fds():  # (subprocess would close 3 and 4 after this)
            a, b = os.dup(r_in), os.dup(w_out)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.closerange(5, 1024)

        self.p = subprocess.Popen(
            [chrome, '--headless', '--no-sandbox', '--disable-gpu',
             '--disable-quic', '--no-first-run', '--disable-sync',
             '--disable-background-networking', '--disable-component-update',
             '--remote-debugging-pipe', '--user-data-dir=' + profile,
             '--window-size=1100,640', 'about:blank'],
            preexec_fn=fds, close_fds=False,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(r_in)
        os.close(w_out)
        self.w, self.r = w_in, r_out
        self.buf = b''
        self.id = 0
        self.events = []
        self.session = None

    def _read(self, deadline):
        while b'\0' not in self.buf:
            import select
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError('no message from Chromium')
            if not select.select([self.r], [], [], left)[0]:
                continue
            chunk = os.read(self.r, 1 << 16)
            if not chunk:
                raise EOFError('Chromium went away')
            self.buf += chunk
        msg, self.buf = self.buf.split(b'\0', 1)
        return json.loads(msg)

    def call(self, method, params=None, session=True, timeout=60):
        self.id += 1
        m = {'id': self.id, 'method': method, 'params': params or {}}
        if session and self.session:
            m['sessionId'] = self.session
        os.write(self.w, json.dumps(m).encode() + b'\0')
        deadline = time.time() + timeout
        while True:
            r = self._read(deadline)
            if r.get('id') == self.id:
                if 'error' in r:
                    raise RuntimeError('%s: %s' % (method, r['error']))
                return r.get('result', {})
            self.events.append(r)

    def pump(self, secs):
        """Collect events for secs."""
        end = time.time() + secs
        try:
            while True:
                self.events.append(self._read(end))
        except TimeoutError:
            pass

    def js(self, expr):
        r = self.call('Runtime.evaluate',
                      {'expression': expr, 'returnByValue': True})
        if 'exceptionDetails' in r:
            return None
        return r['result'].get('value')

    def wait(self, expr, secs):
        end = time.time() + secs
        while time.time() < end:
            v = self.js(expr)
            if v:
                return v
            self.pump(0.25)
        return None

    def close(self):
        try:
            self.call('Browser.close', session=False, timeout=10)
        except Exception:
            pass
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def png_colours(data):
    """Distinct colours of a PNG (8-bit RGB or RGBA, not interlaced)."""
    assert data[:8] == b'\x89PNG\r\n\x1a\n'
    at, idat = 8, b''
    while at < len(data):
        n = int.from_bytes(data[at:at + 4], 'big')
        kind = data[at + 4:at + 8]
        body = data[at + 8:at + 8 + n]
        if kind == b'IHDR':
            w, h = int.from_bytes(body[0:4], 'big'), int.from_bytes(body[4:8], 'big')
            bpp = {2: 3, 6: 4}[body[9]]
            assert body[8] == 8 and body[12] == 0
        elif kind == b'IDAT':
            idat += body
        at += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    seen = set()
    for y in range(h):
        f = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                row[i] = (row[i] + row[i - bpp]) & 255
        elif f == 2:
            row = bytearray((a + b) & 255 for a, b in zip(row, prev))
        elif f == 3:
            for i in range(stride):
                left = row[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = row[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else
                                    b if pb <= pc else c)) & 255
        rb = bytes(row)
        seen.update(rb[i:i + bpp] for i in range(0, stride, bpp * 3))
        prev = row
    return len(seen)


def shot(c, path):
    r = c.call('Page.captureScreenshot', {'format': 'png'})
    data = base64.b64decode(r['data'])
    with open(path, 'wb') as f:
        f.write(data)
    return png_colours(data)


def main():
    chrome, url, out, hostile = sys.argv[1:5]
    pids = [int(p) for p in sys.argv[5:]] + [int(hostile)]
    c = Chrome(chrome, os.path.join(out, 'chrome'))
    t0 = time.time()
    say = lambda k, v: print('%s: %s' % (k, v), flush=True) or \
        sys.stderr.write('%.1f s %s\n' % (time.time() - t0, k))
    try:
        t = c.call('Target.createTarget', {'url': 'about:blank'},
                   session=False)
        s = c.call('Target.attachToTarget',
                   {'targetId': t['targetId'], 'flatten': True}, session=False)
        c.session = s['sessionId']
        for d in ('Page', 'Runtime', 'Log'):
            c.call(d + '.enable')
        c.call('Emulation.setDeviceMetricsOverride',
               {'width': 1100, 'height': 640, 'deviceScaleFactor': 1,
                'mobile': False})
        c.call('Page.navigate', {'url': url})
        want = '!!(' + ' && '.join(
            "document.querySelector('#jvms tr[data-pid=\"%d\"]')" % p
            for p in pids) + ')'
        say('node table lists the JVMs', bool(c.wait(want, 40)))
        say('hostile main class as text', c.js(
            "document.querySelector('#jvms tr[data-pid=\"%s\"] td.main')"
            ".textContent" % hostile))
        say('elements made of JVM text', c.js(
            "document.querySelectorAll('main b, main i, main img, main svg,"
            " main script').length"))
        # the next refresh has rates: CPU of every JVM is a number
        say('cpu figures after a refresh', bool(c.wait(
            "Array.from(document.querySelectorAll('#jvms tbody tr'))"
            ".every(r => /^[0-9.]+$/.test(r.cells[3].textContent))", 20)))
        # a click on PID sorts by it, biggest first; again, smallest first
        c.js("document.querySelector('#jvms th[data-k=pid]').click()")
        down = c.js("Array.from(document.querySelectorAll('#jvms tbody tr'))"
                    ".map(r => +r.dataset.pid)")
        c.js("document.querySelector('#jvms th[data-k=pid]').click()")
        up = c.js("Array.from(document.querySelectorAll('#jvms tbody tr'))"
                  ".map(r => +r.dataset.pid)")
        say('sorted by pid', down == sorted(down, reverse=True) and
            up == sorted(up) and len(up) >= 3)
        say('node screenshot colours', shot(c, os.path.join(out, 'node.png')))

        # the hostile JVM's page: its threads, named by a dump
        c.js("location.hash = '#jvm=%s'" % hostile)
        names = c.wait(
            "(() => { const n = Array.from(document.querySelectorAll("
            "'#threads td.name'), td => td.textContent);"
            " return n.some(x => x.startsWith('<img')) ? n : null })()", 40)
        names = names or []
        say('threads listed', len(names) >= 5)
        for n in sorted(x for x in names if x[:1] in '<"'):
            say('thread name as text', n)
        say('elements made of JVM text, JVM page', c.js(
            "document.querySelectorAll('main b, main i, main img, main svg,"
            " main script').length"))
        say('hot stack shown', bool(c.wait(
            "Array.from(document.querySelectorAll('#stacks .stack'))"
            ".some(e => e.textContent.includes('PageWork.pageHotLoop'))", 20)))
        say('counters shown', (c.js(
            "document.querySelectorAll('#counters tbody tr').length") or 0) > 50)

        # a 2 s CPU profile, drawn inline by core/flame's SVG and script
        c.js("document.getElementById('secs').value = 2;"
             "document.querySelector('#prof button[data-p=profile]').click()")
        frames = c.wait(
            "(() => { const d = document.getElementById('flame')"
            ".contentDocument; if (!d) return null;"
            " const g = d.querySelectorAll('g.f'); if (!g.length) return null;"
            " return Array.from(g, e => e.getAttribute('data-n')) })()", 60)
        frames = frames or []
        say('flame graph frames', len(frames) > 3)
        say('hot method in the flame graph',
            any('PageWork.pageHotLoop' in f for f in frames))
        # the script ran (from /flame.js): labels placed, a click zooms
        say('flame script ran', bool(c.wait(
            "(() => { const d = document.getElementById('flame')"
            ".contentDocument; const t = Array.from(d.querySelectorAll("
            "'g.f text'), e => e.textContent);"
            " return t.some(x => x.includes('pageHotLoop')) })()", 10)))
        say('flame zoom', c.js(
            "(() => { const d = document.getElementById('flame')"
            ".contentDocument; const g = Array.from(d.querySelectorAll('g.f'))"
            ".find(e => e.getAttribute('data-n').includes('pageHotLoop'));"
            " g.dispatchEvent(new MouseEvent('click'));"
            " return d.getElementById('unzoom').style.opacity })()"))
        say('pprof link', c.js(
            "(() => { const a = document.getElementById('pprof');"
            " return !a.hidden && new URL(a.href).pathname })()"))
        say('jvm screenshot colours', shot(c, os.path.join(out, 'jvm.png')))

        # markup put in the page by hand: the CSP stops its handler
        c.js("document.body.insertAdjacentHTML('beforeend', "
             "'<img src=/nothing onerror=\"console.log(\\'pwned-injected\\')\">')")
        c.pump(2)
        logs, csp, dialogs = [], 0, 0
        for e in c.events:
            m, p = e.get('method'), e.get('params', {})
            if m == 'Runtime.consoleAPICalled':
                logs.append(' '.join(str(a.get('value', a.get('description')))
                                     for a in p.get('args', [])))
            elif m == 'Log.entryAdded':
                text = p.get('entry', {}).get('text', '')
                logs.append(text)
                csp += 'Content Security Policy' in text
            elif m == 'Runtime.exceptionThrown':
                logs.append('exception: ' + json.dumps(p)[:300])
            elif m == 'Page.javascriptDialogOpening':
                dialogs += 1
        say('console messages from JVM text',
            sum('pwned' in x for x in logs))
        say('CSP refusals reported', csp > 0)
        say('dialogs', dialogs)
        say('page exceptions',
            sum(x.startswith('exception') for x in logs))
        with open(os.path.join(out, 'console.log'), 'w') as f:
            f.write('\n'.join(logs) + '\n')
    finally:
        c.close()


main()
