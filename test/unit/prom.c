/* prom.c - unit tests of core/prom at its seam: the exposition store
 * (prom_sample, prom_comment, prom_finish: one TYPE a family, a series
 * once, families grouped and sorted, comments first) and the escaping of
 * label values, HELP text and comments (core/out.h), with what the text
 * exposition format 0.0.4 requires as the oracle; then one JVM's
 * PerfData (test/unit/pdwriter.h) with --raw's name rule and ceiling. */
#include "core/jvmtool.h"
#include "core/perfdata.h"
#include "core/prom.h"
#include "check.h"
#include "pdwriter.h"

/* A string literal and its length (NULs inside counted). */
#define LIT(s) s, sizeof(s) - 1

static char *label(const char *s, size_t n)
{
  struct buf b = {0};

  prom_label_buf(&b, s, n);
  buf_addc(&b, 0);
  return b.p;
}

static char *help(const char *s, size_t n)
{
  struct buf b = {0};

  prom_help_buf(&b, s, n);
  buf_addc(&b, 0);
  return b.p;
}

static void test_escaping(void)
{
  char *s;

  s = label(LIT("a\\b\"c\nd"));
  CHECK_STR(s, "a\\\\b\\\"c\\nd",
            "prom-1.1 label value: backslash, quote, newline escaped");
  free(s);
  s = help(LIT("a\\b\"c\nd"));
  CHECK_STR(s, "a\\\\b\"c\\nd",
            "prom-1.2 HELP text: backslash and newline escaped, a quote kept");
  free(s);
  s = label(LIT("x\xff\xc3(y\0z\xc3\xa9"));
  CHECK_STR(s, "x\xef\xbf\xbd\xef\xbf\xbd(y\xef\xbf\xbdz\xc3\xa9",
            "prom-1.3 label value: invalid UTF-8 and NUL as U+FFFD, valid "
            "UTF-8 kept");
  free(s);
  s = help(LIT("a\tb\x1b[2J\x7f"));
  CHECK_STR(s,
            "a\xef\xbf\xbd"
            "b\xef\xbf\xbd[2J\xef\xbf\xbd",
            "prom-1.4 HELP text: other control characters as U+FFFD");
  free(s);
  s = label(LIT("a\tb"));
  CHECK_STR(s, "a\tb", "prom-1.5 label value: a tab is legal and kept");
  free(s);
}

/* Hand an exposition to promtool, the format's own checker (the run
 * skips when it is not installed). */
static void promtool(const struct buf *b, const char *name)
{
  FILE *f;

  if (system("command -v promtool >/dev/null 2>&1")) {
    printf("SKIP: %s (needs: promtool)\n", name);
    return;
  }
  f = popen("promtool check metrics >/dev/null 2>&1", "w");
  CHECK(f && fwrite(b->p, 1, b->len, f) == b->len && pclose(f) == 0, "%s",
        name);
}

/* A small exposition, built out of order. */
static void test_store(void)
{
  struct prom p;
  struct buf out = {0};

  prom_init(&p, 0);
  prom_comment(&p, "jvm 42 left out:\nno \"PerfData\"");
  prom_sample(&p, "zeta", "gauge", "Last family", "", "pid=\"1\"", "", 1.5);
  prom_sample(&p, "alpha_total", "counter", "First\nfamily \\", "", "pid=\"1\"",
              "", 3);
  prom_sample(&p, "zeta", "gauge", "ignored: the first help stays", "",
              "pid=\"2\"", "", 2);
  prom_sample(&p, "alpha_total", "counter", "", "", "pid=\"1\"", "", 4);
  CHECK_INT(p.drops.collision, 1,
            "prom-2.1 the same series twice: the second dropped, counted");
  prom_sample(&p, "zeta", "counter", "", "", "pid=\"3\"", "", 5);
  CHECK_INT(p.drops.collision, 2,
            "prom-2.2 a sample of another type for a family: dropped");
  prom_sample(&p, "alpha_total", "counter", "", "", "pid=\"1\"", ",pool=\"x\"",
              1e15);
  prom_sample(&p, "mid", "summary", "A summary", "_count", "pid=\"1\"", "", 0);
  prom_sample(&p, "mid", "summary", "", "_sum", "pid=\"1\"", "", 0.25);
  prom_finish(&p, &out);
  CHECK_STR(out.p,
            "# jvm 42 left out:\\nno \"PerfData\"\n"
            "# HELP alpha_total First\\nfamily \\\\\n"
            "# TYPE alpha_total counter\n"
            "alpha_total{pid=\"1\"} 3\n"
            "alpha_total{pid=\"1\",pool=\"x\"} 1000000000000000\n"
            "# HELP mid A summary\n"
            "# TYPE mid summary\n"
            "mid_count{pid=\"1\"} 0\n"
            "mid_sum{pid=\"1\"} 0.25\n"
            "# HELP zeta Last family\n"
            "# TYPE zeta gauge\n"
            "zeta{pid=\"1\"} 1.5\n"
            "zeta{pid=\"2\"} 2\n",
            "prom-2.3 comments first (one line), families sorted by name, "
            "each with HELP and TYPE once, samples together in arrival "
            "order, whole numbers without a fraction");
  CHECK(p.nfam == 0 && p.lines.p == NULL && p.series.used == 0,
        "prom-2.4 prom_finish leaves the store empty");
  promtool(&out, "prom-2.5 promtool check metrics finds nothing in it");
  buf_free(&out);
}

/* One JVM from PerfData built in memory; --raw keeps HotSpot names only,
 * PROM_MAX_RAW of them. */
static void test_jvm(void)
{
  struct pdw w;
  struct perfdata pd;
  struct prom p;
  struct prom_drops d;
  struct buf out = {0};
  struct jvm j;
  unsigned char *data;
  char name[64];
  int rc, kept = 0;

  pdw_init(&w, 1 << 17, 0);
  pdw_long(&w, "sun.bad-name.x", PD_U_NONE, PD_V_VARIABLE, 1);
  for (int i = 0; i < PROM_MAX_RAW + 5; i++) {
    snprintf(name, sizeof(name), "x.many.c%d", i);
    pdw_long(&w, name, PD_U_NONE, PD_V_VARIABLE, i);
  }
  data = pdw_finish(&w);
  rc = pd_parse(&pd, data, w.size, "test");
  if (rc) {
    CHECK(0, "prom-3.1 the PerfData parses (%d)", rc);
    free(data);
    return;
  }
  jvm_init(&j); /* a file alone: no pid, no /proc folder */
  j.pd = &pd;
  prom_init(&p, PROM_RAW);
  prom_add_jvm(&p, &j, &d);
  prom_finish(&p, &out);
  CHECK(d.name == 1 && d.limit == 5,
        "prom-3.1 --raw: a name outside [A-Za-z0-9._] dropped (%zu), and "
        "what is over PROM_MAX_RAW (%zu)",
        d.name, d.limit);
  CHECK(strstr(out.p, "jvmtool_dropped_counters{main_class=\"\","
                      "reason=\"name\"} 1\n") &&
            strstr(out.p, "jvmtool_dropped_counters{main_class=\"\","
                          "reason=\"limit\"} 5\n") &&
            strstr(out.p, "# TYPE jvmtool_dropped_counters gauge\n") &&
            !strstr(out.p, "bad-name"),
        "prom-3.2 the drops are in the exposition, the bad name is not");
  for (const char *at = out.p; (at = strstr(at, "\nhotspot_x_many_c")); at++)
    kept++;
  CHECK_INT(kept, PROM_MAX_RAW,
            "prom-3.3 --raw: PROM_MAX_RAW counters kept, not one more");
  promtool(&out, "prom-3.4 promtool check metrics finds nothing in it");
  buf_free(&out);
  pd_close(&pd);
  free(data);
}

int main(void)
{
  test_escaping();
  test_store();
  test_jvm();
  return check_failures != 0;
}
