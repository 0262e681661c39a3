/* expr.c - lexer and parser of jstat's option language (resolving and
 * evaluating: core/expr_eval.c)
 *
 * The lexer follows java.io.StreamTokenizer as jstat configures it: words
 * start with a letter, '_' or a byte >= 0xA0 and go on with digits and '.',
 * so "sun.gc.collector.0.time" is one word and "a-b" a subtraction; numbers
 * are digits with at most one '.', no exponent. Differences from jstat,
 * all on input jstat rejects or crashes on: unary minus works (jstat throws
 * a NullPointerException), a string counter in arithmetic is NaN (jstat
 * throws ClassCastException), and a syntax error anywhere in a spec text is
 * an error (jstat only parses the block it looks for).
 */
#include "core/jvmtool.h"
#include "core/expr.h"

enum tok { T_EOF, T_WORD, T_NUM, T_STR, T_CHAR, T_BAD };

struct lexer {
  const char *p, *end;
  int line;
  enum tok tok;
  struct buf text; /* T_WORD, T_STR */
  double num;      /* T_NUM */
  int ch;          /* T_CHAR */
  int nodes;       /* in the expression being parsed */
  char *err;
  const char *const *only; /* expr_spec_parse_only's names; NULL: all */
};

/* Expressions are evaluated recursively: bound their size (and so their
 * depth) so that no input can exhaust the stack. */
enum { MAX_NODES = 1000 };

static int word_start(int c)
{
  return isalpha(c) || c == '_' || c >= 0xA0;
}

/* Past spaces and comments from p, counting lines. */
static const unsigned char *blank(struct lexer *lx, const unsigned char *p,
                                  const unsigned char *e)
{
  for (;;) {
    while (p < e && *p <= ' ') lx->line += *p++ == '\n';
    if (p + 1 < e && p[0] == '/' && p[1] == '/') {
      while (p < e && *p != '\n') p++;
    } else if (p + 1 < e && p[0] == '/' && p[1] == '*') {
      for (p += 2; p < e && !(p[0] == '*' && p + 1 < e && p[1] == '/'); p++)
        lx->line += *p == '\n';
      p = p < e ? p + 2 : e;
    } else {
      return p;
    }
  }
}

static void next(struct lexer *lx)
{
  const unsigned char *p = (const unsigned char *)lx->p,
                      *e = (const unsigned char *)lx->end;

  lx->text.len = 0;
  if (lx->text.p) lx->text.p[0] = 0;
  p = blank(lx, p, e);
  if (p >= e) {
    lx->tok = T_EOF;
  } else if (word_start(*p)) {
    const unsigned char *s = p;

    while (p < e && (word_start(*p) || isdigit(*p) || *p == '.')) p++;
    buf_add(&lx->text, s, p - s);
    lx->tok = T_WORD;
  } else if (isdigit(*p) || *p == '.') {
    char tmp[64];
    size_t n = 0;
    int dots = 0;

    while (p < e && (isdigit(*p) || (*p == '.' && !dots++)) && n < 63)
      tmp[n++] = *p++;
    tmp[n] = 0;
    lx->num = strtod(tmp, NULL);
    lx->tok = T_NUM;
  } else if (*p == '"') {
    for (p++; p < e && *p != '"' && *p != '\n'; p++) {
      int c = *p;

      if (c == '\\' && p + 1 < e) {
        c = *++p;
        c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
      }
      buf_addc(&lx->text, (char)c);
    }
    if (p >= e || *p != '"') {
      lx->tok = T_BAD;
      lx->err = xasprintf("line %d: unterminated string", lx->line);
      lx->p = (const char *)p;
      return;
    }
    p++;
    lx->tok = T_STR;
  } else {
    lx->ch = *p++;
    lx->tok = T_CHAR;
  }
  if (!lx->text.p) buf_addc(&lx->text, 0), lx->text.len = 0;
  lx->p = (const char *)p;
}

static const char *tok_desc(struct lexer *lx, char *tmp, size_t n)
{
  switch (lx->tok) {
  case T_EOF:
    return "end of file";
  case T_WORD:
    snprintf(tmp, n, "'%.40s'", lx->text.p);
    return tmp;
  case T_STR:
    snprintf(tmp, n, "\"%.40s\"", lx->text.p);
    return tmp;
  case T_NUM:
    snprintf(tmp, n, "number %g", lx->num);
    return tmp;
  case T_CHAR:
    snprintf(tmp, n, "'%c'", lx->ch);
    return tmp;
  default:
    return "bad token";
  }
}

/* Record "line N: expected WHAT, found X" unless an error is set; -EINVAL. */
static int expected(struct lexer *lx, const char *what)
{
  char tmp[64];

  if (!lx->err)
    lx->err = xasprintf("line %d: expected %s, found %s", lx->line, what,
                        tok_desc(lx, tmp, sizeof(tmp)));
  return -EINVAL;
}

static int is_char(struct lexer *lx, int c)
{
  return lx->tok == T_CHAR && lx->ch == c;
}

static int is_word(struct lexer *lx, const char *w)
{
  return lx->tok == T_WORD && !strcmp(lx->text.p, w);
}

static const char *const reserved[] = {
    "option", "column", "data",  "header",   "width",
    "format", "align",  "scale", "required",
};

static int is_reserved(const char *w)
{
  for (size_t i = 0; i < sizeof(reserved) / sizeof(*reserved); i++)
    if (!strcmp(w, reserved[i])) return 1;
  return 0;
}

static struct expr *node(enum expr_op op, struct expr *l, struct expr *r)
{
  struct expr *e = xzalloc(sizeof(*e));

  e->op = op;
  e->l = l;
  e->r = r;
  return e;
}

static struct expr *parse_expr(struct lexer *lx);

static struct expr *parse_factor(struct lexer *lx)
{
  struct expr *e;

  if (++lx->nodes > MAX_NODES) {
    if (!lx->err) lx->err = xasprintf("line %d: expression too long", lx->line);
    return NULL;
  }
  if (is_char(lx, '(')) {
    next(lx);
    if (!(e = parse_expr(lx))) return NULL;
    if (!is_char(lx, ')')) {
      expected(lx, "')'");
      expr_free(e);
      return NULL;
    }
    next(lx);
    return e;
  }
  if (is_char(lx, '-') || is_char(lx, '+')) {
    int neg = lx->ch == '-';

    next(lx);
    if (!(e = parse_factor(lx))) return NULL;
    return neg ? node(EXPR_NEG, e, NULL) : e;
  }
  if (lx->tok == T_NUM) {
    e = node(EXPR_NUM, NULL, NULL);
    e->num = lx->num;
    next(lx);
    return e;
  }
  if (lx->tok == T_WORD && !is_reserved(lx->text.p)) {
    e = node(EXPR_VAR, NULL, NULL);
    e->str = xstrdup(lx->text.p);
    next(lx);
    return e;
  }
  expected(lx, "a number, a counter name or '('");
  return NULL;
}

static struct expr *parse_binary(struct lexer *lx, int level)
{
  struct expr *l = level ? parse_factor(lx) : parse_binary(lx, 1), *r;
  const char *ops = level ? "*/" : "+-";

  while (l && lx->tok == T_CHAR && strchr(ops, lx->ch)) {
    int c = lx->ch;

    next(lx);
    if (!(r = level ? parse_factor(lx) : parse_binary(lx, 1))) {
      expr_free(l);
      return NULL;
    }
    l = node(c == '+'   ? EXPR_ADD
             : c == '-' ? EXPR_SUB
             : c == '*' ? EXPR_MUL
                        : EXPR_DIV,
             l, r);
  }
  return l;
}

static struct expr *parse_expr(struct lexer *lx)
{
  return parse_binary(lx, 0);
}

/* A column's data expression: the node budget is per expression. */
static struct expr *parse_data(struct lexer *lx)
{
  lx->nodes = 0;
  return parse_expr(lx);
}

/* Scales divide the value. jstat computes T, P and percent with 32-bit int
 * arithmetic that ends in 0, so they give +-infinity (or NaN for 0): kept
 * for byte compatibility with user option files. */
static const struct {
  const char *name;
  double factor;
} scales[] = {
    {"raw", 1},        {"percent", 0},       {"K", 1024},
    {"M", 1048576},    {"G", 1073741824},    {"T", 0},
    {"P", 0},          {"p", 1e-11},         {"ps", 1e-11},
    {"n", 1e-8},       {"ns", 1e-8},         {"u", 1e-5},
    {"us", 1e-5},      {"m", 1e-2},          {"ms", 1e-2},
    {"s", 1},          {"sec", 1},           {"min", 1.0 / 60},
    {"h", 1.0 / 3600}, {"hour", 1.0 / 3600},
};

static int parse_stmt(struct lexer *lx, struct expr_column *c, int *done)
{
  *done = 0;
  if (is_word(lx, "data")) {
    next(lx);
    expr_free(c->data);
    return (c->data = parse_data(lx)) ? 0 : -EINVAL;
  }
  if (is_word(lx, "header") || is_word(lx, "format")) {
    char **dst = lx->text.p[0] == 'h' ? &c->header : &c->format;

    next(lx);
    if (lx->tok != T_STR) return expected(lx, "a quoted string");
    free(*dst);
    *dst = xstrdup(lx->text.p);
    if (dst == &c->format && fmt_pattern_parse(c->format, &c->pattern)) {
      lx->err =
          xasprintf("line %d: unsupported format \"%s\"", lx->line, c->format);
      return -EINVAL;
    }
  } else if (is_word(lx, "width")) {
    next(lx);
    if (lx->tok != T_NUM) return expected(lx, "a number");
    c->width = lx->num > 1000 ? 1000 : (int)lx->num;
  } else if (is_word(lx, "align")) {
    next(lx);
    if (is_word(lx, "left"))
      c->align = FMT_LEFT;
    else if (is_word(lx, "right"))
      c->align = FMT_RIGHT;
    else if (is_word(lx, "center"))
      c->align = FMT_CENTER;
    else
      return expected(lx, "left, center or right");
  } else if (is_word(lx, "scale")) {
    size_t i;

    next(lx);
    for (i = 0; i < sizeof(scales) / sizeof(*scales); i++)
      if (is_word(lx, scales[i].name)) break;
    if (i == sizeof(scales) / sizeof(*scales))
      return expected(lx, "a scale (raw, K, M, G, sec, ms, ...)");
    c->scale = scales[i].factor;
  } else if (is_word(lx, "required")) {
    next(lx);
    if (is_word(lx, "true"))
      c->required = 1;
    else if (is_word(lx, "false"))
      c->required = 0;
    else
      return expected(lx, "true or false");
  } else {
    *done = 1;
    return 0;
  }
  next(lx);
  return 0;
}

static void column_free(struct expr_column *c)
{
  free(c->header);
  free(c->format);
  expr_free(c->data);
}

static int parse_column(struct lexer *lx, struct expr_option *o)
{
  struct expr_column c = {.align = FMT_CENTER, .scale = 1};
  int done = 0, n = o->ncols;

  next(lx);
  if (!is_char(lx, '{')) return expected(lx, "'{'");
  next(lx);
  while (!done)
    if (parse_stmt(lx, &c, &done)) goto bad;
  if (!is_char(lx, '}')) {
    expected(lx, "a column statement or '}'");
    goto bad;
  }
  if (!c.data || !c.header) {
    lx->err = xasprintf("line %d: missing %s statement in column %d", lx->line,
                        c.data ? "header" : "data", n);
    goto bad;
  }
  if (!c.format) {
    c.format = xstrdup("0");
    fmt_pattern_parse(c.format, &c.pattern);
  }
  next(lx);
  o->cols = xrealloc(o->cols, (n + 1) * sizeof(*o->cols));
  o->cols[o->ncols++] = c;
  return 0;
bad:
  column_free(&c);
  return -EINVAL;
}

static void option_free(struct expr_option *o)
{
  for (int i = 0; i < o->ncols; i++) column_free(&o->cols[i]);
  free(o->cols);
  free(o->name);
}

static int wanted(const struct lexer *lx, const char *name)
{
  if (!lx->only) return 1;
  for (const char *const *n = lx->only; *n; n++)
    if (!strcmp(*n, name)) return 1;
  return 0;
}

/* Past the block whose '{' is the current token, to the token after its
 * '}', without parsing it: its braces counted outside strings and
 * comments, strings read as next() reads them. */
static int skip_block(struct lexer *lx)
{
  const unsigned char *p = (const unsigned char *)lx->p,
                      *e = (const unsigned char *)lx->end;
  int depth = 1;

  for (; p < e; p++) {
    int c = *p;

    if (c == '\n') {
      lx->line++;
    } else if (c == '{') {
      depth++;
    } else if (c == '}') {
      if (!--depth) break;
    } else if (c == '/' && p + 1 < e && (p[1] == '/' || p[1] == '*')) {
      p = blank(lx, p, e) - 1; /* a comment, to its end */
    } else if (c == '"') {
      for (p++; p < e && *p != '"' && *p != '\n'; p++)
        if (*p == '\\' && p + 1 < e) p++;
      if (p >= e || *p != '"') {
        lx->err = xasprintf("line %d: unterminated string", lx->line);
        return -EINVAL;
      }
    }
  }
  if (p < e) p++; /* past the '}' */
  if (depth) return expected(lx, "'}'");
  lx->p = (const char *)p;
  next(lx);
  return 0;
}

static int parse_option(struct lexer *lx, struct expr_spec *spec)
{
  struct expr_option o = {0};

  if (!is_word(lx, "option")) return expected(lx, "'option'");
  next(lx);
  if (lx->tok != T_WORD || is_reserved(lx->text.p))
    return expected(lx, "an option name");
  o.name = xstrdup(lx->text.p);
  next(lx);
  if (is_word(lx, "jdk")) { /* a variant: jstat's layout up to JDK N */
    next(lx);
    if (lx->tok != T_NUM || lx->num < 1 || lx->num > 1000) {
      free(o.name);
      return expected(lx, "a JDK version after 'jdk'");
    }
    o.jdk = (int)lx->num;
    next(lx);
  }
  if (!is_char(lx, '{')) {
    free(o.name);
    return expected(lx, "'{'");
  }
  if (!wanted(lx, o.name)) {
    free(o.name);
    return skip_block(lx);
  }
  next(lx);
  while (is_word(lx, "column"))
    if (parse_column(lx, &o)) goto bad;
  if (!is_char(lx, '}')) {
    expected(lx, "'column' or '}'");
    goto bad;
  }
  next(lx);
  spec->opts = xrealloc(spec->opts, (spec->nopts + 1) * sizeof(*spec->opts));
  spec->opts[spec->nopts++] = o;
  return 0;
bad:
  option_free(&o);
  return -EINVAL;
}

int expr_spec_parse(struct expr_spec *spec, const char *text, size_t len,
                    char **err)
{
  return expr_spec_parse_only(spec, text, len, NULL, err);
}

int expr_spec_parse_only(struct expr_spec *spec, const char *text, size_t len,
                         const char *const *only, char **err)
{
  struct lexer lx = {.p = text, .end = text + len, .line = 1, .only = only};
  int rc = 0;

  next(&lx);
  while (lx.tok != T_EOF && !(rc = parse_option(&lx, spec))) {
  }
  buf_free(&lx.text);
  *err = lx.err;
  return rc;
}

const struct expr_option *expr_spec_find(const struct expr_spec *spec,
                                         const char *name)
{
  for (int i = 0; i < spec->nopts; i++)
    if (!strcmp(spec->opts[i].name, name)) return &spec->opts[i];
  return NULL;
}

const struct expr_option *expr_spec_find_jdk(const struct expr_spec *spec,
                                             const char *name, int jdk)
{
  for (int i = 0; i < spec->nopts; i++) {
    const struct expr_option *o = &spec->opts[i];

    if (!strcmp(o->name, name) && (!o->jdk || o->jdk >= jdk)) return o;
  }
  return NULL;
}

void expr_spec_free(struct expr_spec *spec)
{
  for (int i = 0; i < spec->nopts; i++) option_free(&spec->opts[i]);
  free(spec->opts);
  spec->opts = NULL;
  spec->nopts = 0;
}

struct expr *expr_parse(const char *text, char **err)
{
  struct lexer lx = {.p = text, .end = text + strlen(text), .line = 1};
  struct expr *e;

  next(&lx);
  e = parse_data(&lx);
  if (e && lx.tok != T_EOF) {
    expected(&lx, "an operator or end of expression");
    expr_free(e);
    e = NULL;
  }
  buf_free(&lx.text);
  *err = lx.err;
  return e;
}

void expr_free(struct expr *e)
{
  if (!e) return;
  expr_free(e->l);
  expr_free(e->r);
  free(e->str);
  free(e);
}

void expr_names(const struct expr *e, void (*fn)(void *ctx, const char *),
                void *ctx)
{
  if (!e) return;
  if (e->op == EXPR_VAR) fn(ctx, e->str);
  expr_names(e->l, fn, ctx);
  expr_names(e->r, fn, ctx);
}
