// page.js - jvmtool serve's page: the node's JVMs, one JVM's threads,
// counters and flame graphs. Every string from a JVM or a container is
// put in the page as text (textContent), never as markup; the page only
// GETs serve's own routes.
'use strict';
(function () {
  var REFRESH_MS = 3000;
  var $ = function (id) { return document.getElementById(id); };
  var timer = null, pid = 0, profiling = false;
  var sorts = { jvms: { k: 'cpu_pct', desc: true }, threads: { k: 'cpu_pct', desc: true } };
  var last = { jvms: [], threads: [] };

  function cell(tr, text, cls) {
    var td = document.createElement('td');
    td.textContent = text === undefined || text === null ? '-' : String(text);
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  }
  function size(v) {
    if (v === null || v === undefined || v < 0) return '-';
    var u = ['', 'K', 'M', 'G', 'T'], i = 0;
    while (v >= 1024 && i < 4) { v /= 1024; i++; }
    return (i ? v.toFixed(1) : String(Math.round(v))) + u[i];
  }
  function pct(v) { return v === null || v === undefined ? '-' : v.toFixed(1); }
  function uptime(s) {
    if (s === null || s === undefined || s < 0) return '-';
    s = Math.floor(s);
    if (s < 60) return s + 's';
    if (s < 3600) return Math.floor(s / 60) + 'm' + ('0' + s % 60).slice(-2) + 's';
    if (s < 86400) return Math.floor(s / 3600) + 'h' + ('0' + Math.floor(s / 60) % 60).slice(-2) + 'm';
    return Math.floor(s / 86400) + 'd' + ('0' + Math.floor(s / 3600) % 24).slice(-2) + 'h';
  }
  function owner(j) {
    return j.container_id ? j.container_id.slice(0, 12) : j.other_namespace ? '(pidns)' : '-';
  }
  function status(text, bad) {
    var s = $('status');
    s.textContent = text;
    s.className = bad ? 'bad' : '';
  }
  function get(url) {
    return fetch(url, { headers: { Accept: 'application/json' } }).then(function (r) {
      if (r.ok) return r.json();
      return r.text().then(function (t) { throw new Error(r.status + ': ' + t.trim()); });
    });
  }

  // Sorting: click a column; numbers biggest first, text a to z.
  function sorted(rows, s) {
    var k = s.k;
    return rows.slice().sort(function (a, b) {
      var x = k === 'owner' ? owner(a) : a[k], y = k === 'owner' ? owner(b) : b[k], c;
      if (typeof x === 'number' || typeof y === 'number') {
        x = typeof x === 'number' ? x : -Infinity;
        y = typeof y === 'number' ? y : -Infinity;
        c = x < y ? -1 : x > y ? 1 : 0;
      } else {
        c = String(x || '').localeCompare(String(y || ''));
      }
      if (s.desc) c = -c;
      return c || (a.pid || a.tid) - (b.pid || b.tid);
    });
  }
  function headers(table, name, draw) {
    var ths = $(table).querySelectorAll('th');
    Array.prototype.forEach.call(ths, function (th) {
      if (th.dataset.num) th.className = 'n';
      th.addEventListener('click', function () {
        var s = sorts[name];
        if (s.k === th.dataset.k) s.desc = !s.desc;
        else { s.k = th.dataset.k; s.desc = !!th.dataset.num; }
        draw();
      });
    });
  }
  function marks(table, s) {
    Array.prototype.forEach.call($(table).querySelectorAll('th'), function (th) {
      th.classList.remove('up', 'down');
      if (th.dataset.k === s.k) th.classList.add(s.desc ? 'down' : 'up');
    });
  }

  // The node's table.
  function drawJvms() {
    var tb = $('jvms').tBodies[0], rows = sorted(last.jvms, sorts.jvms);
    tb.textContent = '';
    rows.forEach(function (j) {
      var tr = document.createElement('tr');
      tr.dataset.pid = j.pid;
      cell(tr, j.pid, 'n');
      cell(tr, owner(j));
      cell(tr, j.main_class || j.main || '-', 'main').title = j.main_class || '';
      cell(tr, pct(j.cpu_pct), 'n');
      cell(tr, size(j.heap_used_bytes), 'n');
      cell(tr, size(j.heap_max_bytes), 'n');
      cell(tr, pct(j.gc_pct), 'n');
      cell(tr, size(j.alloc_bytes_per_s), 'n');
      cell(tr, j.threads, 'n');
      cell(tr, uptime(j.uptime_s), 'n');
      tr.addEventListener('click', function () { location.hash = '#jvm=' + j.pid; });
      tb.appendChild(tr);
    });
    marks('jvms', sorts.jvms);
  }
  function loadNode() {
    return get('/api/jvms').then(function (d) {
      last.jvms = d.jvms || [];
      drawJvms();
      status(last.jvms.length + ' JVMs, ' + d.cores + ' cores, ' +
        new Date(d.time_ms).toLocaleTimeString());
    });
  }

  // One JVM.
  function drawThreads() {
    var tb = $('threads').tBodies[0];
    tb.textContent = '';
    sorted(last.threads, sorts.threads).forEach(function (t) {
      var tr = document.createElement('tr');
      cell(tr, t.tid, 'n');
      cell(tr, t.name || t.native_name, 'name');
      cell(tr, t.kind);
      cell(tr, t.state || '-');
      cell(tr, pct(t.cpu_pct), 'n');
      cell(tr, size(t.alloc_bytes_per_s), 'n');
      tb.appendChild(tr);
    });
    marks('threads', sorts.threads);
  }
  function drawJvm(d) {
    var top = d.top, line = (top.jvms || [])[0] || {}, st = $('stacks'), tb, f;
    $('jvm-title').textContent = 'pid ' + top.pid + ': ' + (line.main_class || line.main || '?') +
      (line.container_id ? ' in container ' + owner(line) : '') +
      ' \u2014 CPU ' + pct(line.cpu_pct) + '%, heap ' +
      size(line.heap_used_bytes) + ' of ' + size(line.heap_max_bytes);
    $('jvm-note').textContent = top.note || '';
    last.threads = top.threads || [];
    drawThreads();
    st.textContent = '';
    last.threads.forEach(function (t) {
      if (!t.stack) return;
      var h = document.createElement('div'), pre = document.createElement('div');
      h.textContent = (t.name || t.native_name) + ' (' + pct(t.cpu_pct) + '% CPU, ' + (t.state || '-') + ')';
      pre.className = 'stack';
      pre.textContent = t.stack.join('\n');
      st.appendChild(h);
      st.appendChild(pre);
    });
    tb = $('counters').tBodies[0];
    tb.textContent = '';
    f = $('filter').value;
    Object.keys(d.counters || {}).forEach(function (name) {
      var c = d.counters[name], tr;
      if (f && name.indexOf(f) < 0) return;
      tr = document.createElement('tr');
      cell(tr, name);
      cell(tr, c.value);
      cell(tr, c.units);
      tb.appendChild(tr);
    });
  }
  function loadJvm() {
    var want = pid;
    return get('/api/jvm?pid=' + encodeURIComponent(want)).then(function (d) {
      if (want !== pid) return;
      drawJvm(d);
      status('pid ' + want + ', ' + (d.top.threads || []).length + ' threads, ' +
        new Date(d.top.time_ms).toLocaleTimeString());
    });
  }

  // A profile: the pull's SVG in the frame; the pprof link pulls again.
  function profile(kind) {
    if (profiling || !pid) return;
    var secs = Math.max(1, Math.min(60, parseInt($('secs').value, 10) || 10));
    var q = '?pid=' + pid + '&seconds=' + secs, fr = $('flame'), a = $('pprof');
    profiling = true;
    $('prof-status').textContent = 'recording ' + kind + ' for ' + secs + ' s...';
    a.hidden = true;
    fr.hidden = false;
    fr.onload = null;
    fr.addEventListener('load', function done() {
      fr.removeEventListener('load', done);
      var doc = fr.contentDocument, ok = doc && doc.documentElement &&
        doc.documentElement.nodeName === 'svg';
      profiling = false;
      $('prof-status').textContent = ok ? kind + ', ' + secs + ' s:' :
        'no profile: ' + (doc && doc.body ? doc.body.textContent.trim() : '?');
      $('prof-status').className = ok ? '' : 'bad';
      if (ok) {
        // drawn to the frame's width (the script works in the viewBox's units)
        var svg = doc.documentElement, w = +svg.getAttribute('width'),
          h = +svg.getAttribute('height');
        svg.setAttribute('width', '100%');
        svg.setAttribute('height', '100%');
        fr.style.height = Math.ceil(fr.clientWidth * h / w) + 4 + 'px';
        a.href = '/debug/pprof/' + kind + q;
        a.setAttribute('download', kind + '-' + pid + '.pb.gz');
        a.hidden = false;
      }
    });
    fr.src = '/debug/pprof/' + kind + q + '&format=svg';
  }

  function tick() {
    var p = pid ? loadJvm() : loadNode();
    p.catch(function (e) { status(e.message, true); });
  }
  function route() {
    var m = /^#jvm=(\d+)$/.exec(location.hash);
    pid = m ? +m[1] : 0;
    $('node').hidden = !!pid;
    $('jvm').hidden = !pid;
    if (!pid) { $('flame').hidden = true; $('pprof').hidden = true; }
    $('prof-status').textContent = '';
    tick();
  }

  document.addEventListener('DOMContentLoaded', function () {
    $('where').textContent = location.host;
    headers('jvms', 'jvms', drawJvms);
    headers('threads', 'threads', drawThreads);
    Array.prototype.forEach.call(document.querySelectorAll('#prof button'), function (b) {
      b.addEventListener('click', function () { profile(b.dataset.p); });
    });
    $('filter').addEventListener('input', function () { if (pid) tick(); });
    window.addEventListener('hashchange', route);
    route();
    timer = setInterval(tick, REFRESH_MS);
  });
})();
