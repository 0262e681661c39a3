/* prom.c - JVMs' PerfData as Prometheus text exposition */
#include "core/jvmtool.h"
#include "core/out.h"
#include "core/heap.h"
#include "core/jvm.h"
#include "core/perfdata.h"
#include "core/pod.h"
#include "core/prom.h"
#include "core/vm.h"
#include <math.h>

/* Each family's name under each scheme (specs/prom_names.def). */
enum prom_fam {
#define FAM(id, cj, sc, type, help) F_##id,
#include "specs/prom_names.def"
#undef FAM
};
static const struct {
  const char *name[2], *type, *help;
} fams[] = {
#define FAM(id, cj, sc, type, help) {{cj, sc}, type, help},
#include "specs/prom_names.def"
#undef FAM
};

/* One sample of family f under p's scheme; none where it has no name. */
static void add(struct prom *p, enum prom_fam f, const char *suffix,
                const char *labels, const char *extra, double v)
{
  const char *name = fams[f].name[(p->flags & PROM_SIMPLECLIENT) != 0];

  if (*name)
    prom_sample(p, name, fams[f].type, fams[f].help, suffix, labels, extra, v);
}

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

static void put_label(struct prom_labels *out, const char *name, const char *v,
                      size_t n)
{
  out->l[out->n].name = name;
  out->l[out->n].value = v;
  out->l[out->n].len = n;
  out->n++;
}

void prom_jvm_labels(const struct jvm *j, struct prom_labels *out)
{
  const char *cmd;
  size_t n;

  out->n = 0;
  out->id[0] = out->pod[0] = 0;
  snprintf(out->pid, sizeof(out->pid), "%d", j->pid);
  if (j->pid) put_label(out, "pid", out->pid, strlen(out->pid));
  vm_command(j->pd, &cmd, &n);
  put_label(out, "main_class", cmd, vm_main_class(cmd, n));
  if (!j->pid || j->procfd < 0 ||
      proc_container_at(j->procfd, out->id, out->pod))
    return;
  if (*out->id) put_label(out, "container_id", out->id, strlen(out->id));
  if (*out->pod) put_label(out, "pod_uid", out->pod, strlen(out->pod));
  if (pod_names(j->procfd, out->id, &out->names)) return;
  put_label(out, "namespace", out->names.ns, strlen(out->names.ns));
  put_label(out, "pod", out->names.pod, strlen(out->names.pod));
  if (*out->names.container)
    put_label(out, "container", out->names.container,
              strlen(out->names.container));
}

void prom_jvm_label_text(const struct jvm *j, struct buf *b)
{
  struct prom_labels l;

  prom_jvm_labels(j, &l);
  for (size_t i = 0; i < l.n; i++) {
    buf_printf(b, "%s%s=\"", i ? "," : "", l.l[i].name);
    prom_label_buf(b, l.l[i].value, l.l[i].len);
    buf_addc(b, '"');
  }
}

static void pools(struct prom *out, const struct perfdata *pd,
                  const char *labels)
{
  struct heap_pool p[HEAP_MAX_POOLS];
  size_t n = heap_pools(pd, p);
  double area_v[2][3] = {{0}}; /* heap, nonheap x used, committed, max */
  static const enum prom_fam pool_f[3] = {F_POOL_USED, F_POOL_COMMITTED,
                                          F_POOL_MAX};
  static const enum prom_fam area_f[3] = {F_AREA_USED, F_AREA_COMMITTED,
                                          F_AREA_MAX};

  for (size_t i = 0; i < n; i++) {
    double v[3] = {p[i].used, p[i].committed, p[i].max};
    struct buf l = {0};

    buf_printf(&l, ",pool=\"");
    prom_label_buf(&l, p[i].name, strlen(p[i].name));
    buf_addc(&l, '"');
    for (int k = 0; k < 3; k++) add(out, pool_f[k], "", labels, l.p, v[k]);
    buf_free(&l);
  }
  for (int a = 0; a < 2; a++) {
    if (!heap_area(pd, a, area_v[a])) continue;
    for (int k = 0; k < 3; k++)
      if (!isnan(area_v[a][k]))
        add(out, area_f[k], "", labels,
            a ? ",area=\"nonheap\"" : ",area=\"heap\"", area_v[a][k]);
  }
}

/* Each GarbageCollectorMXBean's count and time (heap_collectors). */
static void collectors(struct prom *out, const struct perfdata *pd,
                       const char *labels)
{
  struct heap_gc g[HEAP_MAX_GCS];
  size_t n = heap_collectors(pd, g);

  for (size_t i = 0; i < n; i++) {
    struct buf l = {0};

    buf_adds(&l, ",gc=\"");
    prom_label_buf(&l, g[i].name, strlen(g[i].name));
    buf_addc(&l, '"');
    add(out, F_GC_SECONDS, "_count", labels, l.p, g[i].count);
    if (g[i].seconds >= 0)
      add(out, F_GC_SECONDS, "_sum", labels, l.p, g[i].seconds);
    buf_free(&l);
  }
}

/* Families that are one counter (or a sum of two) each; the number of
 * classes loaded now is computed. */
static const struct {
  enum prom_fam f;
  const char *c1, *c2;
  int ticks;
} simple[] = {
    {F_THREADS_CURRENT, "java.threads.live", 0, 0},
    {F_THREADS_DAEMON, "java.threads.daemon", 0, 0},
    {F_THREADS_PEAK, "java.threads.livePeak", 0, 0},
    {F_THREADS_STARTED, "java.threads.started", 0, 0},
    {F_CLASSES_NOW, 0, 0, 0},
    {F_CLASSES_LOADED, "java.cls.loadedClasses", "java.cls.sharedLoadedClasses",
     0},
    {F_CLASSES_UNLOADED, "java.cls.unloadedClasses",
     "java.cls.sharedUnloadedClasses", 0},
    {F_COMPILATION, "java.ci.totalTime", 0, 1},
    {F_SAFEPOINTS, "sun.rt.safepoints", 0, 0},
    {F_SAFEPOINT_TIME, "sun.rt.safepointTime", 0, 1},
    {F_SAFEPOINT_SYNC, "sun.rt.safepointSyncTime", 0, 1},
};

static void simple_families(struct prom *out, const struct perfdata *pd,
                            const char *labels, double hz)
{
  int ok1, ok2;
  double loaded = lval(pd, "java.cls.loadedClasses", &ok1) +
                  lval(pd, "java.cls.sharedLoadedClasses", &ok2) -
                  lval(pd, "java.cls.unloadedClasses", &ok2) -
                  lval(pd, "java.cls.sharedUnloadedClasses", &ok2);

  for (size_t i = 0; i < sizeof(simple) / sizeof(simple[0]); i++) {
    double v;

    if (!simple[i].c1) {
      if (ok1) add(out, simple[i].f, "", labels, "", loaded);
      continue;
    }
    v = lval(pd, simple[i].c1, &ok1);
    if (!ok1 || (simple[i].ticks && hz <= 0)) continue;
    if (simple[i].c2) v += lval(pd, simple[i].c2, &ok2);
    add(out, simple[i].f, "", labels, "", simple[i].ticks ? v / hz : v);
  }
}

static void string_label(struct buf *b, const char *label,
                         const struct perfdata *pd, const char *counter)
{
  const struct pd_counter *c = pd_find(pd, counter);
  const char *s = "";
  size_t n = c && c->type == 'B' ? pd_string(pd, c, &s) : 0;

  buf_printf(b, ",%s=\"", label);
  prom_label_buf(b, s, n);
  buf_addc(b, '"');
}

/* jvm_info's labels are simpleclient's names (version, vendor, runtime)
 * but the VM's values: PerfData has no java.runtime.* properties. */
static void runtime(struct prom *out, const struct jvm *j, const char *labels)
{
  struct buf l = {0};
  double start;
  int ok = !vm_start_ms(j->pd, &start);

  string_label(&l, "version", j->pd, "java.property.java.vm.version");
  string_label(&l, "vendor", j->pd, "java.property.java.vm.vendor");
  string_label(&l, "runtime", j->pd, "java.property.java.vm.name");
  add(out, F_RUNTIME_INFO, "", labels, l.p, 1);
  buf_free(&l);
  if (ok) add(out, F_START_TIME, "", labels, "", start / 1000);
}

/* The process collector's families from its /proc folder: each
 * one that can be read; a process of another user we may not look into
 * lacks the fd counts. */
static void process(struct prom *out, const struct jvm *j, const char *labels)
{
  struct proc_stat st;
  uint64_t max;
  size_t fds;
  int rc;

  if (!j->pid || j->procfd < 0) return;
  if (!proc_stat_at(j->procfd, 0, &st)) {
    add(out, F_CPU_SECONDS, "", labels, "",
        (double)(st.utime + st.stime) / (double)proc_hz());
    add(out, F_RSS, "", labels, "", (double)st.rss * (double)proc_page());
    add(out, F_VSIZE, "", labels, "", (double)st.vsize);
  }
  if (!(rc = proc_open_fds_at(j->procfd, PROC_MAX_FDS, &fds))) {
    add(out, F_OPEN_FDS, "", labels, "", (double)fds);
  } else if (rc == -E2BIG) {
    char *text = xasprintf("pid %d: more than %d open fds, not counted", j->pid,
                           PROC_MAX_FDS);

    prom_comment(out, text);
    free(text);
  }
  if (!proc_max_fds_at(j->procfd, &max))
    add(out, F_MAX_FDS, "", labels, "", (double)max);
}

/* --raw: a name HotSpot could have written ([A-Za-z0-9._], at most
 * PROM_MAX_NAME bytes). */
static int raw_name_ok(const char *s)
{
  size_t n = strlen(s);

  return n && n <= PROM_MAX_NAME &&
         strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                   "0123456789._") == n;
}

/* --raw: a counter's own family. Names are snake_case; the numbers of
 * collectors, generations, spaces (an all-digit part) become labels, each
 * label once (a second number of the same key stays in the name). */
static void raw(struct prom *out, const struct perfdata *pd, const char *labels,
                double hz)
{
  static const char *const keys[] = {"generation", "space", "collector",
                                     "index"};
  size_t kept = 0;

  for (size_t i = 0; i < pd->n; i++) {
    const struct pd_counter *c = pd->counters[i];
    struct buf fam = {0}, l = {0}, help = {0};
    const char *p = c->name, *type;
    double v;
    int ticks = c->units == PD_U_TICKS && hz > 0, used = 0;

    if (c->type != 'J' || c->pseudo != PD_REAL) continue;
    if (!raw_name_ok(c->name)) {
      out->drops.name++;
      continue;
    }
    if (kept++ >= PROM_MAX_RAW) {
      out->drops.limit++;
      continue;
    }
    buf_adds(&fam, "hotspot");
    while (*p) {
      size_t k = strcspn(p, "."), key = 3;

      for (size_t t = 0; t < 3; t++)
        if (fam.len >= strlen(keys[t]) &&
            !strcmp(fam.p + fam.len - strlen(keys[t]), keys[t]))
          key = t;
      if (k && strspn(p, "0123456789") == k && !(used & (1 << key))) {
        used |= 1 << key;
        buf_printf(&l, ",%s=\"%.*s\"", keys[key], (int)k, p);
      } else {
        buf_addc(&fam, '_');
        for (size_t m = 0; m < k; m++) { /* camelCase -> snake_case */
          unsigned char ch = (unsigned char)p[m];

          if (isupper(ch) && m && !isupper((unsigned char)p[m - 1]))
            buf_addc(&fam, '_');
          buf_addc(&fam, isalnum(ch) ? (char)tolower(ch) : '_');
        }
      }
      p += k;
      p += *p == '.';
    }
    if (c->units == PD_U_BYTES) buf_adds(&fam, "_bytes");
    if (ticks) buf_adds(&fam, "_seconds");
    type = c->var == PD_V_MONOTONIC ? "counter" : "gauge";
    if (c->var == PD_V_MONOTONIC) buf_adds(&fam, "_total");
    buf_printf(&help, "PerfData counter %s", c->name);
    for (char *h = help.p; *h; h++) /* the numbers are labels */
      if (isdigit((unsigned char)*h) && (h[-1] == '.') &&
          (!h[1] || h[1] == '.' || isdigit((unsigned char)h[1])))
        *h = 'N';
    v = (double)pd_long(pd, c);
    prom_sample(out, fam.p, type, help.p, "", labels, l.p ? l.p : "",
                ticks ? v / hz : v);
    buf_free(&fam);
    buf_free(&l);
    buf_free(&help);
  }
}

void prom_add_jvm(struct prom *p, const struct jvm *j, struct prom_drops *d)
{
  struct buf labels = {0};
  int ok;
  double hz = lval(j->pd, "sun.os.hrt.frequency", &ok);
  static const char *const why[] = {"name", "collision", "limit"};

  memset(&p->drops, 0, sizeof(p->drops));
  prom_jvm_label_text(j, &labels);
  simple_families(p, j->pd, labels.p, hz);
  pools(p, j->pd, labels.p);
  collectors(p, j->pd, labels.p);
  runtime(p, j, labels.p);
  process(p, j, labels.p);
  if (p->flags & PROM_RAW) raw(p, j->pd, labels.p, hz);
  for (int k = 0; k < 3; k++) {
    size_t n = k == 0   ? p->drops.name
               : k == 1 ? p->drops.collision
                        : p->drops.limit;
    struct buf l = {0};

    if (!n && !(p->flags & PROM_RAW)) continue;
    buf_printf(&l, ",reason=\"%s\"", why[k]);
    add(p, F_DROPPED, "", labels.p, l.p, (double)n);
    buf_free(&l);
  }
  if (d) *d = p->drops;
  buf_free(&labels);
}
