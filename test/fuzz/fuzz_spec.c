/* fuzz_spec.c - jstat's option language: parse, resolve, evaluate, format
 *
 * Invariants: every counter name a parsed expression names occurs in the
 * input text; a column always has an expression and a pattern that formats;
 * resolving and evaluating against counters that are missing, constant or
 * live (derived from the name) never crashes.
 */
#include "core/jvmtool.h"
#include "core/expr.h"
#include "test/fuzz/check.h"

static const char *text_of;

static void name_in_text(void *ctx, const char *name)
{
  INVARIANT(*name && memmem(text_of, (size_t)ctx, name, strlen(name)));
}

static void lookup(void *ctx, const char *name, struct expr_counter *out)
{
  unsigned h = 0;

  for (const char *p = name; *p; p++) h = h * 31 + (unsigned char)*p;
  memset(out, 0, sizeof(*out));
  out->kind = (enum expr_kind)(h % 5);
  out->value = (long long)h - 1000;
  out->string = "str";
  out->handle = (int)(h % 7);
}

static long long read_long(void *ctx, int handle)
{
  return handle * 3 - 7;
}
static const char *read_string(void *ctx, int handle)
{
  return "live";
}
static uint64_t fixed_now(void *ctx)
{
  return 1700000000000ULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct expr_spec spec = {0};
  struct expr_source src = {lookup, read_long, read_string, fixed_now, NULL};
  char *err = NULL, *text = xstrndup((const char *)data, size);

  text_of = text;
  if (expr_spec_parse(&spec, text, strlen(text), &err)) {
    INVARIANT(err && *err);
    free(err);
  }
  for (int i = 0; i < spec.nopts; i++) {
    const struct expr_option *o = &spec.opts[i];

    INVARIANT(expr_spec_find(&spec, o->name) != NULL);
    for (int c = 0; c < o->ncols; c++) {
      const struct expr_column *col = &o->cols[c];
      struct buf b = {0};
      const char *s = NULL;
      struct expr *r;
      double v;

      INVARIANT(col->data != NULL);
      expr_names(col->data, name_in_text, (void *)strlen(text));
      r = expr_resolve(col->data, col->required, &src);
      v = expr_eval(r, &src, &s);
      fmt_number(&b, col->scale ? v / col->scale : v, &col->pattern, 1);
      INVARIANT(b.len > 0);
      fmt_header(&b, col->header, col->width, (int)strlen(col->format));
      expr_free(r);
      buf_free(&b);
    }
  }
  expr_spec_free(&spec);
  free(text);
  return 0;
}
