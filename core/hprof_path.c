/* hprof_path.c - a path from a GC root, named (hprof_graph.h): the
 * shortest one through the graph's references, then what each hop is
 * (a field, an index, a static) and whose thread a root is, both read
 * from the dump once more.
 */
#include "core/jvmtool.h"
#include "core/hprof_graph.h"

int hprof_shortest_path(const struct hp_graph *g, uint32_t obj, uint32_t **path,
                        uint32_t *n)
{
  uint32_t *from = xmalloc((size_t)g->n * sizeof(*from));
  uint32_t *queue = xmalloc((size_t)g->n * sizeof(*queue));
  uint32_t *rootobj = xmalloc(((size_t)g->nroots + 1) * sizeof(*rootobj));
  uint32_t head = 0, tail = 0, len = 0;

  for (uint32_t r = 0; r < g->nroots; r++) rootobj[r] = g->roots[r].obj;
  for (uint32_t i = 0; i < g->n; i++) from[i] = HP_NONE;
  from[0] = 0;
  queue[tail++] = 0;
  while (head < tail && from[obj] == HP_NONE) {
    uint32_t v = queue[head++];
    uint64_t m;
    const uint32_t *s = hp_graph_succ(g, rootobj, v, &m);

    for (uint64_t k = 0; k < m; k++)
      if (from[s[k]] == HP_NONE) {
        from[s[k]] = v;
        queue[tail++] = s[k];
      }
  }
  free(rootobj);
  if (from[obj] == HP_NONE) {
    free(from);
    free(queue);
    return -ENOENT;
  }
  for (uint32_t v = obj; v; v = from[v]) queue[len++] = v;
  queue[len++] = 0;
  *path = xmalloc((size_t)len * sizeof(**path));
  for (uint32_t i = 0; i < len; i++) (*path)[i] = queue[len - 1 - i];
  *n = len;
  free(from);
  free(queue);
  return 0;
}

const char *hprof_root_name(int kind)
{
  switch (kind) {
  case 0x01:
    return "JNI global";
  case 0x02:
    return "JNI local";
  case 0x03:
    return "Java frame";
  case 0x04:
    return "native stack";
  case 0x05:
    return "sticky class";
  case 0x06:
    return "thread block";
  case 0x07:
    return "monitor used";
  case 0x08:
    return "thread object";
  default:
    return "unknown root";
  }
}

struct hops {
  struct hprof *h;
  struct hp_map at; /* id -> k */
  const uint64_t *ids;
  uint32_t n, cur; /* cur: k of the current object array, or HP_NONE */
  struct hp_hop *out;
};

static void hop_class(void *ctx, uint32_t c)
{
  struct hops *x = ctx;
  const struct hp_class *k = &x->h->cls[c];
  uint32_t i = hp_map_get(&x->at, k->id);
  uint64_t next;

  if (i == HP_NONE) return;
  next = x->ids[i + 1];
  x->out[i].cls = c;
  for (uint32_t s = 0; s < k->nstatics; s++)
    if (x->h->sref[k->statics + s] == next) {
      x->out[i].name = hp_map_get(&x->h->names, x->h->sname[k->statics + s]);
      x->out[i].is_static = 1;
      return;
    }
  if (k->super == next)
    x->out[i].what = "super";
  else if (k->loader == next)
    x->out[i].what = "loader";
}

static void hop_instance(void *ctx, uint64_t id, uint64_t cls,
                         const unsigned char *v, uint32_t n)
{
  struct hops *x = ctx;
  struct hprof *h = x->h;
  uint32_t i = hp_map_get(&x->at, id), at, steps = 0, pos = 0;

  if (i == HP_NONE) return;
  for (at = hp_map_get(&h->classes, cls); at != HP_NONE && steps++ <= h->ncls;
       at = hp_super(h, at)) {
    const struct hp_class *k = &h->cls[at];

    for (uint32_t f = 0; f < k->nfields; f++) {
      int t = h->ftype[k->fields + f], sz = hp_type_size(t, h->idsize);

      if (pos + (uint32_t)sz > n) return;
      if (t == HP_OBJECT && hp_id(v + pos, h->idsize) == x->ids[i + 1]) {
        x->out[i].cls = at;
        x->out[i].name = hp_map_get(&h->names, h->fname[k->fields + f]);
        return;
      }
      pos += (uint32_t)sz;
    }
  }
}

static void hop_array(void *ctx, uint64_t id, uint64_t cls, uint32_t count)
{
  struct hops *x = ctx;

  x->cur = hp_map_get(&x->at, id);
}

static void hop_elements(void *ctx, const unsigned char *ids, uint32_t first,
                         uint32_t n)
{
  struct hops *x = ctx;

  if (x->cur == HP_NONE || x->out[x->cur].index >= 0) return;
  for (uint32_t k = 0; k < n; k++)
    if (hp_id(ids + (size_t)k * x->h->idsize, x->h->idsize) ==
        x->ids[x->cur + 1]) {
      x->out[x->cur].index = (int64_t)first + k;
      return;
    }
}

int hprof_hops(struct hprof *h, int fd, const uint64_t *ids, uint32_t n,
               struct hp_hop *out)
{
  struct hops x = {h, {0}, ids, n, HP_NONE, out};
  struct hp_visit v = {0};
  struct hin in;
  int rc;

  for (uint32_t k = 0; k + 1 < n; k++) {
    out[k].cls = out[k].name = HP_NONE;
    out[k].index = -1;
    out[k].is_static = 0;
    out[k].what = NULL;
    hp_map_add(&x.at, ids[k], k);
  }
  v.ctx = &x;
  v.klass = hop_class;
  v.instance = hop_instance;
  v.objarray = hop_array;
  v.elements = hop_elements;
  if (lseek(fd, 0, SEEK_SET) < 0) {
    hp_map_free(&x.at);
    return -errno;
  }
  if (!(rc = hin_open(&in, fd))) rc = hprof_scan(h, &in, &v);
  hin_close(&in);
  hp_map_free(&x.at);
  return rc;
}

/* hprof_thread_name's passes: the Thread's name field, then the String's
 * coder and its array's bytes. */
struct tname {
  struct hprof *h;
  uint32_t thread_cls;    /* java.lang.Thread */
  uint32_t string_cls;    /* java.lang.String */
  uint64_t want;          /* pass 1: the Thread; pass 2: the String */
  uint64_t array;         /* pass 2: the String's array */
  uint64_t string;        /* pass 1's answer: the name's String */
  int coder, got;         /* pass 2: coder (0 Latin-1, 1 UTF-16; -1 none) */
  int type;               /* the array's element type */
  unsigned char raw[512]; /* its first bytes */
  uint32_t nraw;
};

/* The value of field fname (type t, declared by class decl) in an
 * instance of class c's field bytes v (n of them): its offset, or
 * HP_NONE. */
static uint32_t field_at(const struct hprof *h, uint32_t c, uint32_t decl,
                         const char *fname, int type, uint32_t n)
{
  uint32_t at, steps = 0, pos = 0;

  for (at = c; at != HP_NONE && steps++ <= h->ncls; at = hp_super(h, at)) {
    const struct hp_class *k = &h->cls[at];

    for (uint32_t f = 0; f < k->nfields; f++) {
      int t = h->ftype[k->fields + f], sz = hp_type_size(t, h->idsize);
      uint32_t name = hp_map_get(&h->names, h->fname[k->fields + f]);

      if (pos + (uint32_t)sz > n) return HP_NONE;
      if (at == decl && t == type && name != HP_NONE &&
          !strcmp(h->text + name, fname))
        return pos;
      pos += (uint32_t)sz;
    }
  }
  return HP_NONE;
}

static void tn_instance(void *ctx, uint64_t id, uint64_t cls,
                        const unsigned char *v, uint32_t n)
{
  struct tname *x = ctx;
  struct hprof *h = x->h;
  uint32_t c, off;

  if (id != x->want || !id) return;
  c = hp_map_get(&h->classes, cls);
  if (!x->array) { /* pass 1: the Thread */
    off = field_at(h, c, x->thread_cls, "name", HP_OBJECT, n);
    if (off != HP_NONE) x->string = hp_id(v + off, h->idsize);
    return;
  }
  off = field_at(h, c, x->string_cls, "coder", HP_BYTE, n);
  x->coder = off == HP_NONE ? -1 : v[off];
}

static void tn_array(void *ctx, uint64_t id, int type, uint32_t count,
                     const unsigned char *v)
{
  struct tname *x = ctx;
  size_t bytes = (size_t)count * (type == HP_CHAR ? 2 : 1);

  if (id != x->array || !v || x->got) return;
  x->got = 1;
  x->type = type;
  x->nraw = (uint32_t)(bytes < sizeof(x->raw) ? bytes : sizeof(x->raw));
  memcpy(x->raw, v, x->nraw);
}

static int tn_pass(struct tname *x, int fd)
{
  struct hp_visit v = {0};
  struct hin in;
  int rc;

  v.ctx = x;
  v.instance = tn_instance;
  v.primarray = tn_array;
  v.want_prim = 1;
  if (lseek(fd, 0, SEEK_SET) < 0) return -errno;
  if (!(rc = hin_open(&in, fd))) rc = hprof_scan(x->h, &in, &v);
  hin_close(&in);
  return rc;
}

/* UTF-8 of code unit u into out (at least 3 bytes free); surrogates '?'. */
static size_t put_unit(char *out, unsigned u)
{
  if (u < 0x80) {
    out[0] = (char)u;
    return 1;
  }
  if (u < 0x800) {
    out[0] = (char)(0xc0 | u >> 6);
    out[1] = (char)(0x80 | (u & 0x3f));
    return 2;
  }
  if (u >= 0xd800 && u < 0xe000) {
    out[0] = '?';
    return 1;
  }
  out[0] = (char)(0xe0 | u >> 12);
  out[1] = (char)(0x80 | ((u >> 6) & 0x3f));
  out[2] = (char)(0x80 | (u & 0x3f));
  return 3;
}

int hprof_thread_name(struct hprof *h, const struct hp_graph *g, int fd,
                      uint32_t serial, char *out, size_t n)
{
  struct tname x = {0};
  uint32_t t = HP_NONE, s;
  size_t len = 0;
  int rc;

  if (n < 8 || !g->off) return -ENOENT;
  for (uint32_t r = 0; r < g->nroots && t == HP_NONE; r++)
    if (g->roots[r].kind == 0x08 && g->roots[r].thread == serial)
      t = g->roots[r].obj;
  x.h = h;
  x.thread_cls = hprof_find_class(h, "java.lang.Thread");
  x.string_cls = hprof_find_class(h, "java.lang.String");
  if (t == HP_NONE || x.thread_cls == HP_NONE || x.string_cls == HP_NONE)
    return -ENOENT;
  x.want = hp_graph_id(g, t);
  if ((rc = tn_pass(&x, fd))) return rc;
  s = hprof_graph_index(g, x.string);
  if (s == HP_NONE || g->cls[s] != x.string_cls) return -ENOENT;
  /* the String's one reference is its array */
  for (uint32_t k = g->off[s]; k < g->off[s + 1] && !x.array; k++)
    if (g->kind[g->edge[k]] == 0x23) x.array = hp_graph_id(g, g->edge[k]);
  if (!x.array) return -ENOENT;
  x.want = x.string;
  x.coder = -1;
  if ((rc = tn_pass(&x, fd))) return rc;
  if (!x.got || (x.type != HP_BYTE && x.type != HP_CHAR)) return -ENOENT;
  for (uint32_t i = 0; len + 4 < n;) {
    unsigned u;

    if (x.type == HP_CHAR) { /* HPROF writes chars big-endian */
      if (i + 2 > x.nraw) break;
      u = (unsigned)x.raw[i] << 8 | x.raw[i + 1];
      i += 2;
    } else if (x.coder == 1) { /* UTF-16 as HotSpot stores it: little */
      if (i + 2 > x.nraw) break;
      u = (unsigned)x.raw[i + 1] << 8 | x.raw[i];
      i += 2;
    } else {
      if (i >= x.nraw) break;
      u = x.raw[i++];
    }
    len += put_unit(out + len, u);
  }
  out[len] = 0;
  return 0;
}
