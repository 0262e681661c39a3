/* tdump.c - a HotSpot thread dump read by TID (tdump.h) */
#include "core/jvmtool.h"
#include "core/tdump.h"

int tdump_nid(const char *s, size_t n)
{
  unsigned long long v = 0;
  int base = 10;
  size_t i = 0;

  if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    i = 2;
  }
  if (i == n) return 0;
  for (; i < n; i++) {
    int d;
    char c = s[i];

    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return 0;
    v = v * (unsigned)base + (unsigned)d;
    if (v > INT_MAX) return 0;
  }
  return (int)v;
}

/* The last occurrence of pat (m bytes) in s[0..n), or NULL. */
static const char *last(const char *s, size_t n, const char *pat)
{
  size_t m = strlen(pat);

  for (size_t i = n >= m ? n - m + 1 : 0; i-- > 0;)
    if (!memcmp(s + i, pat, m)) return s + i;
  return NULL;
}

/* "allocated=" between the name's end and nid: "528B", "167K", "2888M",
 * "12G" (HotSpot's byte_size_in_proper_unit) as bytes, or -1. */
static double allocated(const char *s, const char *end)
{
  static const char units[] = "BKMG";
  const char *a = last(s, (size_t)(end - s), " allocated="), *u;
  double v = 0;
  size_t k = 0;

  if (!a) return -1;
  for (a += 11; a + k < end && a[k] >= '0' && a[k] <= '9' && k < 19; k++)
    v = v * 10 + (a[k] - '0');
  if (!k || a + k >= end || !(u = strchr(units, a[k])) || !*u) return -1;
  for (; u > units; u--) v *= 1024;
  return v;
}

static void word(char *out, size_t size, const char *s, const char *end)
{
  size_t k = 0;

  while (s < end && *s == ' ') s++;
  while (s < end && *s != '\n' && *s != '[' && k + 1 < size) out[k++] = *s++;
  while (k && out[k - 1] == ' ') k--;
  out[k] = 0;
}

/* A header line s[0..n): returns 0 and fills t, or -1. */
static int header(const char *s, size_t n, struct tdump_thread *t)
{
  const char *os = last(s, n, " os_prio="), *q, *nid, *v;
  size_t k;

  if (n < 2 || s[0] != '"' || !os) return -1;
  for (q = os; q > s && *q != '"'; q--)
    ;
  if (q == s) return -1;
  if (!(nid = last(s, n, " nid="))) return -1;
  v = nid + 5;
  for (k = 0; v + k < s + n && v[k] != ' '; k++)
    ;
  memset(t, 0, sizeof(*t));
  t->tid = tdump_nid(v, k);
  t->name = xstrndup(s + 1, (size_t)(q - s - 1));
  t->java = q[1] == ' ' && q[2] == '#';
  t->allocated = nid > q ? allocated(q, nid) : -1;
  word(t->state, sizeof(t->state), v + k, s + n);
  return 0;
}

static int by_tid(const void *a, const void *b)
{
  const struct tdump_thread *x = a, *y = b;

  if (x->tid != y->tid) return (x->tid > y->tid) - (x->tid < y->tid);
  return (x->body > y->body) - (x->body < y->body);
}

void tdump_parse(const char *text, size_t len, struct tdump *d)
{
  static const char key[] = "java.lang.Thread.State: ";
  size_t cap = 0, i = 0, klen = sizeof(key) - 1;
  struct tdump_thread *open = NULL;
  int first = 0;

  memset(d, 0, sizeof(*d));
  d->text = text;
  while (i < len) {
    const char *s = text + i, *nl = memchr(s, '\n', len - i), *k;
    size_t n = nl ? (size_t)(nl - s) : len - i;
    struct tdump_thread t;

    if (*s == '"' && !header(s, n, &t)) {
      if (open) open->end = i;
      if (d->n == cap) {
        cap = cap ? cap * 2 : 64;
        d->t = xrealloc(d->t, cap * sizeof(*d->t));
      }
      t.body = i + n + (nl != NULL);
      d->t[d->n] = t;
      open = &d->t[d->n++];
      first = 1;
    } else if (open && !n) { /* a blank line ends a block */
      open->end = i;
      open = NULL;
    } else if (open && first) { /* the line after the header */
      first = 0;
      k = memchr(s, 'j', n);
      if (k && (size_t)(k - s) + klen <= n && !memcmp(k, key, klen))
        word(open->state, sizeof(open->state), k + klen, s + n);
    }
    i += n + (nl != NULL);
  }
  if (open) open->end = len;
  if (d->n) qsort(d->t, d->n, sizeof(*d->t), by_tid);
}

void tdump_free(struct tdump *d)
{
  for (size_t i = 0; i < d->n; i++) free(d->t[i].name);
  free(d->t);
  memset(d, 0, sizeof(*d));
}

const struct tdump_thread *tdump_find(const struct tdump *d, int tid)
{
  size_t lo = 0, hi = d->n;

  while (tid > 0 && lo < hi) { /* the first whose tid is not below */
    size_t mid = lo + (hi - lo) / 2;

    if (d->t[mid].tid < tid)
      lo = mid + 1;
    else
      hi = mid;
  }
  return tid > 0 && lo < d->n && d->t[lo].tid == tid ? &d->t[lo] : NULL;
}

size_t tdump_frames(const struct tdump *d, const struct tdump_thread *t,
                    size_t max, struct buf *b)
{
  size_t i = t->body, got = 0;

  while (i < t->end && got < max) {
    const char *s = d->text + i, *nl = memchr(s, '\n', t->end - i);
    size_t n = nl ? (size_t)(nl - s) : t->end - i;

    if (n > 4 && !memcmp(s, "\tat ", 4)) {
      buf_add(b, s + 4, n - 4);
      buf_addc(b, '\n');
      got++;
    }
    i += n + (nl != NULL);
  }
  return got;
}

const char *tdump_native_kind(const char *comm)
{
  static const struct {
    const char *prefix, *kind;
  } names[] = {
      {"GC Thread#", "gc"},       {"G1 ", "gc"},
      {"ZWorker", "gc"},          {"ZDriver", "gc"},
      {"ZDirector", "gc"},        {"ZStat", "gc"},
      {"ZUnmapper", "gc"},        {"Shenandoah", "gc"},
      {"C1 CompilerThre", "jit"}, {"C2 CompilerThre", "jit"},
      {"Sweeper thread", "jit"},  {"VM Thread", "vm"},
      {"VM Periodic Tas", "vm"},  {"JFR Thread Samp", "jfr"},
  };

  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    if (starts_with(comm, names[i].prefix)) return names[i].kind;
  return NULL;
}

size_t tdump_state_short(const char *state, size_t max, const char **out)
{
  /* java.lang.Thread.State with what the dump says it waits in: Object.wait
   * is "on object monitor" after WAITING, monitor entry after BLOCKED */
  static const struct {
    const char *dump, *shown;
  } forms[] = {
      {"BLOCKED (on object monitor)", "BLOCKED (monitor)"},
      {"WAITING (on object monitor)", "WAITING (wait)"},
      {"WAITING (parking)", "WAITING (park)"},
      {"TIMED_WAITING (sleeping)", "TIMED_WAITING (sleep)"},
      {"TIMED_WAITING (on object monitor)", "TIMED_WAITING (wait)"},
      {"TIMED_WAITING (parking)", "TIMED_WAITING (park)"},
  };
  size_t n = strlen(state), cut;

  *out = state;
  /* a form longer than tdump_thread's state field arrives cut to it */
  size_t field = sizeof(((struct tdump_thread *)0)->state) - 1;

  for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
    if (!strcmp(state, forms[i].dump) ||
        (n == field && !strncmp(state, forms[i].dump, field))) {
      *out = forms[i].shown;
      n = strlen(*out);
      break;
    }
  if (n <= max) return n;
  for (cut = max; cut && state[cut] != ' '; cut--) {
  }
  while (cut && state[cut - 1] == ' ') cut--;
  return cut ? cut : max;
}
