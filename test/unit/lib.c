/* lib.c - unit tests of core/lib, core/opt and core/out */
#include "core/jvmtool.h"
#include <math.h>
#include "check.h"

#define OPTS_FILE "test/unit/letters.opts"
#include "core/opt_table.h"

static void test_numbers(void)
{
  long long v = 0;
  int pid = 0;

  CHECK_INT(parse_long("42", 0, 100, &v), 0, "lib-1.1 parse_long 42");
  CHECK_INT(v, 42, "lib-1.2 value 42");
  CHECK_INT(parse_long("12abc", 0, 100, &v), -EINVAL, "lib-1.3 trailing junk");
  CHECK_INT(parse_long("", 0, 100, &v), -EINVAL, "lib-1.4 empty");
  CHECK_INT(parse_long(" 1", 0, 100, &v), -EINVAL, "lib-1.5 leading space");
  CHECK_INT(parse_long("101", 0, 100, &v), -ERANGE, "lib-1.6 above max");
  CHECK_INT(parse_long("99999999999999999999", 0, LLONG_MAX, &v), -ERANGE,
            "lib-1.7 overflow");
  CHECK_INT(parse_pid("-5", &pid), -EINVAL, "lib-1.8 negative pid");
  CHECK_INT(parse_pid("2147483648", &pid), -ERANGE, "lib-1.9 pid > INT_MAX");
  CHECK_INT(parse_pid("0123", &pid), 0, "lib-1.10 leading zero pid");
  CHECK_INT(pid, 123, "lib-1.11 leading zero value");
}

/* parse_time: jstat's interval grammar, plus minutes. */
static void test_times(void)
{
  static const struct {
    const char *s;
    int rc;
    long long n, unit;
  } t[] = {
      {"250", 0, 250, 0},       {"2s", 0, 2, 1000},
      {"500ms", 0, 500, 1},     {"1m", 0, 1, 60000},
      {"+3s", 0, 3, 1000},      {"-1", 0, -1, 0},
      {"2h", -EINVAL, 0, 0},    {"1mx", -EINVAL, 0, 0},
      {"ms", -EINVAL, 0, 0},    {"s", -EINVAL, 0, 0},
      {"", -EINVAL, 0, 0},      {"2147483648", -EINVAL, 0, 0},
      {"10sx", -EINVAL, 10, 0}, {"5msec", -EINVAL, 5, 0},
  };
  char name[64];

  for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
    long long n = 0, unit = 0;
    const char *u = NULL;
    int rc = parse_time(t[i].s, &n, &unit, &u);

    snprintf(name, sizeof(name), "lib-1.%zu parse_time '%s'", 12 + i, t[i].s);
    CHECK(rc == t[i].rc &&
              (rc && !u ? t[i].n == 0 : n == t[i].n && unit == t[i].unit),
          name);
  }
}

static void test_buf(void)
{
  struct buf b = {0};

  for (int i = 0; i < 1000; i++) buf_printf(&b, "%d,", i);
  CHECK(b.len == strlen(b.p), "lib-2.1 buf len matches");
  CHECK(!strncmp(b.p, "0,1,2,", 6), "lib-2.2 buf content");
  CHECK(!strcmp(b.p + b.len - 4, "999,"), "lib-2.3 buf tail");
  buf_free(&b);
  /* buf_printf formats into the room left and, when a line does not fit,
   * again at its length: every length around the room's edges */
  for (size_t pre = 0; pre < 300; pre++) {
    char want[700];
    int ok = 1;

    for (int w = 0; w < 300 && ok; w += 7) {
      struct buf c = {0};

      memset(want, 'x', pre);
      snprintf(want + pre, sizeof(want) - pre, "%*d|", w, w);
      buf_add(&c, want, pre);
      buf_printf(&c, "%*d|", w, w);
      ok = c.len == strlen(want) && !strcmp(c.p, want);
      buf_free(&c);
    }
    if (!ok || pre == 299)
      CHECK(ok, "lib-2.4 buf_printf after %zu bytes: every width", pre);
    if (!ok) break;
  }
  {
    static const struct {
      int64_t v;
      const char *s;
    } t[] = {{0, "0"},
             {-1, "-1"},
             {9, "9"},
             {10, "10"},
             {INT64_MAX, "9223372036854775807"},
             {INT64_MIN, "-9223372036854775808"}};

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
      buf_add_i64(&b, t[i].v);
      CHECK_STR(b.p, t[i].s, "lib-2.%zu buf_add_i64 %s", 5 + i, t[i].s);
      buf_free(&b);
    }
  }
  {
    unsigned long long v = 7;
    const char *e;

    e = scan_u64("fd:01 ", 16, &v);
    CHECK(e && *e == ':' && v == 0xfd, "lib-2.11 scan_u64 hex stops at ':'");
    e = scan_u64("18446744073709551615 x", 10, &v);
    CHECK(e && *e == ' ' && v == ULLONG_MAX, "lib-2.12 scan_u64 2^64-1");
    CHECK(!scan_u64(" 1", 10, &v), "lib-2.13 scan_u64 no leading space");
    CHECK(!scan_u64("g", 16, &v), "lib-2.14 scan_u64 no digit: NULL");
    e = scan_u64("0009a", 10, &v);
    CHECK(e && *e == 'a' && v == 9, "lib-2.15 scan_u64 decimal stops at 'a'");
    e = scan_u64("AbCdEf:", 16, &v);
    CHECK(e && *e == ':' && v == 0xabcdef, "lib-2.16 scan_u64 either case");
  }
}

static void test_json(void)
{
  struct buf b = {0};
  struct json_obj o;

  json_buf(&b, "a\"b\\c\n\x01\xff\xc3\xa9", 10);
  CHECK_STR(b.p, "\"a\\\"b\\\\c\\n\\u0001\xef\xbf\xbd\xc3\xa9\"",
            "lib-3.1 json escapes and replaces invalid UTF-8");
  b.len = 0;
  json_open(&o, &b, 1);
  json_int(&o, "pid", 4242);
  json_strz(&o, "main_class", "org.example.Main");
  json_strz(&o, "args", NULL);
  json_num(&o, "uptime_s", 2.5);
  json_num(&o, "cpu_pct", NAN);
  json_bool(&o, "alive", 1);
  json_bool(&o, "locked", -1);
  json_close(&o);
  CHECK_STR(b.p,
            "{\"pid\": 4242, \"main_class\": \"org.example.Main\", "
            "\"args\": null, \"uptime_s\": 2.5, \"cpu_pct\": null, "
            "\"alive\": true, \"locked\": null}",
            "lib-3.2 an object: ', ' and ': ', null for NULL, NaN, -1");
  b.len = 0;
  json_open(&o, &b, 0);
  json_str(&o, "a\"b", "x y", 1);
  json_key(&o, "l");
  buf_adds(&b, "[]");
  json_close(&o);
  CHECK_STR(b.p, "{\"a\\\"b\":\"x\",\"l\":[]}",
            "lib-3.3 compact; keys escaped; n bytes of a value");
  buf_free(&b);
}

static void test_read_file(void)
{
  char *data;
  size_t len;
  FILE *f = fopen("lib-test-file", "w");

  for (int i = 0; i < 100000; i++) fputc('a' + i % 26, f);
  fclose(f);
  CHECK_INT(read_file(AT_FDCWD, "lib-test-file", 0, 1 << 20, &data, &len), 0,
            "lib-4.1 read_file");
  CHECK_INT(len, 100000, "lib-4.2 whole file read");
  free(data);
  CHECK_INT(read_file(AT_FDCWD, "lib-test-file", 0, 1000, &data, &len), -EFBIG,
            "lib-4.3 over max is EFBIG");
  CHECK_INT(read_file(AT_FDCWD, "no-such-file", 0, 1000, &data, &len), -ENOENT,
            "lib-4.4 missing file");
  unlink("lib-test-file");
}

/* opt_parse with stdout (where --help goes) and stderr (usage errors)
 * sent to /dev/null. */
static int parse_quiet(int flags, int argc, char **argv, struct args *a)
{
  int out = dup(1), err = dup(2), null = open("/dev/null", O_WRONLY), rc;

  fflush(stdout);
  dup2(null, 1);
  dup2(null, 2);
  rc = opt_parse(opt_rows, opt_usage, flags, argc, argv, a);
  fflush(stdout);
  dup2(out, 1);
  dup2(err, 2);
  close(out);
  close(err);
  close(null);
  return rc;
}

static void test_opt(void)
{
  char *human[] = {"letters", "-H", "x", NULL};
  char *help[] = {"letters", "--help", NULL};
  char *h[] = {"letters", "-h", NULL};
  char *words[] = {"letters", "-gcutil", "-options", "-Hc",
                   "5",       "x",       "-3",       NULL};
  struct args a;

  CHECK_INT(parse_quiet(0, 3, human, &a), -1, "lib-5.1 -H is an option");
  CHECK_INT(a.count[OPT_H], 1, "lib-5.2 -H counted under OPT_H, not help");
  CHECK_INT(OPTS_NROWS, 7, "lib-5.3 an option may be called count");
  CHECK_INT(parse_quiet(0, 2, help, &a), 0, "lib-5.4 --help: help, exit 0");
  CHECK_INT(parse_quiet(0, 2, h, &a), 0, "lib-5.5 -h alone: help");
  CHECK_INT(parse_quiet(OPTS_DASH_WORDS, 7, words, &a), -1,
            "lib-5.6 dash words parse");
  CHECK_INT(a.nwords, 1, "lib-5.7 one word taken");
  CHECK_STR(a.nwords ? a.words[0] : "", "gcutil", "lib-5.8 the word");
  CHECK_INT(a.count[OPT_options], 1, "lib-5.9 -options is --options");
  CHECK_STR(a.val[OPT_count], "5", "lib-5.10 -Hc 5 as getopt reads it");
  CHECK_INT(a.count[OPT_H], 1, "lib-5.11 -Hc: a cluster of short options");
  CHECK_INT(a.argc, 2, "lib-5.12 operands x and -3");
  CHECK_STR(a.argc > 1 ? a.argv[1] : "", "-3",
            "lib-5.13 a negative number is an operand");
}

/* Typed rows: defaults, ranges, words; every refusal is a usage error. */
static void test_typed(void)
{
  char *none[] = {"letters", NULL};
  char *good[] = {"letters", "--wait",  "1.5s", "--width=100", "--kind",
                  "lock",    "--ratio", "0",    NULL};
  static const struct {
    const char *opt, *val;
  } bad[] = {
      {"--wait", "0"},   {"--wait", "2d"},   {"--wait", "1.5x"},
      {"--width", "99"}, {"--width", "1e3"}, {"--kind", "allocs"},
      {"--kind", "x"},   {"--ratio", "1.5"}, {"--ratio", "nan"},
  };
  char name[80];
  struct args a;

  CHECK_INT(parse_quiet(0, 1, none, &a), -1, "lib-8.1 no options");
  CHECK(a.num[OPT_width] == 1200 && a.num[OPT_wait] == 30000000000LL &&
            a.word[OPT_kind] == 0 && a.real[OPT_ratio] == 0.5 &&
            !a.val[OPT_wait],
        "lib-8.2 defaults, and no value given");
  CHECK_INT(parse_quiet(0, 8, good, &a), -1, "lib-8.3 values in range");
  CHECK(a.num[OPT_wait] == 1500000000LL && a.num[OPT_width] == 100 &&
            a.word[OPT_kind] == 2 && a.real[OPT_ratio] == 0,
        "lib-8.4 values stored: 1.5s in ns, the word's index");
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    char *argv[] = {"letters", (char *)bad[i].opt, (char *)bad[i].val, NULL};

    snprintf(name, sizeof(name), "lib-8.%zu %s %s: usage error", 5 + i,
             bad[i].opt, bad[i].val);
    CHECK_INT(parse_quiet(0, 3, argv, &a), 2, name);
  }
}

/* Rule rows: EXCLUDE refuses two of its options, one alone is fine;
 * NEEDS refuses its first without its second, whatever the order. */
static void test_rules(void)
{
  char *one[] = {"letters", "--kind", "cpu", "x", NULL};
  char *two[] = {"letters", "-H", "x", "--kind", "cpu", NULL};
  char *last2[] = {"letters", "--kind", "cpu", "--human", NULL};
  char *alone[] = {"letters", "--ratio", "0.5", NULL};
  char *both[] = {"letters", "--width", "200", "--ratio", "0.5", NULL};
  char *other[] = {"letters", "--width", "200", NULL};
  struct args a;

  CHECK_INT(parse_quiet(0, 4, one, &a), -1, "lib-10.1 one of a group");
  CHECK_INT(parse_quiet(0, 5, two, &a), 2,
            "lib-10.2 two of a group: -H "
            "(a short letter) and --kind");
  CHECK_INT(parse_quiet(0, 4, last2, &a), 2,
            "lib-10.3 the other order, long names");
  CHECK_INT(parse_quiet(0, 3, alone, &a), 2,
            "lib-10.4 --ratio without "
            "--width");
  CHECK_INT(parse_quiet(0, 5, both, &a), -1, "lib-10.5 --ratio with --width");
  CHECK_INT(parse_quiet(0, 3, other, &a), -1, "lib-10.6 --width alone");
}

/* parse_span: the time grammar of every option; span_text reads back. */
static void test_spans(void)
{
  static const struct {
    const char *s;
    int rc;
    long long ns;
  } t[] = {
      {"30", 0, 30000000000LL},   {"1.5s", 0, 1500000000LL},
      {"500ms", 0, 500000000LL},  {"1m", 0, 60000000000LL},
      {"2h", 0, 7200000000000LL}, {"1d", 0, 86400000000000LL},
      {"2us", 0, 2000},           {"7ns", 0, 7},
      {".5s", 0, 500000000LL},    {"0", 0, 0},
      {"", -EINVAL, 0},           {"s", -EINVAL, 0},
      {".", -EINVAL, 0},          {"-1s", -EINVAL, 0},
      {"+1s", -EINVAL, 0},        {"1e3", -EINVAL, 0},
      {"0x10", -EINVAL, 0},       {"1 s", -EINVAL, 0},
      {"1.5x", -EINVAL, 0},       {"99999999d", -EINVAL, 0},
      {"1..5s", -EINVAL, 0},
  };
  static const struct {
    long long ns;
    const char *s;
  } back[] = {
      {30000000000LL, "30s"},
      {1500000000LL, "1500ms"},
      {86400000000000LL, "1d"},
      {60000000000LL, "1m"},
      {0, "0ns"},
      {1001, "1001ns"},
  };
  char name[64];

  for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
    long long ns = 0;
    int rc = parse_span(t[i].s, &ns);

    snprintf(name, sizeof(name), "lib-9.%zu parse_span '%s'", 1 + i, t[i].s);
    CHECK(rc == t[i].rc && (rc || ns == t[i].ns), name);
  }
  for (size_t i = 0; i < sizeof(back) / sizeof(back[0]); i++) {
    struct buf b = {0};

    span_text(&b, back[i].ns);
    snprintf(name, sizeof(name), "lib-9.%zu span_text %s", 30 + i, back[i].s);
    CHECK_STR(b.p, back[i].s, name);
    buf_free(&b);
  }
}

static void test_nearest(void)
{
  const char *names[] = {"ps", "stat", "dump", "clean", "jcmd", "collapse"};

  CHECK_INT(nearest_name("px", names, 6), 0, "lib-6.1 px -> ps");
  CHECK_INT(nearest_name("colapse", names, 6), 5,
            "lib-6.2 colapse -> collapse");
  CHECK_INT(nearest_name("stats", names, 6), 1, "lib-6.3 stats -> stat");
  CHECK_INT(nearest_name("frobnicate", names, 6), -1, "lib-6.4 nothing near");
}

int main(void)
{
  test_opt();
  test_typed();
  test_rules();
  test_spans();
  test_nearest();
  test_numbers();
  test_times();
  test_buf();
  test_json();
  test_read_file();
  return check_failures != 0;
}
