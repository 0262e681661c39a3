/* fuzz_spec.c - jstat option language: parse any bytes as a spec, then
 * resolve, evaluate, format and render every column it defines.
 * Invariants beyond "no crash": a formatted value is never empty, and a
 * header cell is exactly as wide as fmt_header says (for ASCII headers). */
#include "core/jvmtool.h"
#include "core/expr.h"
#include "core/format.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Counters by the first letter of their name: missing, constant number,
 * constant string, live number, live string. */
static void lookup(void *ctx, const char *name, struct expr_counter *c)
{
  c->kind = (enum expr_kind)((unsigned char)name[0] % 5);
  c->value = (long long)strlen(name) * 1000003 - 7;
  c->string = name;
  c->handle = (int)strlen(name);
}

static long long rd_long(void *ctx, int h) { return h ? 1LL << (h % 63) : 0; }
static const char *rd_string(void *ctx, int h) { return h % 2 ? "x" : ""; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct expr_source src = {lookup, rd_long, rd_string, NULL, NULL};
  struct expr_spec spec = {0};
  char *err = NULL;

  expr_spec_parse(&spec, (const char *)data, size, &err);
  free(err);
  for (int i = 0; i < spec.nopts; i++) {
    for (int c = 0; c < spec.opts[i].ncols; c++) {
      const struct expr_column *col = &spec.opts[i].cols[c];
      struct expr *e = expr_resolve(col->data, col->required, &src);
      struct buf b = {0};
      const char *str;
      double v = expr_eval(e, &src, &str);
      int w;

      if (!str) {
        fmt_number(&b, v / col->scale, &col->pattern, 1);
        if (!b.len) abort();
      }
      b.len = 0;
      w = fmt_header(&b, col->header, col->width, (int)strlen(col->format));
      if (b.p && strspn(b.p, " ^abcdefghijklmnopqrstuvwxyz") == b.len &&
          col->header[0] == '^' && (int)b.len < w)
        abort();
      buf_free(&b);
      expr_free(e);
    }
  }
  expr_spec_free(&spec);
  return 0;
}
