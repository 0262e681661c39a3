/* heap.c - a JVM's memory pools, GC time and allocation (heap.h) */
#include "core/jvmtool.h"
#include "core/heap.h"
#include "core/perfdata.h"

static const struct {
  const char *kind, *prefix, *name, *area;
} pool_map[] = {
#define GC(perf, mx)
#define POOL(kind, prefix, name, area) {kind, prefix, name, area},
#include "specs/prom_map.def"
#undef GC
#undef POOL
};

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

/* The first word of collector 0's (or 2's) name: Serial, G1, Z, ... */
static void gc_kind(const struct perfdata *pd, char *kind, size_t len)
{
  kind[0] = 0;
  for (int i = 0; i < 4 && !kind[0]; i++) {
    char name[64];
    const struct pd_counter *c;
    const char *s;
    size_t n;

    snprintf(name, sizeof(name), "sun.gc.collector.%d.name", i);
    if (!(c = pd_find(pd, name))) continue;
    n = pd_string(pd, c, &s);
    n = strcspn(s, " ") < n ? strcspn(s, " ") : n;
    if (n < len) {
      memcpy(kind, s, n);
      kind[n] = 0;
    }
  }
}

size_t heap_pools(const struct perfdata *pd, struct heap_pool *out)
{
  char kind[32], name[96];
  size_t n = 0;

  gc_kind(pd, kind, sizeof(kind));
  for (size_t i = 0; i < sizeof(pool_map) / sizeof(pool_map[0]); i++) {
    const char *pre = pool_map[i].prefix;
    struct heap_pool *p = &out[n];
    int ok;

    if (n == HEAP_MAX_POOLS) break;
    if (pool_map[i].kind[0] && strcmp(pool_map[i].kind, kind)) continue;
    snprintf(name, sizeof(name), "%s.used", pre);
    p->used = lval(pd, name, &ok);
    if (!ok) continue;
    snprintf(name, sizeof(name), "%s.capacity", pre);
    p->committed = lval(pd, name, &ok);
    snprintf(name, sizeof(name), "%s.maxCapacity", pre);
    p->max = lval(pd, name, &ok);
    if (strstr(pre, ".space.1")) /* one survivor pool: s0 and s1 in use */
      p->used += lval(pd, "sun.gc.generation.0.space.2.used", &ok);
    p->name = pool_map[i].name;
    p->nonheap = !strcmp(pool_map[i].area, "nonheap");
    n++;
  }
  return n;
}

size_t heap_area(const struct perfdata *pd, int nonheap, double v[3])
{
  struct heap_pool p[HEAP_MAX_POOLS];
  size_t n = heap_pools(pd, p), k = 0;

  v[0] = v[1] = v[2] = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i].nonheap != !!nonheap) continue;
    v[0] += p[i].used;
    v[1] += p[i].committed;
    v[2] += p[i].max;
    k++;
  }
  return k;
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
