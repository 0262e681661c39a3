/* top_node.c - jvmtool top's node view: every JVM, one line each
 *
 * Read from /proc/<pid>/stat (CPU ticks of all threads, RSS, threads,
 * start time) and the JVM's PerfData (core/heap: heap, GC time, eden for
 * the allocation estimate), within core/vm's budget per file: one bad
 * file costs its own line only. Rates are against the previous reading of
 * the same process (pid and starttime). Never attaches.
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "cmd/top.h"
#include "core/jvm.h"
#include "core/perfdata.h"
#include "core/vm.h"

static void add_uptime(struct buf *b, double s)
{
  long long t = (long long)s;

  if (s < 0)
    buf_adds(b, "-");
  else if (t < 60)
    buf_printf(b, "%llds", t);
  else if (t < 3600)
    buf_printf(b, "%lldm%02llds", t / 60, t % 60);
  else if (t < 86400)
    buf_printf(b, "%lldh%02lldm", t / 3600, t / 60 % 60);
  else
    buf_printf(b, "%lldd%02lldh", t / 86400, t / 3600 % 24);
}

static int by_pid(const void *a, const void *b)
{
  int x = ((const struct top_vm *)a)->jvm->pid;
  int y = ((const struct top_vm *)b)->jvm->pid;

  return (x > y) - (x < y);
}

/* Its user as its hsperfdata_ folder names it, "?" unknown. */
static const char *user_of(const struct top_vm *t)
{
  return t->jvm->vm.user ? t->jvm->vm.user : "?";
}

static void vm_clear(struct top_vm *t)
{
  free(t->main_class);
  free(t->main);
  if (t->jvm && t->own) {
    jvm_close(t->jvm);
    free(t->jvm);
  }
  t->jvm = NULL;
}

/* j's PerfData let go (a file that no longer reads). */
static void drop_pd(struct jvm *j)
{
  if (!j->pd) return;
  pd_close(j->pd);
  free(j->pd);
  j->pd = NULL;
}

/* The main class and its short form, once per process. */
static void main_class(const struct perfdata *pd, struct top_vm *t)
{
  const char *cmd;
  size_t n, at;

  vm_command(pd, &cmd, &n);
  n = vm_main_class(cmd, n);
  t->main_class = xstrndup(cmd, n);
  n = vm_main(t->main_class, n, &at);
  t->main = xstrndup(t->main_class + at, n);
}

/* What PerfData says: main class, heap, GC seconds, eden. The file stays
 * open in t's JVM from one refresh to the next (pd_refresh reads it again
 * into the same buffer, the counters found stay found); with listed (this
 * refresh listed the JVMs, or t is a JVM's view's own) a file not open
 * (or no longer read) is opened, within core/vm's budget (core/jvm's
 * jvm_read); else only a file still open is read. was is its last reading,
 * or NULL. */
static void read_perfdata(struct top_vm *t, int listed, struct top_vm *was)
{
  struct jvm *j = t->jvm;
  char err[8];
  int rc = 0;

  t->heap[0] = t->heap[1] = t->heap[2] = -1;
  t->eden.ok = 0;
  t->gc_s = -1;
  if (j->pd && was && pd_refresh(j->pd)) drop_pd(j);
  if (!j->pd && listed) rc = jvm_read(j, err, sizeof(err));
  if (was && was->main_class && (j->pd || !listed)) {
    t->main_class = was->main_class;
    t->main = was->main;
    was->main_class = was->main = NULL;
  } else if (j->pd) {
    main_class(j->pd, t);
  } else { /* said in its line: a message would break the screen */
    t->main_class = xstrdup("");
    t->main = xstrdup(vm_over_budget(rc) ? "(PerfData over budget)" : "");
  }
  if (!j->pd) return;
  t->pd_ok = 1;
  if (heap_area(j->pd, 0, t->heap) == 0)
    t->heap[0] = t->heap[1] = t->heap[2] = -1;
  if (heap_gc_seconds(j->pd, &t->gc_s)) t->gc_s = -1;
  heap_eden(j->pd, &t->eden);
}

/* This reading against the previous one of the same process (same pid
 * and starttime), dt seconds before. */
static void rates(struct top_vm *t, const struct top_vm *was, double dt)
{
  double a;

  t->cpu = t->gc_pct = t->alloc = -1;
  if (!was || dt <= 0) return;
  t->cpu = (double)(t->ticks - was->ticks) / (double)proc_hz() / dt * 100;
  if (t->gc_s >= 0 && was->gc_s >= 0 && t->gc_s >= was->gc_s)
    t->gc_pct = (t->gc_s - was->gc_s) / dt * 100;
  if ((a = heap_allocated(&was->eden, &t->eden)) >= 0) t->alloc = a / dt;
}

static int wanted(const struct top_node *node, int pid)
{
  if (!node->only) return 1;
  for (size_t i = 0; i < node->nonly; i++)
    if (node->only[i] == pid) return 1;
  return 0;
}

/* One JVM's reading into t, of the JVM was read last time (taken from
 * it), else of the row v (this refresh lists: opened as listed, the row
 * taken), else of given (a JVM's view's own). was is its last reading
 * or NULL. Returns 0, or -1 when the process is gone (nothing is kept in
 * t then). */
static int read_one(struct top_vm *t, struct vm *v, struct jvm *given,
                    struct top_vm *was, double dt, double up)
{
  struct proc_stat st;

  /* its /proc folder, kept from one refresh to the next: a process gone
   * answers nothing there, a pid reused is another folder */
  if (was && was->jvm->procfd >= 0 && !proc_stat_at(was->jvm->procfd, 0, &st)) {
    t->jvm = was->jvm; /* taken: was still names it (its pid, for the
                          look-ups of this refresh) but no longer owns it */
    t->own = was->own;
    was->own = 0;
  } else {
    if (v) {
      t->jvm = xmalloc(sizeof(*t->jvm));
      t->own = 1;
      jvm_open_listed(t->jvm, v);
    } else if (given && !was) {
      t->jvm = given;
      t->own = 0;
    } else {
      return -1; /* gone since */
    }
    if (t->jvm->procfd < 0 || proc_stat_at(t->jvm->procfd, 0, &st)) {
      vm_clear(t);
      return -1;
    }
    if (was && was->starttime != st.starttime) was = NULL; /* pid reused */
  }
  if (was) {
    memcpy(t->container, was->container, sizeof(t->container));
    t->names = was->names;
  } else {
    proc_container_at(t->jvm->procfd, t->container, NULL);
    pod_names(t->jvm->procfd, t->container, &t->names);
  }
  t->starttime = st.starttime;
  t->ticks = st.utime + st.stime;
  t->rss = (double)st.rss * (double)proc_page();
  t->threads = st.threads;
  t->uptime = up < 0 ? -1 : up - (double)st.starttime / (double)proc_hz();
  read_perfdata(t, v || !t->own, was); /* a view's own JVM: each time */
  rates(t, was, dt);
  return 0;
}

void top_node_read(struct top_node *node)
{
  struct vm *v = NULL;
  struct top_vm *out, *was;
  struct jvm kj;
  struct top_vm key = {.jvm = &kj};
  size_t n = 0, k = 0;
  uint64_t now = top_now_ns();
  double dt = node->at_ns ? (double)(now - node->at_ns) / 1e9 : 0, up = -1;
  /* the walk of every process and /tmp that finds JVMs is most of a
   * refresh's cost: between walks, the JVMs known are read again; a
   * JVM's view reads its own JVM, and never walks */
  int relist = !node->given &&
               (!node->listed_ns || now - node->listed_ns >= TOP_RELIST_NS);

  if (proc_uptime(&up)) up = -1;
  if (node->n) qsort(node->vm, node->n, sizeof(*node->vm), by_pid);
  if (relist && vm_list(&v, &n)) n = 0;
  if (relist) say_skipped();
  out = xzalloc(((relist ? n : node->n) + 1) * sizeof(*out));
  if (node->given && !node->n && node->given->vm.file) /* its first */
    k += !read_one(&out[k], NULL, node->given, NULL, dt, up);
  for (size_t i = 0; !relist && i < node->n; i++)
    k += !read_one(&out[k], NULL, node->given, &node->vm[i], dt, up);
  for (size_t i = 0; relist && i < n; i++) {
    if (!v[i].alive || v[i].root_pid < 0 || !wanted(node, v[i].pid)) continue;
    kj.pid = v[i].pid;
    was =
        node->n ? bsearch(&key, node->vm, node->n, sizeof(key), by_pid) : NULL;
    k += !read_one(&out[k], &v[i], NULL, was, dt, up);
  }
  vm_list_free(v, n);
  top_node_free(node);
  node->vm = out;
  node->n = k;
  node->at_ns = now;
  if (relist) node->listed_ns = now;
}

void top_node_free(struct top_node *node)
{
  for (size_t i = 0; i < node->n; i++) vm_clear(&node->vm[i]);
  free(node->vm);
  node->vm = NULL;
  node->n = 0;
}

static enum top_sort sort_by;

static int by_key(const void *a, const void *b)
{
  const struct top_vm *x = a, *y = b;
  double p = sort_by == TOP_RSS     ? x->rss
             : sort_by == TOP_GC    ? x->gc_pct
             : sort_by == TOP_ALLOC ? x->alloc
                                    : x->cpu;
  double q = sort_by == TOP_RSS     ? y->rss
             : sort_by == TOP_GC    ? y->gc_pct
             : sort_by == TOP_ALLOC ? y->alloc
                                    : y->cpu;

  if (p != q) return p < q ? 1 : -1;
  return (x->jvm->pid > y->jvm->pid) - (x->jvm->pid < y->jvm->pid);
}

void top_node_sort(struct top_node *node, enum top_sort by)
{
  sort_by = by;
  if (node->n) qsort(node->vm, node->n, sizeof(*node->vm), by_key);
}

static void pct(struct buf *b, double v, int w)
{
  if (v < 0)
    buf_printf(b, "%*s", w, "-");
  else
    buf_printf(b, "%*.1f", w, v);
}

static void sized(struct buf *b, double v, int w)
{
  struct buf s = {0};

  top_size(&s, v);
  buf_printf(b, "%*s", w, s.p);
  buf_free(&s);
}

/* The header line: the node's totals. */
static void totals(const struct top_node *node, struct buf *b)
{
  double cpu = 0, rss = 0, used = 0, comm = 0, alloc = 0;
  time_t now = time(NULL);
  struct tm tm;
  char hms[16];

  for (size_t i = 0; i < node->n; i++) {
    const struct top_vm *t = &node->vm[i];

    cpu += t->cpu > 0 ? t->cpu : 0;
    rss += t->rss;
    used += t->heap[0] > 0 ? t->heap[0] : 0;
    comm += t->heap[1] > 0 ? t->heap[1] : 0;
    alloc += t->alloc > 0 ? t->alloc : 0;
  }
  localtime_r(&now, &tm);
  strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
  buf_printf(b, "top - %s  JVMs %zu  cpu %.1f%% of %ld cores  rss ", hms,
             node->n, cpu, sysconf(_SC_NPROCESSORS_ONLN));
  top_size(b, rss);
  buf_adds(b, "  heap ");
  top_size(b, used);
  buf_addc(b, '/');
  top_size(b, comm);
  buf_adds(b, "  alloc ");
  top_size(b, alloc);
  buf_adds(b, "/s\n");
}

/* The columns of the node view; MAIN is the last, the rest of a line. */
enum {
  C_PID,
  C_USER,
  C_CONT,
  C_POD,
  C_CPU,
  C_RSS,
  C_HEAP,
  C_COMMIT,
  C_MAX,
  C_GC,
  C_ALLOC,
  C_THR,
  C_UP,
  C_N
};
static const struct top_col cols[C_N] = {
    [C_PID] = {"PID", 7, 0, 0},         [C_USER] = {"USER", 11, 1, 3},
    [C_CONT] = {"CONTAINER", 13, 1, 7}, [C_POD] = {"POD", 25, 1, 7},
    [C_CPU] = {"%CPU", 7, 0, 0},        [C_RSS] = {"RSS", 8, 0, 9},
    [C_HEAP] = {"HEAP", 8, 0, 8},       [C_COMMIT] = {"COMMIT", 8, 0, 2},
    [C_MAX] = {"MAX", 8, 0, 1},         [C_GC] = {"%GC", 6, 0, 6},
    [C_ALLOC] = {"ALLOC/s", 8, 0, 10},  [C_THR] = {"THR", 5, 0, 5},
    [C_UP] = {"UPTIME", 8, 0, 4},
};
enum { MAIN_MIN = 20 };

/* One JVM's line (no newline): the columns of mask, then MAIN. */
static void vm_line(const struct top_vm *t, unsigned mask, struct buf *b,
                    int esc)
{
  struct buf u = {0};
  const char *main = *t->main ? t->main : "-";

  buf_printf(b, "%7d", t->jvm->pid);
  if (mask & 1u << C_USER) {
    top_add_text(&u, user_of(t), strlen(user_of(t)), esc);
    buf_printf(b, " %-10.10s", u.p);
  }
  if (mask & 1u << C_CONT)
    buf_printf(b, " %-12.12s",
               *t->container      ? t->container
               : t->jvm->other_ns ? "(pidns)"
                                  : "-");
  if (mask & 1u << C_POD) {
    char pod[POD_NS_MAX + POD_NAME_MAX + POD_CTR_MAX + 3];

    pod_text(&t->names, pod, sizeof(pod));
    u.len = 0;
    top_add_text(&u, *pod ? pod : "-", *pod ? strlen(pod) : 1, esc);
    buf_printf(b, " %-24.24s", u.p);
  }
  pct(b, t->cpu, 7);
  if (mask & 1u << C_RSS) sized(b, t->rss, 8);
  if (mask & 1u << C_HEAP) sized(b, t->heap[0], 8);
  if (mask & 1u << C_COMMIT) sized(b, t->heap[1], 8);
  if (mask & 1u << C_MAX) sized(b, t->heap[2], 8);
  if (mask & 1u << C_GC) pct(b, t->gc_pct, 6);
  if (mask & 1u << C_ALLOC) sized(b, t->alloc, 8);
  if (mask & 1u << C_THR) buf_printf(b, "%5ld", t->threads);
  if (mask & 1u << C_UP) {
    u.len = 0;
    add_uptime(&u, t->uptime);
    buf_printf(b, " %7s", u.p);
  }
  buf_addc(b, ' ');
  top_add_text(b, main, strlen(main), esc);
  buf_free(&u);
}

/* Append line (from start) cut to width columns (0: whole), then '\n'. */
static void cut(struct buf *b, size_t start, int width)
{
  if (width > 0 && b->len - start > (size_t)width) b->len = start + width;
  buf_addc(b, '\n');
}

void top_node_text(const struct top_node *node, struct buf *b, size_t rows,
                   int width, int esc, int sel)
{
  size_t at = b->len;
  unsigned have = (1u << C_N) - 1, mask;

  /* a POD column only on a node where some JVM is in a pod */
  have &= ~(1u << C_POD);
  for (size_t i = 0; i < node->n; i++)
    if (*node->vm[i].names.ns) have |= 1u << C_POD;
  mask = top_fit(cols, C_N, have, width, MAIN_MIN);

  totals(node, b);
  b->len--; /* its '\n': the line is cut first */
  cut(b, at, width);
  at = b->len;
  top_titles(b, cols, C_N, mask, "MAIN");
  cut(b, at, width);
  for (size_t i = 0; i < node->n && (!rows || i < rows); i++) {
    at = b->len;
    if (sel >= 0) buf_adds(b, (int)i == sel ? "\033[7m" : "");
    vm_line(&node->vm[i], mask, b, esc);
    if (sel >= 0 && (int)i == sel) {
      if (width > 0 && b->len - at > (size_t)width + 4) b->len = at + width + 4;
      buf_adds(b, "\033[0m\n");
      continue;
    }
    cut(b, at, width);
  }
}

static void vm_json(const struct top_vm *t, struct buf *b)
{
  struct json_obj o;

  json_open(&o, b, 1);
  json_int(&o, "pid", t->jvm->pid);
  json_int(&o, "nspid", t->jvm->nspid);
  json_strz(&o, "user", user_of(t));
  json_strz(&o, "container_id", t->container);
  json_strz(&o, "namespace", *t->names.ns ? t->names.ns : NULL);
  json_strz(&o, "pod", *t->names.ns ? t->names.pod : NULL);
  json_strz(&o, "container", *t->names.container ? t->names.container : NULL);
  json_bool(&o, "other_namespace", t->jvm->other_ns);
  json_strz(&o, "main_class", t->main_class);
  json_strz(&o, "main", t->main);
  json_num(&o, "cpu_pct", top_json_val(t->cpu));
  json_num(&o, "rss_bytes", top_json_val(t->rss));
  json_num(&o, "heap_used_bytes", top_json_val(t->heap[0]));
  json_num(&o, "heap_committed_bytes", top_json_val(t->heap[1]));
  json_num(&o, "heap_max_bytes", top_json_val(t->heap[2]));
  json_num(&o, "gc_seconds", top_json_val(t->gc_s));
  json_num(&o, "gc_pct", top_json_val(t->gc_pct));
  json_num(&o, "alloc_bytes_per_s", top_json_val(t->alloc));
  json_int(&o, "threads", t->threads);
  json_num(&o, "uptime_s", top_json_val(t->uptime));
  json_bool(&o, "perfdata", t->pd_ok);
  json_close(&o);
}

void top_node_fields(const struct top_node *node, const char *view,
                     struct json_obj *o)
{
  double cpu = 0;

  for (size_t i = 0; i < node->n; i++)
    cpu += node->vm[i].cpu > 0 ? node->vm[i].cpu : 0;
  json_int(o, "time_ms", (long long)wall_ms());
  json_strz(o, "view", view);
  json_int(o, "cores", sysconf(_SC_NPROCESSORS_ONLN));
  json_num(o, "cpu_pct", top_json_val(cpu));
  json_key(o, "jvms");
  buf_addc(o->b, '[');
  for (size_t i = 0; i < node->n; i++) {
    buf_adds(o->b, i ? ", " : "");
    vm_json(&node->vm[i], o->b);
  }
  buf_addc(o->b, ']');
}

void top_node_json(const struct top_node *node, const char *view, struct buf *b)
{
  struct json_obj o;

  json_open(&o, b, 1);
  top_node_fields(node, view, &o);
  json_close(&o);
  buf_addc(b, '\n');
}
