/* heap.c - a JVM's memory pools, collectors, GC time and allocation
 * (heap.h), by specs/prom_map.def's rules */
#include "core/jvmtool.h"
#include "core/heap.h"
#include "core/perfdata.h"
#include "core/vm.h"
#include <math.h>

enum { HEAP, NONHEAP };
enum {
  MAX_SPACE,
  MAX_UNDEFINED,
  MAX_PS_EDEN,
  MAX_COMMITTED,
  MAX_CLASS_SPACE,
  MAX_METASPACE
};
enum { HEAP_SUM, HEAP_SPACE, HEAP_PS };

static const struct {
  const char *family, *perf, *mx;
  int jdk;
} gc_map[] = {
#define GC(family, perf, mx, jdk) {family, perf, mx, jdk},
#include "specs/prom_map.def"
};

static const struct {
  const char *family, *counter;
} pad_map[] = {
#define PAD(family, counter) {family, counter},
#include "specs/prom_map.def"
};

static const struct {
  const char *family, *prefix, *name;
  int area, max;
} pool_map[] = {
#define POOL(family, prefix, name, area, max) {family, prefix, name, area, max},
#include "specs/prom_map.def"
};

static const struct {
  const char *family;
  int rule;
  const char *prefix;
} heap_map[] = {
#define HEAP(family, rule, prefix) {family, rule, prefix},
#include "specs/prom_map.def"
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static double lval(const struct perfdata *pd, const char *name, int *ok)
{
  const struct pd_counter *c = pd_find(pd, name);

  if (!c || c->type != 'J') {
    *ok = 0;
    return 0;
  }
  *ok = 1;
  return (double)pd_long(pd, c);
}

/* prefix.field's value; *ok 0 when there is none. */
static double field(const struct perfdata *pd, const char *prefix,
                    const char *f, int *ok)
{
  char name[128];

  snprintf(name, sizeof(name), "%s.%s", prefix, f);
  return lval(pd, name, ok);
}

/* gc_map's row of collector i's name, or -1. */
static int gc_row(const struct perfdata *pd, int i)
{
  char name[64];
  const struct pd_counter *c;
  const char *s;
  size_t n;

  snprintf(name, sizeof(name), "sun.gc.collector.%d.name", i);
  if (!(c = pd_find(pd, name)) || c->type != 'B') return -1;
  n = pd_string(pd, c, &s);
  for (size_t k = 0; k < COUNT(gc_map); k++)
    if (strlen(gc_map[k].perf) == n && !memcmp(gc_map[k].perf, s, n))
      return (int)k;
  return -1;
}

/* The JVM's family (prom_map.def): the first collector a row names. */
static const char *family(const struct perfdata *pd)
{
  for (int i = 0; i < HEAP_MAX_GCS; i++) {
    int k = gc_row(pd, i);

    if (k >= 0) return gc_map[k].family;
  }
  return "";
}

static double pad(const struct perfdata *pd, const char *fam)
{
  int ok;

  for (size_t i = 0; i < COUNT(pad_map); i++)
    if (!strcmp(pad_map[i].family, fam)) {
      double v = lval(pd, pad_map[i].counter, &ok);

      return ok && v > 0 ? v : 0;
    }
  return 0;
}

/* The last -XX:MaxMetaspaceSize=N[kmgt] of java.rt.vmArgs, in bytes, or
 * -1 (the flag's default: no max). */
static double max_metaspace(const struct perfdata *pd)
{
  static const char flag[] = "-XX:MaxMetaspaceSize=";
  const struct pd_counter *c = pd_find(pd, "java.rt.vmArgs");
  const char *s, *p, *end;
  size_t n;
  double v = -1;

  if (!c || c->type != 'B') return -1;
  n = pd_string(pd, c, &s);
  for (p = s, end = s + n; p < end;) {
    const char *t = p;
    /* the counter's bytes only: a file need not end them with a NUL */
    const char *sp = memchr(p, ' ', (size_t)(end - p));
    size_t k = sp ? (size_t)(sp - p) : (size_t)(end - p), d = 0;
    double x = 0;

    p += k + 1;
    if (k <= sizeof(flag) - 1 || memcmp(t, flag, sizeof(flag) - 1)) continue;
    t += sizeof(flag) - 1;
    k -= sizeof(flag) - 1;
    while (d < k && d < 20 && isdigit((unsigned char)t[d]))
      x = x * 10 + (t[d++] - '0');
    if (!d || k - d > 1) continue;
    if (k - d == 1) {
      static const char units[] = "kKmMgGtT";
      const char *u = strchr(units, t[d]);

      if (!u || !t[d]) continue;
      for (long i = (u - units) / 2; i >= 0; i--) x *= 1024;
    }
    v = x;
  }
  return v;
}

size_t heap_pools(const struct perfdata *pd, struct heap_pool *out)
{
  const char *fam = family(pd);
  double padv = pad(pd, fam);
  size_t n = 0;

  for (size_t i = 0; i < COUNT(pool_map) && n < HEAP_MAX_POOLS; i++) {
    const char *pre = pool_map[i].prefix;
    struct heap_pool *p = &out[n];
    int ok, ok2;
    double pv;

    if (pool_map[i].family[0] && strcmp(pool_map[i].family, fam)) continue;
    p->used = field(pd, pre, "used", &ok);
    if (!ok) continue;
    pv = pool_map[i].family[0] ? padv : 0; /* the family's own spaces */
    p->committed = field(pd, pre, "capacity", &ok) - pv;
    if (!ok || p->committed < 0) p->committed = 0;
    if (strstr(pre, ".space.1")) /* one survivor pool: s0 and s1 in use */
      p->used += lval(pd, "sun.gc.generation.0.space.2.used", &ok);
    switch (pool_map[i].max) {
    case MAX_CLASS_SPACE:
      p->max = field(pd, pre, "maxCapacity", &ok);
      if (!ok || p->max <= 0) continue;
      break;
    case MAX_SPACE:
      p->max = field(pd, pre, "maxCapacity", &ok) - pv;
      if (!ok || p->max < 0) p->max = -1;
      break;
    case MAX_PS_EDEN:
      p->max = lval(pd, "sun.gc.generation.0.maxCapacity", &ok) -
               lval(pd, "sun.gc.generation.0.space.1.capacity", &ok2) -
               lval(pd, "sun.gc.generation.0.space.2.capacity", &ok2);
      if (!ok || p->max < 0) p->max = -1;
      break;
    case MAX_COMMITTED:
      p->max = p->committed;
      break;
    case MAX_METASPACE:
      p->max = max_metaspace(pd);
      break;
    default:
      p->max = -1;
    }
    p->name = pool_map[i].name;
    p->nonheap = pool_map[i].area == NONHEAP;
    n++;
  }
  return n;
}

/* The heap's max by the family's HEAP row, its pools p[0..n) given. */
static double heap_max(const struct perfdata *pd, const struct heap_pool *p,
                       size_t n, double committed)
{
  const char *fam = family(pd);
  double v = 0, young, old, surv;
  int ok, ok2, ok3;

  for (size_t i = 0; i < COUNT(heap_map); i++) {
    if (strcmp(heap_map[i].family, fam)) continue;
    switch (heap_map[i].rule) {
    case HEAP_SPACE:
      v = field(pd, heap_map[i].prefix, "maxCapacity", &ok) - pad(pd, fam);
      return ok && v >= 0 ? v : NAN;
    case HEAP_PS:
      young = lval(pd, "sun.gc.generation.0.maxCapacity", &ok);
      old = lval(pd, "sun.gc.generation.1.maxCapacity", &ok2);
      surv = lval(pd, "sun.gc.generation.0.space.1.maxCapacity", &ok3);
      if (!ok || !ok2 || !ok3) return NAN;
      v = young + old - surv;
      return v > committed ? v : committed;
    default: /* HEAP_SUM */
      for (size_t k = 0; k < n; k++) {
        if (p[k].nonheap) continue;
        if (p[k].max < 0) return -1;
        v += p[k].max;
      }
      return v;
    }
  }
  return NAN;
}

size_t heap_area(const struct perfdata *pd, int nonheap, double v[3])
{
  struct heap_pool p[HEAP_MAX_POOLS];
  size_t n = heap_pools(pd, p), k = 0;
  int undefined = 0;

  v[0] = v[1] = 0;
  v[2] = NAN;
  for (size_t i = 0; i < n; i++) {
    if (p[i].nonheap != !!nonheap) continue;
    v[0] += p[i].used;
    v[1] += p[i].committed;
    undefined |= p[i].max < 0;
    k++;
  }
  if (!k) return 0;
  if (nonheap) /* the code cache's max is not in PerfData */
    v[2] = undefined ? -1 : NAN;
  else
    v[2] = heap_max(pd, p, n, v[1]);
  return k;
}

size_t heap_collectors(const struct perfdata *pd, struct heap_gc *out)
{
  int ok, jdk = vm_java_feature(pd);
  double hz = lval(pd, "sun.os.hrt.frequency", &ok);
  size_t n = 0;

  if (!ok) hz = 0;
  for (int i = 0; i < HEAP_MAX_GCS; i++) {
    char name[64];
    int k = gc_row(pd, i), okc, okt;
    double cnt, t;

    if (k < 0 || !gc_map[k].mx[0] || (jdk && jdk < gc_map[k].jdk)) continue;
    snprintf(name, sizeof(name), "sun.gc.collector.%d.invocations", i);
    cnt = lval(pd, name, &okc);
    snprintf(name, sizeof(name), "sun.gc.collector.%d.time", i);
    t = lval(pd, name, &okt);
    if (!okc) continue;
    for (size_t m = 0; m < n; m++) /* a collector named twice: the first */
      if (!strcmp(out[m].name, gc_map[k].mx)) okc = 0;
    if (!okc) continue;
    out[n].name = gc_map[k].mx;
    out[n].count = cnt;
    out[n].seconds = okt && hz > 0 ? t / hz : -1;
    n++;
  }
  return n;
}

int heap_gc_seconds(const struct perfdata *pd, double *secs)
{
  int ok;
  double hz = lval(pd, "sun.os.hrt.frequency", &ok), t = 0;

  *secs = 0;
  if (!ok || hz <= 0) return -ENOENT;
  for (int i = 0; i < 16; i++) {
    char name[64];

    snprintf(name, sizeof(name), "sun.gc.collector.%d.time", i);
    t += lval(pd, name, &ok);
  }
  *secs = t / hz;
  return 0;
}
void heap_eden(const struct perfdata *pd, struct heap_eden *e)
{
  int a, b, c;

  e->used = lval(pd, "sun.gc.generation.0.space.0.used", &a);
  e->capacity = lval(pd, "sun.gc.generation.0.space.0.capacity", &b);
  e->young_gcs = (int64_t)lval(pd, "sun.gc.collector.0.invocations", &c);
  e->ok = a && b && c;
}

double heap_allocated(const struct heap_eden *a, const struct heap_eden *b)
{
  int64_t k;
  double cap_a, cap_b;

  if (!a->ok || !b->ok || b->young_gcs < a->young_gcs) return -1;
  k = b->young_gcs - a->young_gcs;
  if (!k) return b->used >= a->used ? b->used - a->used : -1;
  cap_a = a->capacity > a->used ? a->capacity - a->used : 0;
  cap_b = b->capacity > 0 ? b->capacity : a->capacity;
  return cap_a + (double)(k - 1) * cap_b + b->used;
}
