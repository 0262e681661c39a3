/* flame.c - render folded stacks as a self-contained interactive SVG
 *
 * Sorted stacks make the merge simple: a frame stays open while the next
 * stack shares the prefix up to it; when it closes it becomes one rect
 * from the value where it opened to the value where it closed.
 */
#include "core/jvmtool.h"
#include "core/flame.h"
#include "core/out.h"

enum { FRAME_H = 16, TOP = 48, BOTTOM = 34, XPAD = 10, MAXDEPTH = 4096 };

struct node {
  const char *name;
  uint32_t len, depth;
  int64_t start, end;
  int64_t before; /* differential: the frame's value before */
};

struct nodes {
  struct node *v;
  size_t n, cap;
  uint32_t maxdepth;
};

/* v with d decimals (v >= 0), as printf's "%.*f" would but without its
 * cost per call: the main loop writes five numbers a frame. */
static void put_num(struct buf *b, double v, int d)
{
  uint64_t u = (uint64_t)(v * (d == 2 ? 100 : d ? 10 : 1) + 0.5);
  char t[32], *p = t + sizeof(t);

  for (int i = 0; i < d; i++, u /= 10) *--p = (char)('0' + u % 10);
  if (d) *--p = '.';
  do *--p = (char)('0' + u % 10);
  while (u /= 10);
  buf_add(b, p, (size_t)(t + sizeof(t) - p));
}

static void emit(struct nodes *ns, const char *name, size_t len, uint32_t depth,
                 int64_t start, int64_t end, int64_t before)
{
  if (ns->n == ns->cap)
    ns->v = xrealloc(ns->v,
                     (ns->cap = ns->cap ? ns->cap * 2 : 1024) * sizeof(*ns->v));
  ns->v[ns->n++] =
      (struct node){name, (uint32_t)len, depth, start, end, before};
  if (depth > ns->maxdepth) ns->maxdepth = depth;
}

/* The merge: one node per drawn frame, plus "all" at depth 0; with
 * before (differential), frames also sum the values before, and a stack
 * that is gone (0 now) is merged for them at no width. */
static void build(const struct fold_stack *st, size_t n, const int64_t *before,
                  struct nodes *ns)
{
  const char *name[MAXDEPTH];
  size_t len[MAXDEPTH];
  int64_t start[MAXDEPTH], x = 0, bx = 0;
  int64_t bstart[MAXDEPTH] = {0}; /* cppcheck cannot see open guards it */
  size_t open = 0;

  for (size_t i = 0; i < n; i++) {
    const char *k = st[i].key, *end = k + st[i].len;
    int64_t b = before && before[i] > 0 ? before[i] : 0;
    size_t d = 0;

    /* nothing to draw; and the totals must not overflow */
    if (st[i].value < 0 || (!st[i].value && !b) ||
        st[i].value > INT64_MAX - x || b > INT64_MAX - bx)
      continue;
    /* how many open frames this stack shares */
    while (k <= end && d < MAXDEPTH) {
      const char *semi = memchr(k, ';', (size_t)(end - k));
      size_t l = semi ? (size_t)(semi - k) : (size_t)(end - k);

      if (d < open && (len[d] != l || memcmp(name[d], k, l))) {
        for (size_t j = open; j-- > d;)
          emit(ns, name[j], len[j], (uint32_t)j + 1, start[j], x,
               bx - bstart[j]);
        open = d;
      }
      if (d >= open) {
        name[d] = k, len[d] = l, start[d] = x;
        bstart[d] = bx;
        open = d + 1;
      }
      d++;
      if (!semi) break;
      k = semi + 1;
    }
    for (size_t j = open; j-- > d;)
      emit(ns, name[j], len[j], (uint32_t)j + 1, start[j], x, bx - bstart[j]);
    if (open > d) open = d;
    x += st[i].value;
    bx += b;
  }
  for (size_t j = open; j-- > 0;)
    emit(ns, name[j], len[j], (uint32_t)j + 1, start[j], x, bx - bstart[j]);
  emit(ns, "all", 3, 0, 0, x, bx);
}

/* Differential: white for an unchanged share of the total, red as the
 * frame's share grew, blue as it shrank: the change relative to the larger
 * of the two shares, full for a frame that came or went. */
static void diff_colour(struct buf *o, double now, double then)
{
  double big = now > then ? now : then, c = big > 0 ? (now - then) / big : 0;
  int fade;

  c = c > 1 ? 1 : c < -1 ? -1 : c;
  fade = (int)(255 - 200 * (c < 0 ? -c : c));
  buf_adds(o, "rgb(");
  put_num(o, c < 0 ? fade : 255, 0);
  buf_addc(o, ',');
  put_num(o, fade, 0);
  buf_addc(o, ',');
  put_num(o, c > 0 ? fade : 255, 0);
  buf_addc(o, ')');
}

/* The hover text's values: "N unit, P%" and, differential, "; before:
 * M, Q%; +D points". */
static void hover(struct buf *b, const struct node *nd, const char *unit,
                  int64_t total, int64_t btotal, int diff)
{
  double now =
      total ? 100.0 * (double)(nd->end - nd->start) / (double)total : 0;
  double then = btotal ? 100.0 * (double)nd->before / (double)btotal : 0;

  buf_adds(b, diff ? " (after: " : " (");
  put_num(b, (double)(nd->end - nd->start), 0);
  buf_addc(b, ' ');
  buf_adds(b, unit);
  buf_adds(b, ", ");
  put_num(b, now, 2);
  buf_adds(b, "%");
  if (diff) {
    buf_adds(b, "; before: ");
    put_num(b, (double)nd->before, 0);
    buf_adds(b, ", ");
    put_num(b, then, 2);
    buf_adds(b, "%; ");
    buf_adds(b, now >= then ? "+" : "-");
    put_num(b, now >= then ? now - then : then - now, 2);
    buf_adds(b, " points");
  }
  buf_addc(b, ')');
}

/* A deterministic colour: allocated types warm, JDK frames green, the
 * application's frames aqua-blue, other frames (threads, GC) yellow. */
static void colour(struct buf *o, const char *s, size_t n)
{
  uint32_t h = 2166136261u;
  int rgb[3], v;

  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  v = (int)(h % 55);
  if (n > 4 && !memcmp(s + n - 4, "_[i]", 4)) {
    rgb[0] = 230;
    rgb[1] = 110 + v;
    rgb[2] = 40;
  } else if (fold_jdk_frame(s, n)) {
    rgb[0] = 50 + v;
    rgb[1] = 190 + v / 2;
    rgb[2] = 60;
  } else if (memchr(s, '.', n)) {
    rgb[0] = 80 + v;
    rgb[1] = 170 + v;
    rgb[2] = 215;
  } else {
    rgb[0] = 215 + v / 2;
    rgb[1] = 200 + v / 2;
    rgb[2] = 60;
  }
  for (int i = 0; i < 3; i++) {
    buf_adds(o, i ? "," : "rgb(");
    put_num(o, rgb[i], 0);
  }
  buf_addc(o, ')');
}

/* What fits in w pixels at about 7 per character, cut on a character
 * boundary with "..", as the script does after a zoom. */
static void label(struct buf *o, const char *s, size_t n, double w)
{
  size_t fit = w > 4 ? (size_t)((w - 4) / 7) : 0;

  if (fit < 3) return;
  if (n <= fit) {
    xml_buf(o, s, n);
    return;
  }
  n = fit - 2;
  while (n && ((unsigned char)s[n] & 0xc0) == 0x80) n--;
  xml_buf(o, s, n);
  buf_adds(o, "..");
}

const char flame_js[] =
    "'use strict';\n"
    "var W, XP, frames = [], details, matched, total, fontw = 7;\n"
    "function init(evt) {\n"
    "  var svg = document.documentElement;\n"
    "  W = +svg.getAttribute('width'); XP = +svg.getAttribute('data-xpad');\n"
    "  details = document.getElementById('details');\n"
    "  matched = document.getElementById('matched');\n"
    "  var gs = document.getElementsByClassName('f');\n"
    "  for (var i = 0; i < gs.length; i++) {\n"
    "    var r = gs[i].querySelector('rect');\n"
    "    frames.push({g: gs[i], r: r, t: gs[i].querySelector('text'),\n"
    "      x: +r.getAttribute('x'), w: +r.getAttribute('width'),\n"
    "      d: +gs[i].getAttribute('data-d'), fill: r.getAttribute('fill'),\n"
    "      name: gs[i].getAttribute('data-n'),\n"
    "      info: gs[i].querySelector('title').textContent});\n"
    "    gs[i].onmouseover = show; gs[i].onmouseout = hide;\n"
    "    gs[i].onclick = zoom;\n"
    "  }\n"
    "  total = frames.length ? frames[frames.length - 1].w : 0;\n"
    "  document.getElementById('unzoom').onclick = unzoom;\n"
    "  document.getElementById('search').onclick = search;\n"
    "  relabel();\n"
    "}\n"
    "function find(g) { for (var i = 0; i < frames.length; i++)\n"
    "  if (frames[i].g === g) return frames[i]; }\n"
    "function show() { details.textContent = find(this).info; }\n"
    "function hide() { details.textContent = ' '; }\n"
    "function label(f, w) {\n"
    "  var n = Math.floor((w - 4) / fontw);\n"
    "  if (n < 3) return '';\n"
    "  return f.name.length <= n ? f.name : f.name.substr(0, n - 2) + '..';\n"
    "}\n"
    "function place(f, x, w) {\n"
    "  f.r.setAttribute('x', x); f.r.setAttribute('width', w);\n"
    "  f.t.setAttribute('x', x + 3); f.t.textContent = label(f, w);\n"
    "}\n"
    "function relabel() { frames.forEach(function (f) { place(f, f.x, f.w); "
    "}); }\n"
    "function zoom() {\n"
    "  var z = find(this), k = (W - 2 * XP) / z.w;\n"
    "  frames.forEach(function (f) {\n"
    "    var inside = f.x >= z.x - 1e-6 && f.x + f.w <= z.x + z.w + 1e-6;\n"
    "    var above = f.d >= z.d, below = f.d < z.d && f.x <= z.x + 1e-6 &&\n"
    "      f.x + f.w >= z.x + z.w - 1e-6;\n"
    "    if (inside && above) { f.g.style.display = ''; f.g.style.opacity = "
    "1;\n"
    "      place(f, XP + (f.x - z.x) * k, f.w * k); }\n"
    "    else if (below) { f.g.style.display = ''; f.g.style.opacity = 0.5;\n"
    "      place(f, XP, W - 2 * XP); }\n"
    "    else f.g.style.display = 'none';\n"
    "  });\n"
    "  document.getElementById('unzoom').style.opacity = 1;\n"
    "}\n"
    "function unzoom() {\n"
    "  frames.forEach(function (f) { f.g.style.display = '';\n"
    "    f.g.style.opacity = 1; });\n"
    "  relabel(); this.style.opacity = 0;\n"
    "}\n"
    "function search() {\n"
    "  var term = prompt('Search (regular expression)', ''), re, spans = [];\n"
    "  if (term === null) return;\n"
    "  try { re = new RegExp(term); } catch (e) { matched.textContent =\n"
    "    'bad expression'; return; }\n"
    "  frames.forEach(function (f) {\n"
    "    var hit = term !== '' && re.test(f.name);\n"
    "    f.r.setAttribute('fill', hit ? 'rgb(230,0,230)' : f.fill);\n"
    "    if (hit) spans.push([f.x, f.x + f.w]);\n"
    "  });\n"
    "  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
    "  var sum = 0, end = -1;\n"
    "  spans.forEach(function (s) { if (s[0] >= end) { sum += s[1] - s[0];\n"
    "    end = s[1]; } else if (s[1] > end) { sum += s[1] - end; end = s[1]; } "
    "});\n"
    "  matched.textContent = term === '' ? ' ' :\n"
    "    'Matched: ' + (total ? 100 * sum / total : 0).toFixed(1) + '%';\n"
    "}\n";

int flame_svg(FILE *out, const struct fold_stack *st, size_t n,
              const struct flame_opts *o)
{
  struct nodes ns = {0};
  struct buf arena = {0}, b = {0};
  struct fold_stack *rev = NULL;
  double scale;
  int height, width = o->width > 100 ? o->width : 1200;
  int64_t total, btotal;

  if (o->reverse && !o->before) st = rev = fold_reverse(st, &n, &arena);
  build(st, n, o->before, &ns);
  total = ns.v[ns.n - 1].end;
  btotal = ns.v[ns.n - 1].before;
  scale = total ? (double)(width - 2 * XPAD) / (double)total : 0;
  height = TOP + BOTTOM + FRAME_H * ((int)ns.maxdepth + 1);
  fprintf(out,
          "<?xml version=\"1.0\" standalone=\"no\"?>\n"
          "<svg version=\"1.1\" width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\" data-xpad=\"%d\"%s "
          "xmlns=\"http://www.w3.org/2000/svg\">\n"
          "<style>text { font: 12px Verdana, sans-serif; fill: #000 } "
          ".f:hover rect { stroke: #000; stroke-width: 0.5 } "
          ".b { cursor: pointer } #title { font-size: 17px }</style>\n",
          width, height, width, height, XPAD,
          o->script_href ? "" : " onload=\"init(evt)\"");
  if (o->script_href) { /* the script's own file, which calls init */
    fputs("<script href=\"", out);
    xml_string(out, o->script_href, strlen(o->script_href));
    fputs("\"/>\n", out);
  } else {
    fputs("<script type=\"text/ecmascript\"><![CDATA[\n", out);
    fputs(flame_js, out);
    fputs("]]></script>\n", out);
  }
  fprintf(out,
          "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
          "<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">",
          width / 2);
  xml_string(out, o->title, strlen(o->title));
  fprintf(out,
          "</text>\n"
          "<text id=\"unzoom\" class=\"b\" x=\"%d\" y=\"24\" "
          "style=\"opacity:0\">Reset Zoom</text>\n"
          "<text id=\"search\" class=\"b\" x=\"%d\" y=\"24\">Search</text>\n"
          "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n"
          "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n",
          XPAD, width - XPAD - 60, width - XPAD - 120, height - 10, XPAD,
          height - 10);
  /* Roots first, so a frame is painted over its parent's outline; "all"
   * last in the document: the script reads the total from it. */
  for (size_t i = 0; i < ns.n; i++) {
    const struct node *nd = &ns.v[i];
    double x = XPAD + (double)nd->start * scale;
    double w = (double)(nd->end - nd->start) * scale;
    int y = o->inverted ? TOP + FRAME_H * (int)nd->depth
                        : height - BOTTOM - FRAME_H * ((int)nd->depth + 1);
    size_t shown = nd->len;

    if (w < (o->minwidth > 0 ? o->minwidth : 0.1) && nd->depth) continue;
    if (shown > 4 && !memcmp(nd->name + shown - 4, "_[i]", 4)) shown -= 4;
    buf_adds(&b, "<g class=\"f\" data-d=\"");
    put_num(&b, nd->depth, 0);
    buf_adds(&b, "\" data-n=\"");
    xml_buf(&b, nd->name, shown);
    buf_adds(&b, "\"><title>");
    xml_buf(&b, nd->name, shown);
    hover(&b, nd, o->unit, total, btotal, o->before != NULL);
    buf_adds(&b, "</title><rect x=\"");
    put_num(&b, x, 1);
    buf_adds(&b, "\" y=\"");
    put_num(&b, y, 0);
    buf_adds(&b, "\" width=\"");
    put_num(&b, w, 1);
    buf_adds(&b, "\" height=\"");
    put_num(&b, FRAME_H - 1, 0);
    buf_adds(&b, "\" fill=\"");
    if (o->before)
      diff_colour(&b, total ? (double)(nd->end - nd->start) / (double)total : 0,
                  btotal ? (double)nd->before / (double)btotal : 0);
    else if (nd->depth)
      colour(&b, nd->name, nd->len);
    else
      buf_adds(&b, "rgb(240,200,160)");
    buf_adds(&b, "\" rx=\"2\"/><text x=\"");
    put_num(&b, x + 3, 1);
    buf_adds(&b, "\" y=\"");
    put_num(&b, y + 12, 0);
    buf_adds(&b, "\">");
    label(&b, nd->name, shown, w);
    buf_adds(&b, "</text></g>\n");
    if (b.len > 1 << 16) {
      fwrite(b.p, 1, b.len, out);
      b.len = 0;
    }
  }
  fwrite(b.p, 1, b.len, out);
  buf_free(&b);
  fputs("</svg>\n", out);
  free(ns.v);
  free(rev);
  buf_free(&arena);
  return ferror(out) ? -EIO : 0;
}

const char *flame_title(const char *kind)
{
  static const char *const titles[][2] = {{"cpu", "CPU Flame Graph"},
                                          {"cputime", "CPU Flame Graph"},
                                          {"native", "Native Flame Graph"},
                                          {"alloc", "Allocation Flame Graph"},
                                          {"lock", "Lock Flame Graph"},
                                          {"wall", "Wall-clock Flame Graph"},
                                          {"jstack", "Thread Dump Flame Graph"},
                                          {"diff", "Diff Flame Graph"}};

  for (size_t i = 0; kind && i < sizeof(titles) / sizeof(titles[0]); i++)
    if (!strcmp(kind, titles[i][0])) return titles[i][1];
  return "Flame Graph";
}
