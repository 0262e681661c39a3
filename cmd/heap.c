/* heap.c - read a heap dump: class histogram, retained sizes, paths to GC
 * roots, diffs, memory flame graphs
 *
 * The histogram is jmap -histo's table (JDK 8's header: the dump names no
 * modules, so there is no "(module)" column), sorted as HotSpot sorts it:
 * bytes down, then array classes first, then by name. Sizes are the JVM's
 * (core/hprof_size); whether references took 4 or 8 bytes is said on
 * stderr in one line. java.lang.Class's row counts one mirror per class
 * dump at java.lang.Class's field size: HotSpot adds each class's statics
 * and hidden fields to its mirror, which the dump does not show.
 * A dump cut short prints what was read, says where it ends, exit 1.
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "core/hprof.h"
#include "core/hprof_size.h"
#include "cmd/heap.h"

#define OPTS_FILE "specs/heap.opts"
#include "core/opt_table.h"

/* One dump, read once for its histogram. */
struct dump {
  const char *path;
  int fd;
  struct hprof h;
  struct hp_histo x;
  int dump_sizes; /* --dump-sizes */
  int taken;      /* fd is a dump heap_take took: read from its start */
  int want_graph; /* build the object graph in the same pass */
  struct hp_graph g;
  struct hp_gbuild *gb; /* the graph, until hprof_graph_finish */
};

/* "'path': what" on stderr, the path escaped (what is ours). */
static void say_file(const char *path, const char *what)
{
  struct buf b = {0};

  heap_progress_clear();
  term_escape(&b, path, strlen(path), 0);
  error_msg("'%s': %s", b.p ? b.p : "", what);
  buf_free(&b);
}

/* Read d->path's histogram pass. 0, or 1 after the error line (what was
 * read is kept: a cut dump still has its histogram). */
static int load(struct dump *d, int compressed)
{
  struct hin in;
  struct hp_visit v;
  int rc, gz;

  memset(&d->h, 0, sizeof(d->h));
  memset(&d->x, 0, sizeof(d->x));
  d->x.h = &d->h;
  d->h.compressed = compressed != 0;
  d->h.dump_sizes = d->dump_sizes;
  if (d->taken) {
    if (lseek(d->fd, 0, SEEK_SET) < 0) {
      perror_msg("cannot read %s", d->path);
      return 1;
    }
  } else {
    d->fd = open(d->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  }
  if (d->fd < 0) {
    perror_msg("cannot open '%s'", d->path);
    return 1;
  }
  if ((rc = hin_open(&in, d->fd))) {
    errno_msg(rc, "cannot read '%s'", d->path);
    hin_close(&in);
    return 1;
  }
  if (d->want_graph)
    d->gb = hprof_graph_start(&d->g, &d->x, &v);
  else
    hprof_histo_visit(&d->x, &v);
  rc = hprof_scan(&d->h, &in, &v);
  gz = in.gz; /* hin_close clears it */
  hin_close(&in);
  hprof_histo_finish(&d->x);
  if (rc || !d->h.complete) {
    hprof_graph_abandon(d->gb);
    d->gb = NULL;
  }
  if (rc) {
    char msg[400];

    snprintf(msg, sizeof(msg),
             "%s at byte %" PRIu64 " of %s (%" PRIu64 " objects read)",
             d->h.why, d->h.at, gz ? "the inflated data" : "the file",
             d->x.objects);
    say_file(d->path, msg);
    return 1;
  }
  if (!d->h.complete) say_file(d->path, "no heap dump records in it");
  return !d->h.complete;
}

static void report(struct dump *d)
{
  heap_progress_clear();
  if (d->h.unknown_class)
    warn_msg("%" PRIu64
             " objects name a class id the dump does not hold: left out",
             d->h.unknown_class);
  if (d->h.dup_classes)
    warn_msg("%" PRIu64 " classes dumped twice: the first kept",
             d->h.dup_classes);
}

static const struct hprof *sort_h;

static int by_bytes(const void *a, const void *b)
{
  const struct hp_class *x = &sort_h->cls[*(const uint32_t *)a];
  const struct hp_class *y = &sort_h->cls[*(const uint32_t *)b];
  char nx[1024], ny[1024];

  if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
  hprof_class_name(sort_h, *(const uint32_t *)a, nx, sizeof(nx));
  hprof_class_name(sort_h, *(const uint32_t *)b, ny, sizeof(ny));
  if ((nx[0] == '[') != (ny[0] == '[')) return nx[0] == '[' ? -1 : 1;
  return strcmp(nx, ny);
}

/* The classes with instances, sorted as jmap sorts them; *n of them. */
static uint32_t *sorted(const struct hprof *h, uint32_t *n)
{
  uint32_t *row = xmalloc((size_t)(h->ncls + 1) * sizeof(*row));

  *n = 0;
  for (uint32_t c = 0; c < h->ncls; c++)
    if (h->cls[c].count) row[(*n)++] = c;
  sort_h = h;
  qsort(row, *n, sizeof(*row), by_bytes);
  return row;
}

static void histogram(const struct hprof *h, int json)
{
  uint32_t n, *row = sorted(h, &n);
  uint64_t count = 0, bytes = 0;
  struct buf b = {0};

  if (json)
    buf_adds(&b, "{\"classes\": [");
  else
    buf_adds(&b, " num     #instances         #bytes  class name\n"
                 "----------------------------------------------\n");
  for (uint32_t i = 0; i < n; i++) {
    const struct hp_class *k = &h->cls[row[i]];

    count += (uint64_t)k->count;
    bytes += (uint64_t)k->bytes;
    if (json) {
      struct json_obj o;
      char name[1024];

      hprof_class_name(h, row[i], name, sizeof(name));
      buf_adds(&b, i ? ",\n  " : "\n  ");
      json_open(&o, &b, 1);
      json_strz(&o, "name", name);
      json_int(&o, "instances", k->count);
      json_int(&o, "bytes", k->bytes);
      json_close(&o);
    } else {
      buf_printf(&b, "%4" PRIu32 ": %13" PRId64 " %14" PRId64 "  ", i + 1,
                 k->count, k->bytes);
      heap_put_name(&b, h, row[i], 0);
      buf_addc(&b, '\n');
    }
    if (b.len > 65536) heap_flush(&b);
  }
  if (json)
    buf_printf(&b, "\n], \"instances\": %" PRIu64 ", \"bytes\": %" PRIu64 "}\n",
               count, bytes);
  else
    buf_printf(&b, "Total%14" PRIu64 "%15" PRIu64 "\n", count, bytes);
  heap_flush(&b);
  buf_free(&b);
  free(row);
}

/* --compressed-refs: yes, no, or from the heap's size (-1 here). */
static void say_refs(struct dump *d, int given)
{
  uint64_t bytes = 0;

  heap_progress_clear();
  for (uint32_t c = 0; c < d->h.ncls; c++) bytes += (uint64_t)d->h.cls[c].bytes;
  if (given < 0 && bytes >= (32ull << 30)) {
    d->h.compressed = 0;
    for (uint32_t c = 0; c < d->h.ncls; c++)
      d->h.cls[c].count = d->h.cls[c].bytes = 0;
  }
  if (given < 0)
    info_msg("references counted as %d bytes (%s: the objects take %" PRIu64
             " MB; --compressed-refs=%s to change)",
             d->h.compressed ? 4 : 8,
             d->h.compressed ? "compressed oops, under 32 GB" : "32 GB or more",
             bytes >> 20, d->h.compressed ? "no" : "yes");
}

/* One class of a dump by name, for --diff. */
struct row {
  char *name;
  int64_t count, bytes;
};

static int by_name(const void *a, const void *b)
{
  return strcmp(((const struct row *)a)->name, ((const struct row *)b)->name);
}

static struct row *rows_of(const struct hprof *h, uint32_t *n)
{
  struct row *r = xmalloc(((size_t)h->ncls + 1) * sizeof(*r));
  char name[1024];

  *n = 0;
  for (uint32_t c = 0; c < h->ncls; c++) {
    if (!h->cls[c].count) continue;
    hprof_class_name(h, c, name, sizeof(name));
    r[*n].name = xstrdup(name);
    r[*n].count = h->cls[c].count;
    r[(*n)++].bytes = h->cls[c].bytes;
  }
  qsort(r, *n, sizeof(*r), by_name);
  return r;
}

struct change {
  const char *name;
  int64_t count, bytes, dcount, dbytes;
};

static int by_growth(const void *a, const void *b)
{
  const struct change *x = a, *y = b;

  if (x->dbytes != y->dbytes) return x->dbytes > y->dbytes ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* --diff OLD NEW: per class the instances and bytes in NEW and their
 * change since OLD, by growth in bytes; unchanged classes left out. */
static void diff(const struct hprof *old, const struct hprof *now, int json)
{
  uint32_t na, nb, a = 0, b = 0, n = 0;
  struct row *ra = rows_of(old, &na), *rb = rows_of(now, &nb);
  struct change *ch = xmalloc(((size_t)na + nb + 1) * sizeof(*ch));
  struct buf out = {0};

  while (a < na || b < nb) {
    int c = a == na ? 1 : b == nb ? -1 : strcmp(ra[a].name, rb[b].name);
    struct change *x = &ch[n];

    x->name = c > 0 ? rb[b].name : ra[a].name;
    x->count = c < 0 ? 0 : rb[b].count;
    x->bytes = c < 0 ? 0 : rb[b].bytes;
    x->dcount = x->count - (c > 0 ? 0 : ra[a].count);
    x->dbytes = x->bytes - (c > 0 ? 0 : ra[a].bytes);
    a += c <= 0;
    b += c >= 0;
    n += x->dcount || x->dbytes;
  }
  qsort(ch, n, sizeof(*ch), by_growth);
  if (json)
    buf_adds(&out, "{\"classes\": [");
  else
    buf_adds(&out, " num     #instances         #bytes     #instances+         "
                   "#bytes+  class name\n"
                   "-----------------------------------------------------------"
                   "-------------------\n");
  for (uint32_t i = 0; i < n; i++) {
    if (json) {
      struct json_obj o;

      buf_adds(&out, i ? ",\n  " : "\n  ");
      json_open(&o, &out, 1);
      json_strz(&o, "name", ch[i].name);
      json_int(&o, "instances", ch[i].count);
      json_int(&o, "bytes", ch[i].bytes);
      json_int(&o, "instances_change", ch[i].dcount);
      json_int(&o, "bytes_change", ch[i].dbytes);
      json_close(&o);
    } else {
      buf_printf(&out,
                 "%4" PRIu32 ": %13" PRId64 " %14" PRId64 " %+15" PRId64
                 " %+15" PRId64 "  ",
                 i + 1, ch[i].count, ch[i].bytes, ch[i].dcount, ch[i].dbytes);
      term_escape(&out, ch[i].name, strlen(ch[i].name), 0);
      buf_addc(&out, '\n');
    }
    if (out.len > 65536) heap_flush(&out);
  }
  if (json) buf_adds(&out, "\n]}\n");
  heap_flush(&out);
  buf_free(&out);
  for (uint32_t i = 0; i < na; i++) free(ra[i].name);
  for (uint32_t i = 0; i < nb; i++) free(rb[i].name);
  free(ra);
  free(rb);
  free(ch);
}

/* The views that need the object graph. 0, or 1 after the error line. */
static int graph(struct dump *d, const struct args *a)
{
  struct hp_graph g;
  int rc = hprof_graph_finish(d->gb, d->fd);

  d->gb = NULL;
  g = d->g;

  if (rc) {
    char msg[400];

    snprintf(msg, sizeof(msg), "%s at byte %" PRIu64, d->h.why, d->h.at);
    say_file(d->path, msg);
    hprof_graph_free(&g);
    return 1;
  }
  heap_progress_clear();
  if (g.dangling)
    warn_msg("%" PRIu64
             " references to ids no object in the dump has: left out",
             g.dangling);
  if (g.dup_ids)
    warn_msg("%" PRIu64 " objects with an id already seen: the first kept",
             g.dup_ids);
  if (g.bad_fields)
    warn_msg("%" PRIu64
             " instances whose field bytes differ from their class's",
             g.bad_fields);
  g.keep_edges = a->count[OPT_path] > 0;
  hprof_dominators(&g);
  if (a->count[OPT_folded] || a->val[OPT_svg])
    rc = heap_folded(&d->h, &g, a->count[OPT_folded] ? NULL : a->val[OPT_svg]);
  if (a->count[OPT_path])
    rc = heap_path(&d->h, &g, d->fd, a->val[OPT_path], a->count[OPT_json] > 0);
  if (a->count[OPT_retained])
    heap_retained(&d->h, &g, (int)a->num[OPT_top], a->count[OPT_json] > 0);
  hprof_graph_free(&g);
  return rc;
}

int heap_main(int argc, char **argv)
{
  struct args a;
  struct dump d = {0};
  char what[PATH_MAX + 64];
  int rc, given;

  if ((rc = opt_parse(opt_rows, opt_usage, 0, argc, argv, &a)) >= 0) return rc;
  if (isatty(2)) heap_progress_start();
  if (a.count[OPT_diff]) {
    struct dump old = {0};

    if (a.argc != 2) return usage_error("--diff takes two dumps: OLD NEW");
    given = a.count[OPT_compressed_refs] ? a.word[OPT_compressed_refs] == 0 : 1;
    old.path = a.argv[0];
    d.path = a.argv[1];
    old.dump_sizes = d.dump_sizes = a.count[OPT_dump_sizes] > 0;
    rc = load(&old, given) | load(&d, given);
    report(&old);
    report(&d);
    if (old.h.idsize && d.h.idsize) diff(&old.h, &d.h, a.count[OPT_json] > 0);
    heap_progress_clear();
    if (old.fd >= 0) close(old.fd);
    if (d.fd >= 0) close(d.fd);
    hprof_free(&old.h);
    hprof_free(&d.h);
    return rc ? 1 : jt_status;
  }
  if (a.argc != 1)
    return usage_error("expected one dump FILE, or a JVM's pid or main class");
  given = a.count[OPT_compressed_refs] ? a.word[OPT_compressed_refs] == 0 : -1;
  d.path = a.argv[0];
  if (heap_is_target(d.path)) {
    if (heap_take(d.path, a.val[OPT_output], &d.fd, what, sizeof(what)))
      return 1;
    d.path = what;
    d.taken = 1;
  } else if (a.val[OPT_output]) {
    return usage_error("-o FILE keeps the dump of a JVM: give its pid or "
                       "main class, not a dump");
  }
  d.dump_sizes = a.count[OPT_dump_sizes] > 0;
  d.want_graph =
      !a.count[OPT_strings] && (a.count[OPT_retained] || a.count[OPT_path] ||
                                a.count[OPT_folded] || a.val[OPT_svg]);
  rc = load(&d, given != 0);
  if (given < 0 && !rc) {
    say_refs(&d, given);
    if (!d.h.compressed) {
      if (!d.taken) close(d.fd);
      hprof_graph_abandon(d.gb);
      d.gb = NULL;
      hprof_free(&d.h);
      rc = load(&d, 0);
    }
  }
  report(&d);
  if (!rc && a.count[OPT_strings]) {
    rc = heap_strings(&d.h, d.fd, (int)a.num[OPT_top], a.count[OPT_json] > 0);
  } else if (!rc && (a.count[OPT_retained] || a.count[OPT_path] ||
                     a.count[OPT_folded] || a.val[OPT_svg])) {
    rc = graph(&d, &a);
  } else if (d.h.idsize) {
    histogram(&d.h, a.count[OPT_json] > 0);
  }
  heap_progress_clear();
  hprof_graph_abandon(d.gb);
  if (d.fd >= 0) close(d.fd);
  hprof_free(&d.h);
  return rc ? 1 : jt_status;
}
