/* expr.c - unit tests of core/expr: the option language, resolution and
 * evaluation through a fake counter source, and the built-in spec: every
 * column parses and names counters that exist in a real PerfData file */
#include "core/jvmtool.h"
#include "core/expr.h"

#include <math.h>

#include "check.h"

/* A fake target: a few counters by name. */
static const struct fake {
  const char *name;
  enum expr_kind kind;
  long long value;
  const char *string;
} fakes[] = {
    {"cap", EXPR_LIVE_LONG, 160, NULL},
    {"used", EXPR_LIVE_LONG, 7, NULL},
    {"zero", EXPR_LIVE_LONG, 0, NULL},
    {"freq", EXPR_CONST_LONG, 1000000000, NULL},
    {"ver", EXPR_CONST_STRING, 0, "17.0.15"},
    {"cause", EXPR_LIVE_STRING, 0, "G1 Evacuation Pause"},
    {"begin", EXPR_LIVE_LONG, 1000, NULL},
};
static int lookups;

static void fake_lookup(void *ctx, const char *name, struct expr_counter *c)
{
  lookups++;
  for (size_t i = 0; i < sizeof(fakes) / sizeof(*fakes); i++)
    if (!strcmp(fakes[i].name, name)) {
      c->kind = fakes[i].kind;
      c->value = fakes[i].value;
      c->string = fakes[i].string;
      c->handle = (int)i;
      return;
    }
  c->kind = EXPR_MISSING;
}

static long long fake_long(void *ctx, int h)
{
  return fakes[h].value;
}
static const char *fake_string(void *ctx, int h)
{
  return fakes[h].string;
}
static uint64_t fake_now(void *ctx)
{
  return 3500;
}

static const struct expr_source src = {fake_lookup, fake_long, fake_string,
                                       fake_now, NULL};

static double run(const char *text, int required, const char **str)
{
  char *err = NULL;
  struct expr *e = expr_parse(text, &err), *r;
  const char *s;
  double v;

  if (!e) {
    printf("parse error: %s: %s\n", text, err);
    free(err);
    return -12345;
  }
  r = expr_resolve(e, required, &src);
  static char keep[256];

  v = expr_eval(r, &src, &s);
  if (str) *str = s ? (snprintf(keep, sizeof(keep), "%s", s), keep) : NULL;
  expr_free(e);
  expr_free(r);
  return v;
}

static int sparse(struct expr_spec *spec, const char *text, char **err)
{
  return expr_spec_parse(spec, text, strlen(text), err);
}

static int parse_fails(const char *text, const char *want)
{
  char *err = NULL;
  struct expr *e = expr_parse(text, &err);
  int ok = !e && err && strstr(err, want);

  if (!ok) printf("  got: %s\n", err ? err : "(no error)");
  expr_free(e);
  free(err);
  return ok;
}

/* Fixture files: is "name\0" stored in any of them? */
static struct buf files[64];
static int nfiles;

static void load_fixtures(void)
{
  const char *dirs[] = {getenv("JT_FIXTURES"), "../shared/fixtures/hsperfdata",
                        "/work/shared/fixtures/hsperfdata"};
  char path[4096];

  for (int i = 0; i < 3 && !nfiles; i++) {
    DIR *d = dirs[i] ? opendir(dirs[i]) : NULL;
    struct dirent *de;

    if (!d) continue;
    while ((de = readdir(d)) && nfiles < 64) {
      char *data;
      size_t len;

      snprintf(path, sizeof(path), "%s/%s", dirs[i], de->d_name);
      if (de->d_name[0] == '.' ||
          read_file(AT_FDCWD, path, 0, 1 << 20, &data, &len))
        continue;
      files[nfiles].p = data;
      files[nfiles++].len = len;
    }
    closedir(d);
  }
}

static void check_counter(void *ctx, const char *name)
{
  const char *opt = ctx;
  int found = 0;

  if (!strcmp(name, "jstat.timestamp")) return; /* the wall clock */
  for (int i = 0; i < nfiles && !found; i++)
    found = memmem(files[i].p, files[i].len, name, strlen(name) + 1) != NULL;
  CHECK(found, "-%s names %s, which a real PerfData file has", opt, name);
}

static void builtin_spec(void)
{
  struct expr_spec spec = {0};
  char *err = NULL, path[4096], *text = NULL;
  size_t len = 0;
  const char *want[] = {"class",         "compiler",      "gc",
                        "gccapacity",    "gccause",       "gcmetacapacity",
                        "gcnew",         "gcnewcapacity", "gcold",
                        "gcoldcapacity", "gcutil",        "printcompilation",
                        "timestamp"};
  /* the header line lengths of docs/jvmstat.md §7.1; timestamp has two
   * columns of 15, a live JVM's and a saved file's (specs/jstat.spec) */
  const int lens[] = {42,  56,  200, 209, 142, 111, 109,
                      131, 116, 100, 100, 27,  31};

  /* the binary carries this file gzip'd, comments dropped (build.d/stat.sh) */
  snprintf(path, sizeof(path), "%s/specs/jstat.spec",
           getenv("TOP") ? getenv("TOP") : ".");
  CHECK(!read_file(AT_FDCWD, path, 0, 1 << 20, &text, &len), "%s read", path);
  CHECK(text && !expr_spec_parse(&spec, text, len, &err),
        "built-in spec parses (%s)", err ? err : "ok");
  /* stat parses only the option it runs (expr_spec_parse_only): each one
   * alone comes out as it does among all, variants included */
  for (int i = 0; text && i < 13; i++) {
    struct expr_spec one = {0};
    const char *only[] = {want[i], NULL};
    int same = !expr_spec_parse_only(&one, text, len, only, &err);

    for (int k = 0, j = 0; same && k < spec.nopts; k++) {
      const struct expr_option *a = &spec.opts[k], *b = &one.opts[j];

      if (strcmp(a->name, want[i])) continue;
      same = j++ < one.nopts && !strcmp(b->name, a->name) && b->jdk == a->jdk &&
             b->ncols == a->ncols;
      for (int c = 0; same && c < a->ncols; c++)
        same = !strcmp(a->cols[c].header, b->cols[c].header) &&
               a->cols[c].width == b->cols[c].width;
      if (k == spec.nopts - 1) same = same && j == one.nopts;
    }
    CHECK(same && one.nopts > 0, "expr-9.%d -%s parsed alone = among all",
          1 + i, want[i]);
    expr_spec_free(&one);
  }
  free(text);
  /* and the variants: timestamp up to 21, nine options up to 11, gcutil
   * up to 8 (docs/jvmstat.md §7.2) */
  CHECK_INT(spec.nopts, 13 + 11, "twelve options, timestamp, variants");
  CHECK_INT(expr_spec_find_jdk(&spec, "gcutil", 8)->jdk, 8, "gcutil of 8");
  CHECK_INT(expr_spec_find_jdk(&spec, "gcutil", 6)->jdk, 8, "gcutil of 6");
  CHECK_INT(expr_spec_find_jdk(&spec, "gcutil", 9)->jdk, 11, "gcutil of 9");
  CHECK_INT(expr_spec_find_jdk(&spec, "gc", 8)->jdk, 11, "gc of 8: 11's");
  CHECK_INT(expr_spec_find_jdk(&spec, "gc", 12)->jdk, 0, "gc of 12: 17's");
  CHECK_INT(expr_spec_find_jdk(&spec, "class", 11)->jdk, 0, "class of 11");
  CHECK_INT(expr_spec_find_jdk(&spec, "gcutil", 8)->ncols, 11,
            "JDK 8's gcutil: 11 columns");
  load_fixtures();
  for (int i = 0; i < 13; i++) {
    const struct expr_option *o = expr_spec_find_jdk(&spec, want[i], INT_MAX);
    struct buf h = {0};

    CHECK(o != NULL, "-%s defined", want[i]);
    if (!o) continue;
    for (int c = 0; c < o->ncols; c++) {
      if (c) buf_addc(&h, ' ');
      fmt_header(&h, o->cols[c].header, o->cols[c].width,
                 (int)strlen(o->cols[c].format));
      if (nfiles) expr_names(o->cols[c].data, check_counter, (void *)want[i]);
    }
    CHECK_INT(h.len, lens[i], "-%s header length", want[i]);
    buf_free(&h);
  }
  if (!nfiles) printf("SKIP: expr counters in fixtures (no fixture folder)\n");
  expr_spec_free(&spec);
}

int main(void)
{
  struct expr_spec spec = {0};
  const char *s;
  char *err = NULL;
  double v;

  /* a skipped block: braces in strings and comments do not count, lines
   * still do; what comes after is parsed as before */
  {
    static const char t[] =
        "option a { column { header \"}{\\\"}\" data x } // }\n"
        "  /* } { */ column { header \"b\" data y } }\n"
        "option b {\n column { header \"B\" data z } }\n";
    static const char bad[] = "option a { column { header \"}\n } }\n";
    static const char late[] = "option a { }\noption b {\n column { x } }\n";
    const char *only[] = {"b", NULL};

    CHECK(!expr_spec_parse_only(&spec, t, sizeof(t) - 1, only, &err) &&
              spec.nopts == 1 && !strcmp(spec.opts[0].name, "b") &&
              spec.opts[0].ncols == 1,
          "expr-9.20 a skipped block with braces in strings and comments");
    expr_spec_free(&spec);
    memset(&spec, 0, sizeof(spec));
    CHECK(expr_spec_parse_only(&spec, bad, sizeof(bad) - 1, only, &err) &&
              err && !strcmp(err, "line 1: unterminated string"),
          "expr-9.21 an unterminated string in a skipped block: %s",
          err ? err : "no error");
    free(err);
    err = NULL;
    expr_spec_free(&spec);
    memset(&spec, 0, sizeof(spec));
    CHECK(expr_spec_parse_only(&spec, late, sizeof(late) - 1, only, &err) &&
              err && starts_with(err, "line 3:"),
          "expr-9.22 lines counted through a skipped block: %s",
          err ? err : "no error");
    free(err);
    err = NULL;
    expr_spec_free(&spec);
    memset(&spec, 0, sizeof(spec));
  }

  /* arithmetic, precedence, associativity */
  CHECK(run("1 + 2 * 3", 0, NULL) == 7, "precedence");
  CHECK(run("(1 + 2) * 3", 0, NULL) == 9, "parentheses");
  CHECK(run("8 - 4 - 2", 0, NULL) == 2, "left associative -");
  CHECK(run("8 / 4 / 2", 0, NULL) == 1, "left associative /");
  CHECK(run("0-cap", 0, NULL) == -160, "0-x");
  CHECK(run("-cap", 0, NULL) == -160, "unary minus (jstat crashes)");
  CHECK(run(".5 + 1.", 0, NULL) == 1.5, "numbers with a dot");
  /* jstat's percentage, evaluated in its order */
  v = run("(1 - ((cap - used) / cap)) * 100", 0, NULL);
  CHECK(v == (1 - ((160.0 - 7) / 160)) * 100, "percent formula order");
  /* x/0 is NaN, never infinity; missing counters */
  CHECK(isnan(run("cap / zero", 0, NULL)), "x/0 is NaN");
  CHECK(isnan(run("zero / zero", 0, NULL)), "0/0 is NaN");
  CHECK(isnan(run("cap / (0 * (0 - 1))", 0, NULL)), "x/-0 is NaN");
  CHECK(isnan(run("nosuch.counter + 1", 0, NULL)), "missing is NaN");
  CHECK(run("nosuch.counter + cap", 1, NULL) == 160, "required: 0");
  CHECK(run("(nosuch.a + nosuch.b) / freq", 1, NULL) == 0, "GCT shape");
  /* constants fold; strings */
  lookups = 0;
  CHECK(run("cap / freq", 0, NULL) == 160 / 1e9, "constant folded");
  CHECK_INT(lookups, 2, "each name looked up once");
  CHECK(isnan(run("ver + 1", 0, NULL)), "string constant in arithmetic");
  CHECK(isnan(run("cause * 2", 0, NULL)), "live string in arithmetic");
  run("ver", 0, &s);
  CHECK_STR(s, "17.0.15", "string constant");
  run("cause", 0, &s);
  CHECK_STR(s, "G1 Evacuation Pause", "live string");
  run("cap", 0, &s);
  CHECK(s == NULL, "numbers have no string");
  CHECK(run("(jstat.timestamp - begin) / 1000", 0, NULL) == 2.5,
        "jstat.timestamp is the clock");
  /* syntax */
  CHECK(parse_fails("1 +", "expected a number"), "dangling operator");
  CHECK(parse_fails("(1", "expected ')'"), "unclosed parenthesis");
  CHECK(parse_fails("1 2", "expected an operator"), "two operands");
  CHECK(parse_fails("data + 1", "found 'data'"), "reserved word");
  CHECK(parse_fails("1.5e3", "found 'e3'"), "no exponent");
  {
    struct buf deep = {0};

    for (int i = 0; i < 100000; i++) buf_adds(&deep, "(");
    CHECK(parse_fails(deep.p, "expression too long"), "deep nesting");
    deep.len = 0;
    for (int i = 0; i < 100000; i++) buf_adds(&deep, "a+");
    buf_adds(&deep, "a");
    CHECK(parse_fails(deep.p, "expression too long"), "long chain");
    buf_free(&deep);
  }

  /* spec files */
  CHECK(!sparse(&spec,
                "// a comment\noption mine { /* c */ column {\n"
                "  header \"^Cap^\" data cap/1024 scale K\n"
                "  format \"0.0\" width 3 width 4 align left\n"
                "  required true } }\n",
                &err),
        "user spec parses (%s)", err ? err : "ok");
  if (spec.nopts == 1) {
    const struct expr_column *c = &spec.opts[0].cols[0];

    CHECK_STR(spec.opts[0].name, "mine", "option name");
    CHECK_STR(c->header, "^Cap^", "header");
    CHECK_STR(c->format, "0.0", "format");
    CHECK_INT(c->width, 4, "a repeated statement overrides");
    CHECK_INT(c->align, FMT_LEFT, "align");
    CHECK(c->scale == 1024, "scale K");
    CHECK_INT(c->required, 1, "required");
  }
  expr_spec_free(&spec);
  CHECK(sparse(&spec, "option x { column { header \"a\" } }", &err) &&
            strstr(err, "missing data statement in "
                        "column 0"),
        "missing data (%s)", err);
  free(err);
  CHECK(sparse(&spec, "option x { column { data 1 } }", &err) &&
            strstr(err, "missing header"),
        "missing header (%s)", err);
  free(err);
  CHECK(sparse(&spec, "option x {\n column { data 1 scale Q } }", &err) &&
            strstr(err, "line 2: expected a scale"),
        "bad scale with line number (%s)", err);
  free(err);
  CHECK(sparse(&spec, "option y { column { header \"a", &err) &&
            strstr(err, "unterminated"),
        "unterminated string (%s)", err);
  free(err);
  CHECK(sparse(&spec,
               "option z { column { header \"a\" data 1 "
               "format \"0.0E0\" } }",
               &err) &&
            strstr(err, "unsupported format"),
        "unsupported format (%s)", err);
  free(err);
  expr_spec_free(&spec);
  /* default format, align and scale */
  CHECK(!sparse(&spec, "option d { column { header \"x\" data 1 } }", &err),
        "minimal column");
  if (spec.nopts == 1) {
    CHECK_STR(spec.opts[0].cols[0].format, "0", "default format 0");
    CHECK_INT(spec.opts[0].cols[0].align, FMT_CENTER, "default centre");
    CHECK(spec.opts[0].cols[0].scale == 1, "default raw");
  }
  expr_spec_free(&spec);

  builtin_spec();
  return check_failures != 0;
}
