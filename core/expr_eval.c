/* expr_eval.c - resolve and evaluate jstat's option language (expr.h)
 *
 * An expression parsed by core/expr.c is resolved once per target: each
 * counter name becomes a constant, a live counter's handle, or (missing)
 * NaN or 0; operators over constants are computed then. Evaluating walks
 * the resolved tree in doubles (where we differ from jstat: core/expr.c).
 */
#include "core/jvmtool.h"
#include "core/expr.h"

#include <math.h>

/* One operator on doubles, jstat's way: x/0 (also -0.0) is NaN, never
 * infinity; everything else is IEEE arithmetic. */
static double apply(enum expr_op op, double a, double b)
{
  switch (op) {
  case EXPR_ADD:
    return a + b;
  case EXPR_SUB:
    return a - b;
  case EXPR_MUL:
    return a * b;
  case EXPR_DIV:
    return b == 0 ? NAN : a / b;
  case EXPR_NEG:
    return -a;
  default:
    return NAN;
  }
}

static int literal(const struct expr *e)
{
  return e->op == EXPR_NUM || e->op == EXPR_STR;
}

struct expr *expr_resolve(const struct expr *e, int required,
                          const struct expr_source *src)
{
  struct expr *r = xzalloc(sizeof(*r));
  struct expr_counter c = {EXPR_MISSING, 0, NULL, 0};

  r->op = e->op;
  r->num = e->num;
  if (e->str) r->str = xstrdup(e->str);
  if (e->op == EXPR_VAR) {
    /* JDK 25 defines jstat.timestamp as the wall clock (for -t); JDK 17
     * had no such counter. A real counter of that name is not possible. */
    if (!strcmp(e->str, "jstat.timestamp")) {
      r->op = EXPR_NOW;
      return r;
    }
    src->lookup(src->ctx, e->str, &c);
    switch (c.kind) {
    case EXPR_MISSING: /* jstat: NaN, or 0 under "required true" */
      r->op = EXPR_NUM;
      r->num = required ? 0.0 : NAN;
      break;
    case EXPR_CONST_LONG:
      r->op = EXPR_NUM;
      r->num = (double)c.value;
      break;
    case EXPR_CONST_STRING:
      free(r->str);
      r->op = EXPR_STR;
      r->str = xstrdup(c.string ? c.string : "");
      break;
    default:
      r->handle = c.handle;
      r->is_string = c.kind == EXPR_LIVE_STRING;
    }
    return r;
  }
  if (e->l) r->l = expr_resolve(e->l, required, src);
  if (e->r) r->r = expr_resolve(e->r, required, src);
  /* Fold like jstat: an operator over literals is computed once; a string
   * literal operand counts as NaN. */
  if (r->l && literal(r->l) && (!r->r || literal(r->r))) {
    double a = r->l->op == EXPR_NUM ? r->l->num : NAN;
    double b = r->r && r->r->op == EXPR_NUM ? r->r->num : NAN;

    r->num = apply(r->op, a, b);
    r->op = EXPR_NUM;
    expr_free(r->l);
    expr_free(r->r);
    r->l = r->r = NULL;
  }
  return r;
}

static double eval(const struct expr *e, const struct expr_source *src)
{
  switch (e->op) {
  case EXPR_NUM:
    return e->num;
  case EXPR_STR:
    return NAN;
  case EXPR_NOW:
    return (double)(src->now_ms ? src->now_ms(src->ctx) : wall_ms());
  case EXPR_VAR:
    return e->is_string ? NAN : (double)src->read_long(src->ctx, e->handle);
  default:
    return apply(e->op, eval(e->l, src), e->r ? eval(e->r, src) : 0);
  }
}

double expr_eval(const struct expr *e, const struct expr_source *src,
                 const char **str)
{
  *str = NULL;
  if (e->op == EXPR_STR) {
    *str = e->str;
    return NAN;
  }
  if (e->op == EXPR_VAR && e->is_string) {
    *str = src->read_string(src->ctx, e->handle);
    if (!*str) *str = "";
    return NAN;
  }
  return eval(e, src);
}
