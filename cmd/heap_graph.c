/* heap_graph.c - jvmtool heap's views of the object graph: --retained,
 * --path, --folded and --svg (cmd/heap.h)
 *
 * Retained sizes follow VisualVM's and Eclipse MAT's dominator tree (a
 * super-root over every GC root; unreachable objects left out and
 * counted). A class's retained size counts each instance not dominated
 * by another instance of that class, so nothing counts twice.
 */
#include "core/jvmtool.h"
#include "cmd/heap.h"
#include "core/flame.h"
#include "core/fold.h"
#include "core/wfile.h"

void heap_put_name(struct buf *b, const struct hprof *h, uint32_t c, int json)
{
  char name[1024];

  hprof_class_name(h, c, name, sizeof(name));
  if (json == 2)
    buf_adds(b, name);
  else if (json)
    json_buf(b, name, strlen(name));
  else
    term_escape(b, name, strlen(name), 0);
}

/* The progress line: on stderr when it is a terminal, at most four times
 * a second and at each pass's start; cleared before anything else is
 * written. */
static struct {
  int pass, shown;
  uint64_t last_ms;
} prog;

static void on_progress(void *ctx, uint64_t raw, uint64_t size)
{
  struct timespec ts;
  uint64_t now;

  (void)ctx;
  if (!raw) prog.pass++;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
  if (raw && now - prog.last_ms < 250) return;
  prog.last_ms = now;
  if (size)
    fprintf(stderr,
            "\rjvmtool heap: pass %d: %" PRIu64 " of %" PRIu64
            " MB (%d%%)\033[K",
            prog.pass, raw >> 20, size >> 20,
            (int)(raw >= size ? 100 : raw * 100 / size));
  else
    fprintf(stderr, "\rjvmtool heap: pass %d: %" PRIu64 " MB\033[K", prog.pass,
            raw >> 20);
  prog.shown = 1;
}

void heap_progress_start(void)
{
  hin_progress(on_progress, NULL);
}

void heap_progress_clear(void)
{
  if (prog.shown) fputs("\r\033[K", stderr);
  prog.shown = 0;
}

void heap_flush(struct buf *b)
{
  heap_progress_clear();
  fwrite(b->p, 1, b->len, stdout);
  b->len = 0;
}

static const struct hp_graph *sort_g;
static const uint64_t *sort_v;

static int by_value(const void *a, const void *b)
{
  uint64_t x = sort_v[*(const uint32_t *)a], y = sort_v[*(const uint32_t *)b];

  if (x != y) return x > y ? -1 : 1;
  return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* The top n objects by retained size (a bounded insertion: n is small
 * next to the objects). */
static uint32_t top_objects(const struct hp_graph *g, uint32_t n,
                            uint32_t *best)
{
  uint32_t have = 0;

  for (uint32_t i = 1; i < g->n; i++) {
    uint32_t at;

    if (g->idom[i] == HP_NONE) continue;
    if (have == n && g->retained[i] <= g->retained[best[n - 1]]) continue;
    at = have < n ? have++ : n - 1;
    while (at && g->retained[best[at - 1]] < g->retained[i]) {
      best[at] = best[at - 1];
      at--;
    }
    best[at] = i;
  }
  return have;
}

static void class_of(struct buf *b, const struct hprof *h,
                     const struct hp_graph *g, uint32_t i, int json)
{
  if (g->kind[i] == 0x20) {
    buf_adds(b, "class ");
    heap_put_name(b, h, g->cls[i], json ? 2 : 0);
  } else if (g->cls[i] == HP_NONE) {
    buf_adds(b, "<unknown class>");
  } else {
    heap_put_name(b, h, g->cls[i], json ? 2 : 0);
  }
}

void heap_retained(const struct hprof *h, const struct hp_graph *g, int top,
                   int json)
{
  uint64_t *ret = xmalloc(((size_t)h->ncls + 1) * sizeof(*ret));
  uint32_t *row = xmalloc(((size_t)h->ncls + 1) * sizeof(*row)), n = 0;
  uint32_t *best = xmalloc((size_t)top * sizeof(*best)), nbest;
  struct buf b = {0};

  hprof_class_retained(g, h, ret);
  for (uint32_t c = 0; c < h->ncls; c++)
    if (h->cls[c].count) row[n++] = c;
  sort_g = g;
  sort_v = ret;
  qsort(row, n, sizeof(*row), by_value);
  nbest = top_objects(g, (uint32_t)top, best);
  if (json)
    buf_adds(&b, "{\"classes\": [");
  else
    buf_adds(&b,
             " num     #instances         #bytes      #retained  class name\n"
             "-------------------------------------------------------------\n");
  for (uint32_t i = 0; i < n; i++) {
    const struct hp_class *k = &h->cls[row[i]];

    if (json) {
      buf_adds(&b, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
      heap_put_name(&b, h, row[i], 1);
      buf_printf(&b,
                 ", \"instances\": %" PRId64 ", \"bytes\": %" PRId64
                 ", \"retained\": %" PRIu64 "}",
                 k->count, k->bytes, ret[row[i]]);
    } else {
      buf_printf(&b,
                 "%4" PRIu32 ": %13" PRId64 " %14" PRId64 " %14" PRIu64 "  ",
                 i + 1, k->count, k->bytes, ret[row[i]]);
      heap_put_name(&b, h, row[i], 0);
      buf_addc(&b, '\n');
    }
    if (b.len > 65536) heap_flush(&b);
  }
  if (json)
    buf_adds(&b, "\n], \"objects\": [");
  else
    buf_adds(&b, "\n num                 object       #shallow      #retained  "
                 "class name\n"
                 "-------------------------------------------------------------"
                 "--------\n");
  for (uint32_t i = 0; i < nbest; i++) {
    uint32_t o = best[i];

    if (json) {
      buf_printf(&b, "%s{\"id\": \"0x%" PRIx64 "\", \"class\": ",
                 i ? ",\n  " : "\n  ", hp_graph_id(g, o));
      if (g->kind[o] == 0x20 || g->cls[o] == HP_NONE) {
        struct buf t = {0};

        class_of(&t, h, g, o, 1);
        json_buf(&b, t.p, t.len);
        buf_free(&t);
      } else {
        heap_put_name(&b, h, g->cls[o], 1);
      }
      buf_printf(&b, ", \"shallow\": %" PRIu64 ", \"retained\": %" PRIu64 "}",
                 hp_graph_shallow(g, o), g->retained[o]);
    } else {
      buf_printf(
          &b, "%4" PRIu32 ":  %#20" PRIx64 " %14" PRIu64 " %14" PRIu64 "  ",
          i + 1, hp_graph_id(g, o), hp_graph_shallow(g, o), g->retained[o]);
      class_of(&b, h, g, o, 0);
      buf_addc(&b, '\n');
    }
  }
  if (json)
    buf_printf(
        &b,
        "\n], \"reachable\": {\"objects\": %" PRIu64 ", \"bytes\": %" PRIu64
        "}, \"unreachable\": {\"objects\": %" PRIu64 ", \"bytes\": %" PRIu64
        "}}\n",
        g->reachable, g->retained[0], g->unreachable, g->unreachable_bytes);
  heap_flush(&b);
  buf_free(&b);
  if (g->unreachable)
    info_msg("%" PRIu64 " unreachable objects (%" PRIu64
             " bytes) left out: no GC root reaches them",
             g->unreachable, g->unreachable_bytes);
  free(ret);
  free(row);
  free(best);
}

/* A thread named as its Thread object's name String says ('thread
 * "main"', escaped; the name alone unless word), or by its serial when
 * the dump does not say ("thread 1"). */
static void thread_text(struct buf *b, struct hprof *h,
                        const struct hp_graph *g, int fd, uint32_t serial,
                        int word)
{
  char name[256];

  if (hprof_thread_name(h, g, fd, serial, name, sizeof(name))) {
    buf_printf(b, "thread %" PRIu32, serial);
    return;
  }
  buf_adds(b, word ? "thread \"" : "\"");
  term_escape(b, name, strlen(name), 0);
  buf_addc(b, '"');
}

/* The root kind of object o, with its thread and method for a Java frame
 * or JNI local ('Java frame: thread "main", HeapLeak.main'), the thread's
 * name for a thread object ('thread object: "main"'). */
static void root_text(struct buf *b, struct hprof *h, const struct hp_graph *g,
                      int fd, uint32_t o)
{
  for (uint32_t r = 0; r < g->nroots; r++) {
    const struct hp_root *t = &g->roots[r];
    uint32_t tf, fi, name, c;

    if (t->obj != o) continue;
    buf_adds(b, hprof_root_name(t->kind));
    if (t->kind == 0x08) {
      buf_adds(b, ": ");
      thread_text(b, h, g, fd, t->thread, 0);
      return;
    }
    if (t->kind != 0x02 && t->kind != 0x03) return;
    buf_adds(b, ": ");
    thread_text(b, h, g, fd, t->thread, 1);
    tf = hp_map_get(&h->traces, t->thread + 1ull);
    if (tf == HP_NONE || t->frame >= h->trace_frames[tf]) return;
    fi = hp_map_get(&h->frame_ids, h->trace_frames[tf + 1 + t->frame]);
    if (fi == HP_NONE) return;
    c = hp_map_get(&h->serials, h->frames[fi].class_serial + 1ull);
    name = hp_map_get(&h->names, h->frames[fi].method);
    buf_adds(b, ", ");
    if (c != HP_NONE) {
      heap_put_name(b, h, c, 0);
      buf_addc(b, '.');
    }
    if (name != HP_NONE)
      term_escape(b, h->text + name, strlen(h->text + name), 0);
    return;
  }
  buf_adds(b, "no root");
}

/* ID (0x hex or decimal) or CLASS (its instance of the most retained
 * bytes): the object's index, or 0 after the error line. */
static uint32_t find_target(const struct hprof *h, const struct hp_graph *g,
                            const char *what)
{
  unsigned long long id;
  char *end;
  uint32_t c, best = 0;

  errno = 0;
  id = strtoull(what, &end, 0);
  if (!errno && *what && !*end) {
    uint32_t i = hprof_graph_index(g, id);

    if (i == HP_NONE) error_msg("no object 0x%llx in the dump", id);
    return i == HP_NONE ? 0 : i;
  }
  c = hprof_find_class(h, what);
  for (uint32_t i = 1; c != HP_NONE && i < g->n; i++)
    if (g->kind[i] != 0x20 && g->cls[i] == c && g->idom[i] != HP_NONE &&
        (!best || g->retained[i] > g->retained[best]))
      best = i;
  if (!best) {
    struct buf b = {0};

    term_escape(&b, what, strlen(what), 0);
    error_msg("no %s '%s' reachable in the dump",
              c == HP_NONE ? "class" : "instance of", b.p);
    buf_free(&b);
  }
  return best;
}

int heap_path(struct hprof *h, const struct hp_graph *g, int fd,
              const char *what, int json)
{
  uint32_t o = find_target(h, g, what), *path, n;
  uint64_t *ids;
  struct hp_hop *hop;
  struct buf b = {0};
  int rc;

  if (!o) return 1;
  if (hprof_shortest_path(g, o, &path, &n)) {
    error_msg("object 0x%" PRIx64 " is not reachable from a GC root",
              hp_graph_id(g, o));
    return 1;
  }
  /* path: super-root, the root object, ..., o; printed from o up. */
  ids = xmalloc((size_t)n * sizeof(*ids));
  hop = xmalloc((size_t)n * sizeof(*hop));
  for (uint32_t k = 1; k < n; k++) ids[k - 1] = hp_graph_id(g, path[k]);
  if ((rc = hprof_hops(h, fd, ids, n - 1, hop))) {
    error_msg("cannot read the path again: %s", h->why);
    free(ids);
    free(hop);
    free(path);
    return 1;
  }
  if (json) buf_adds(&b, "{\"path\": [");
  for (uint32_t k = n - 1; k >= 1; k--) {
    uint32_t i = path[k];
    const struct hp_hop *p = k + 1 < n ? &hop[k - 1] : NULL;
    struct buf name = {0}, field = {0}, root = {0};

    class_of(&name, h, g, i, json);
    if (p && p->index >= 0)
      buf_printf(&field, "[%" PRId64 "]", p->index);
    else if (p && p->what)
      buf_adds(&field, p->what);
    else if (p && p->name != HP_NONE)
      buf_adds(&field, h->text + p->name);
    if (k == 1) root_text(&root, h, g, fd, i);
    if (json) {
      struct json_obj jo;

      buf_adds(&b, k == n - 1 ? "\n  " : ",\n  ");
      json_open(&jo, &b, 1);
      json_str(&jo, "class", name.p, name.len);
      json_str(&jo, "field", field.len ? field.p : NULL, field.len);
      json_str(&jo, "root", root.len ? root.p : NULL, root.len);
      json_close(&jo);
      b.len--;
      buf_printf(&b, ", \"id\": \"0x%" PRIx64 "\"}", hp_graph_id(g, i));
    } else {
      buf_add(&b, name.p, name.len);
      if (field.len) {
        buf_adds(&b, p->is_static || field.p[0] == '[' ? "" : ".");
        if (p->is_static) buf_addc(&b, '.');
        term_escape(&b, field.p, field.len, 0);
        if (p->is_static) buf_adds(&b, " (static)");
      }
      buf_printf(&b, " 0x%" PRIx64 "\n", hp_graph_id(g, i));
      if (k == 1) {
        buf_adds(&b, "root: ");
        buf_add(&b, root.p, root.len);
        buf_addc(&b, '\n');
      }
    }
    buf_free(&name);
    buf_free(&field);
    buf_free(&root);
  }
  if (json) buf_adds(&b, "\n]}\n");
  heap_flush(&b);
  buf_free(&b);
  free(ids);
  free(hop);
  free(path);
  return 0;
}

enum { FOLD_DEPTH = 128 }; /* frames of a memory stack; deeper is cut */

/* A frame's name in source form ("java.lang.String[]", "long[][]"): ';'
 * separates frames in folded stacks. */
static void source_name(struct buf *b)
{
  static const char prim[] = "ZbooleanCcharFfloatDdoubleBbyteSshortIintJlong";
  size_t dims = 0, n;
  char *name, *p;

  while (dims < b->len && b->p[dims] == '[') dims++;
  if (!dims || dims == b->len) return;
  name = xstrndup(b->p + dims, b->len - dims);
  b->len = 0;
  if (name[0] == 'L' && (n = strlen(name)) > 2 && name[n - 1] == ';') {
    buf_add(b, name + 1, n - 2);
  } else if ((p = strchr(prim, name[0])) && name[0] && !name[1]) {
    for (p++; *p && !isupper((unsigned char)*p); p++) buf_addc(b, *p);
  } else {
    buf_adds(b, name);
  }
  while (dims--) buf_adds(b, "[]");
  for (size_t k = 0; k < b->len; k++)
    if (b->p[k] == ';') b->p[k] = ':';
  free(name);
}
/* frames of a memory stack; deeper is cut */

/* --folded and --svg: each reachable object's shallow bytes on the stack
 * of its dominators' classes (root kind first, a class repeated down a
 * chain once: a linked list is one frame), folded by core/fold, so a
 * frame's width is the retained size under it. The dominator tree is
 * walked depth first with an explicit stack. */
int heap_folded(const struct hprof *h, const struct hp_graph *g,
                const char *svg)
{
  uint32_t n = g->n, sp = 0;
  uint32_t *coff, *child;
  uint32_t *it = xmalloc(((size_t)n + 1) * sizeof(*it));
  uint32_t *stack = xmalloc(((size_t)n + 1) * sizeof(*stack));
  size_t *mark = xmalloc(((size_t)n + 1) * sizeof(*mark));
  uint8_t *rootkind = xzalloc(n);
  struct fold_opts fo = {0};
  struct fold *f;
  struct buf path = {0};
  const struct fold_stack *st;
  size_t ns;
  int rc = 0;

  for (uint32_t r = g->nroots; r--;)
    rootkind[g->roots[r].obj] = g->roots[r].kind;
  hprof_dom_children(g, &coff, &child);
  memcpy(it, coff, ((size_t)n + 1) * sizeof(*it));
  fo.gc_lo = fo.gc_hi = -1;
  f = fold_new(&fo);
  stack[sp++] = 0;
  mark[0] = 0;
  while (sp) {
    uint32_t v = stack[sp - 1];

    if (it[v] < coff[v + 1]) {
      uint32_t w = child[it[v]++];
      size_t before = path.len;
      struct buf frame = {0};
      const char *last;

      class_of(&frame, h, g, w, 2);
      source_name(&frame);
      if (!v) {
        buf_adds(&path,
                 rootkind[w] ? hprof_root_name(rootkind[w]) : "several roots");
        buf_addc(&path, ';');
        buf_add(&path, frame.p, frame.len);
      } else {
        last = memrchr(path.p, ';', path.len);
        last = last ? last + 1 : path.p;
        if (sp < FOLD_DEPTH &&
            ((size_t)(path.p + path.len - last) != frame.len ||
             memcmp(last, frame.p, frame.len))) {
          buf_addc(&path, ';');
          buf_add(&path, frame.p, frame.len);
        }
      }
      buf_free(&frame);
      mark[sp] = before;
      fold_add(f, path.p, path.len, (int64_t)hp_graph_shallow(g, w), 0);
      stack[sp++] = w;
      continue;
    }
    sp--;
    path.len = mark[sp];
  }
  ns = fold_result(f, &st);
  if (!svg) {
    struct buf b = {0};

    for (size_t i = 0; i < ns; i++) {
      term_escape(&b, st[i].key, st[i].len, 0);
      buf_printf(&b, " %" PRId64 "\n", st[i].value);
      if (b.len > 65536) heap_flush(&b);
    }
    heap_flush(&b);
    buf_free(&b);
  } else {
    struct flame_opts o = {
        "Heap: retained bytes", "bytes", 1200, 0.1, 0, 0, NULL, NULL};
    struct wfile w;

    if ((rc = wfile_open(&w, svg))) {
      errno_msg(rc, "cannot write '%s'", svg);
      rc = 1;
    } else if (flame_svg(w.f, st, ns, &o)) {
      wfile_abort(&w);
      error_msg("cannot write '%s'", svg);
      rc = 1;
    } else if ((rc = wfile_commit(&w))) {
      errno_msg(rc, "cannot write '%s'", svg);
      rc = 1;
    }
  }
  fold_free(f);
  buf_free(&path);
  free(coff);
  free(child);
  free(it);
  free(stack);
  free(mark);
  free(rootkind);
  return rc;
}
