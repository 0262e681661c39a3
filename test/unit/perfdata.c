/* perfdata.c - unit tests of core/perfdata with files from the test writer */
#include "core/jvmtool.h"
#include "core/perfdata.h"
#include "check.h"
#include "pdwriter.h"

static int parse(struct pdw *w, struct perfdata *pd)
{
  return pd_parse(pd, w->p, w->size, "test");
}

static const char *str(const struct perfdata *pd, const char *name)
{
  static char out[256];
  const struct pd_counter *c = pd_find(pd, name);
  const char *s;
  size_t n;

  if (!c) return NULL;
  n = pd_string(pd, c, &s);
  snprintf(out, sizeof(out), "%.*s", (int)n, s);
  return out;
}

static long long num(const struct perfdata *pd, const char *name)
{
  const struct pd_counter *c = pd_find(pd, name);

  return c ? pd_long(pd, c) : -424242;
}

static void test_valid(int be)
{
  struct pdw w;
  struct perfdata pd;
  int sorted = 1;

  pdw_sample_jvm(&w, be);
  CHECK_INT(parse(&w, &pd), 0, "pd-1.1 %s sample parses", be ? "BE" : "LE");
  CHECK_STR(str(&pd, "sun.rt.javaCommand"), "com.example.Main a1 b 2",
            "pd-1.2 string counter (%s)", be ? "BE" : "LE");
  CHECK_INT(num(&pd, "java.cls.loadedClasses"), 1234, "pd-1.3 long (%s)",
            be ? "BE" : "LE");
  CHECK_INT(num(&pd, "sun.rt.createVmBeginTime"), 1700000000000LL,
            "pd-1.4 64-bit value (%s)", be ? "BE" : "LE");
  CHECK_INT(num(&pd, "sun.perfdata.size"), 32768, "pd-1.5 pseudo size");
  CHECK_INT(num(&pd, "sun.perfdata.used"), w.used, "pd-1.6 pseudo used");
  CHECK_INT(num(&pd, "sun.perfdata.majorVersion"), 2, "pd-1.7 pseudo major");
  CHECK_INT(pd.n, 13 + 6, "pd-1.8 13 entries + 6 pseudo-counters");
  CHECK_STR(str(&pd, "java.rt.vmFlags"), "", "pd-1.9 vlen 1 is empty");
  CHECK(pd_find(&pd, "java.cls.loadedClasses")->supported &&
            !pd_find(&pd, "sun.gc.cause")->supported,
        "pd-1.10 supported flag from the name");
  for (size_t i = 1; i < pd.n; i++)
    if (strcmp(pd.counters[i - 1]->name, pd.counters[i]->name) >= 0) sorted = 0;
  CHECK(sorted, "pd-1.11 counters sorted by strcmp");
  CHECK(!pd_find(&pd, "sun.rt") && !pd_find(&pd, "zzz"), "pd-1.12 misses");
  pd_close(&pd);
  free(w.p);
}

/* Break one field; the file must be rejected with a message, not crash. */
static void broken(const char *id, const char *what, size_t off, int width,
                   uint32_t v, const char *want)
{
  struct pdw w;
  struct perfdata pd;
  int rc;

  pdw_sample_jvm(&w, 0);
  if (width == 4)
    pdw_put32(&w, off, v);
  else
    pdw_put8(&w, off, (uint8_t)v);
  rc = parse(&w, &pd);
  CHECK(rc == -EINVAL && strstr(pd.err, want), "%s %s -> '%s'", id, what,
        pd.err);
  if (!rc) pd_close(&pd);
  free(w.p);
}

static void test_broken(void)
{
  size_t e = 32; /* the first entry: sun.os.hrt.frequency */

  broken("pd-2.1", "bad magic", 0, 4, 0x12345678, "bad magic");
  broken("pd-2.2", "version 1.0", 5, 1, 1, "version 1.0");
  broken("pd-2.3", "version 2.1", 6, 1, 1, "version 2.1");
  broken("pd-2.4", "misaligned entry offset", 24, 4, 34, "misaligned");
  broken("pd-2.5", "entry offset past the end", 24, 4, 0x7ffffff0,
         "past the end");
  broken("pd-2.6", "huge entry length", e, 4, 0xfffffff0, "invalid length");
  broken("pd-2.7", "entry past the end", e, 4, 32768, "extends past");
  broken("pd-2.8", "entry shorter than header", e, 4, 8, "shorter");
  broken("pd-2.9", "name offset past entry", e + 4, 4, 999, "past its end");
  broken("pd-2.10", "data offset past entry", e + 16, 4, 999, "past its end");
  broken("pd-2.11", "illegal type", e + 12, 1, 'Q', "illegal type");
  broken("pd-2.12", "units 0", e + 14, 1, 0, "invalid units");
  broken("pd-2.13", "units 7", e + 14, 1, 7, "invalid units");
  broken("pd-2.14", "variability 0", e + 15, 1, 0, "invalid variability");
  broken("pd-2.15", "variability 4", e + 15, 1, 4, "invalid variability");
  broken("pd-2.16", "scalar of type B", e + 12, 1, 'B', "scalar");
  broken("pd-2.17", "huge vector length", e + 8, 4, 0x7fffffff, "vector");
}

static void test_truncation(void)
{
  struct pdw w;
  int crashes = 0, ok = 0, bad = 0;

  pdw_sample_jvm(&w, 1);
  for (size_t n = 0; n <= w.used + 8; n++) {
    struct perfdata pd;
    int rc = pd_parse(&pd, w.p, n, "cut");

    if (!rc)
      ok++, pd_close(&pd);
    else if (rc == -EINVAL && pd.err[0])
      bad++;
    else
      crashes++;
  }
  CHECK(!crashes && bad > 0 && ok > 0,
        "pd-3.1 every truncation length: parses or says why (%d ok, %d bad)",
        ok, bad);
  free(w.p);
}

static void test_stops(void)
{
  struct pdw w;
  struct perfdata pd;
  size_t at;

  /* An entry of length 0 ends the data, as while the JVM is writing it. */
  pdw_sample_jvm(&w, 0);
  at = 32;
  for (int i = 0; i < 3; i++) {
    uint32_t len = w.p[at] | w.p[at + 1] << 8 | w.p[at + 2] << 16;

    at += len;
  }
  pdw_put32(&w, at, 0);
  CHECK_INT(parse(&w, &pd), 0, "pd-4.1 zero-length entry is the end");
  CHECK_INT(pd.n, 3 + 6, "pd-4.2 entries before it kept");
  pd_close(&pd);
  free(w.p);

  /* A later entry of the same name wins; a real sun.perfdata.* too. */
  pdw_init(&w, 4096, 0);
  pdw_long(&w, "a.b", 1, 1, 1);
  pdw_long(&w, "a.b", 1, 1, 2);
  pdw_long(&w, "sun.perfdata.size", 1, 1, 77);
  pdw_finish(&w);
  CHECK_INT(parse(&w, &pd), 0, "pd-4.3 duplicates parse");
  CHECK_INT(num(&pd, "a.b"), 2, "pd-4.4 last duplicate wins");
  CHECK_INT(num(&pd, "sun.perfdata.size"), 77,
            "pd-4.5 real entry beats pseudo");
  pd_close(&pd);
  free(w.p);
}

static void test_refresh(void)
{
  struct pdw w;
  struct perfdata pd;
  const struct pd_counter *c;

  pdw_init(&w, 8192, 0);
  pdw_long(&w, "x.count", 4, 2, 1);
  pdw_finish(&w);
  pdw_save(&w, "pd-live");
  CHECK_INT(pd_open(&pd, "pd-live", PD_NOFOLLOW), 0, "pd-5.1 open a file");
  c = pd_find(&pd, "x.count");
  pdw_long(&w, "x.added", 4, 2, 5);
  pdw_put32(&w, 32 + 32, 9); /* x.count's value, in place */
  pdw_finish(&w);
  pdw_save(&w, "pd-live");
  CHECK_INT(pd_refresh(&pd), 0, "pd-5.2 refresh");
  CHECK_INT(pd_long(&pd, c), 9, "pd-5.3 old handle sees the new value");
  CHECK_INT(num(&pd, "x.added"), 5, "pd-5.4 entry added later is found");
  CHECK_INT(truncate("pd-live", 40), 0, "pd-5.5 truncate under the reader");
  CHECK(pd_refresh(&pd) == -EIO && strstr(pd.err, "shrank"),
        "pd-5.6 shrunk file is an error: '%s'", pd.err);
  CHECK_INT(pd_long(&pd, c), 0, "pd-5.7 stale handle reads no garbage");
  pd_close(&pd);
  unlink("pd-live");
  CHECK_INT(symlink("/etc/passwd", "pd-link"), 0, "pd-5.8 make a symlink");
  CHECK_INT(pd_open(&pd, "pd-link", PD_NOFOLLOW), -ELOOP,
            "pd-5.9 PD_NOFOLLOW refuses a symlink");
  unlink("pd-link");
  free(w.p);
}

/* A file of n long counters x.0000000, x.0000001, ... as HotSpot lays
 * them out (40 bytes each). */
static void many(struct pdw *w, size_t size, int n)
{
  char name[32];

  pdw_init(w, size, 0);
  for (int i = 0; i < n; i++) {
    snprintf(name, sizeof(name), "x.%07d", i);
    pdw_long(w, name, 1, 1, i);
  }
  pdw_finish(w);
}

/* CPU seconds to parse w, the best of three. */
static double parse_cost(struct pdw *w, size_t *n)
{
  double best = 1e9;

  for (int r = 0; r < 3; r++) {
    struct perfdata pd;
    clock_t t0 = clock();
    double s;

    *n = 0;
    if (!parse(w, &pd)) *n = pd.n, pd_close(&pd);
    s = (double)(clock() - t0) / CLOCKS_PER_SEC;
    if (s < best) best = s;
  }
  return best;
}

static void test_caps(void)
{
  struct pdw w, small;
  struct perfdata pd;
  size_t n_small, n_big;
  double t_small, t_big;
  char name[PD_MAX_NAME + 2];

  /* 5 000 and 50 000 entries (2 MB, under the 2 MiB cap): linear work
   * makes the second ~10 times the first (n log n: ~13); comparing each
   * name with every earlier one made it 100 times. */
  many(&small, 256 << 10, 5000);
  many(&w, PD_MAX_FILE, 50000);
  t_small = parse_cost(&small, &n_small);
  t_big = parse_cost(&w, &n_big);
  CHECK(n_small == 5006 && n_big == 50006, "pd-6.1 both parse (%zu, %zu)",
        n_small, n_big);
  CHECK(t_big < 30 * (t_small + 0.0005),
        "pd-6.2 10x the entries costs %.1fx the CPU (%.4f s, %.4f s), under "
        "30x",
        t_big / (t_small + 1e-9), t_small, t_big);
  free(w.p);
  free(small.p);

  /* 80 000 entries need 3.2 MB: more than any JVM writes. */
  many(&w, 4 << 20, 80000);
  CHECK(pd_parse(&pd, w.p, w.size, "big") == -EFBIG && strstr(pd.err, "2 MiB"),
        "pd-6.3 a 4 MiB file is refused: '%s'", pd.err);
  free(w.p);

  /* Entries of 20 bytes (all named "") fit 104 856 in 2 MiB: over the
   * 87 380 of HotSpot's smallest entry, refused however they repeat. */
  pdw_init(&w, PD_MAX_FILE, 0);
  for (size_t at = 32; at + 20 <= w.size; at += 20) {
    pdw_put32(&w, at, 20);
    pdw_put32(&w, at + 4, 20);
    w.p[at + 12] = 'J';
    w.p[at + 14] = 1;
    w.p[at + 15] = 1;
    pdw_put32(&w, at + 16, 12);
    w.used = at + 20;
  }
  pdw_finish(&w);
  CHECK(pd_parse(&pd, w.p, w.size, "tiny") == -EFBIG &&
            strstr(pd.err, "more than 87380 entries"),
        "pd-6.4 too many entries: '%s'", pd.err);
  free(w.p);

  /* A name at the cap parses; one byte more is refused. */
  memset(name, 'n', sizeof(name));
  name[PD_MAX_NAME] = 0;
  pdw_init(&w, 4096, 0);
  pdw_long(&w, name, 1, 1, 7);
  pdw_finish(&w);
  CHECK_INT(parse(&w, &pd), 0, "pd-6.5 a %d-byte name parses", PD_MAX_NAME);
  pd_close(&pd);
  free(w.p);
  name[PD_MAX_NAME] = 'n';
  name[PD_MAX_NAME + 1] = 0;
  pdw_init(&w, 4096, 0);
  pdw_long(&w, name, 1, 1, 7);
  pdw_finish(&w);
  CHECK(parse(&w, &pd) == -EFBIG && strstr(pd.err, "name longer than 256"),
        "pd-6.6 a longer name is refused: '%s'", pd.err);
  free(w.p);

  /* Only the bytes up to used are read: an entry past it is not seen. */
  pdw_init(&w, 8192, 0);
  pdw_long(&w, "a.first", 1, 1, 1);
  pdw_finish(&w);
  pdw_long(&w, "a.second", 1, 1, 2); /* written after used was set */
  CHECK(!parse(&w, &pd) && pd.len == 32 + 40 && !pd_find(&pd, "a.second") &&
            pd_find(&pd, "a.first") && num(&pd, "sun.perfdata.size") == 8192,
        "pd-6.7 read up to used (%zu bytes of 8192)", pd.len);
  pd_close(&pd);
  free(w.p);
}

static void test_sparse(void)
{
  struct perfdata pd;
  struct pdw w;
  int fd;

  /* A valid prologue, then a hole to 1 MiB: planted, refused unread. */
  pdw_init(&w, 4096, 0);
  pdw_long(&w, "a.b", 1, 1, 1);
  pdw_finish(&w);
  fd = open("pd-sparse", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0 && write(fd, w.p, 4096) == 4096 && !ftruncate(fd, 1 << 20),
        "pd-7.1 make a sparse file");
  if (fd >= 0) close(fd);
  CHECK(pd_open(&pd, "pd-sparse", 0) == -EFBIG && strstr(pd.err, "sparse"),
        "pd-7.2 a sparse file is refused: '%s'", pd.err);
  unlink("pd-sparse");
  free(w.p);
}

int main(void)
{
  test_valid(0);
  test_valid(1);
  test_broken();
  test_truncation();
  test_stops();
  test_refresh();
  test_caps();
  test_sparse();
  return check_failures != 0;
}
