/* expr.h - jstat's option language: option/column specs and expressions
 *
 * A spec text holds blocks
 *   option NAME { column { header "^S0^" data a/b*100 width 6 format "0.00"
 *                          scale K align right required true } ... }
 * with C and C++ style comments (docs/jvmstat.md §4.5). It is parsed once; a
 * column's expression is then resolved once per target against that
 * target's counters (missing -> NaN, or 0 when required; constants folded)
 * and evaluated per sample in doubles.
 */
#ifndef EXPR_H
#define EXPR_H

#include "core/format.h"

enum expr_op {
  EXPR_NUM,
  EXPR_STR,
  EXPR_VAR,
  EXPR_NOW,
  EXPR_ADD,
  EXPR_SUB,
  EXPR_MUL,
  EXPR_DIV,
  EXPR_NEG
};

struct expr {
  enum expr_op op;
  double num;    /* EXPR_NUM */
  char *str;     /* EXPR_STR: the text; EXPR_VAR: the counter name */
  int handle;    /* EXPR_VAR once resolved: what read_* is given */
  int is_string; /* EXPR_VAR once resolved: a live string counter */
  struct expr *l, *r;
};

struct expr_column {
  char *header; /* spec text, carets included */
  struct expr *data;
  char *format; /* DecimalFormat pattern; "0" when absent */
  struct fmt_pattern pattern;
  int width;            /* the spec's width statement, 0 when absent */
  enum fmt_align align; /* center when absent */
  double scale;         /* printed value = value / scale */
  int required;
};

struct expr_option {
  char *name;
  int jdk; /* "option NAME jdk N": jstat's layout up to JDK N
                           (0: no bound, the newest) */
  struct expr_column *cols;
  int ncols;
};

struct expr_spec {
  struct expr_option *opts;
  int nopts;
};

/* Parse spec text (len bytes) and append its options to spec, which starts
 * zeroed. Returns 0, or -EINVAL with *err set to a malloc'd one-line
 * message "line N: ..." (caller frees); spec keeps what came before. */
int expr_spec_parse(struct expr_spec *spec, const char *text, size_t len,
                    char **err);
/* The same, keeping only the options named in only (NULL-terminated;
 * NULL keeps all): the others are skipped to their closing brace, not
 * parsed (a syntax error inside one goes unseen). For the built-in spec,
 * where a run needs one option of dozens. */
int expr_spec_parse_only(struct expr_spec *spec, const char *text, size_t len,
                         const char *const *only, char **err);
/* The first option called name, or NULL. */
const struct expr_option *expr_spec_find(const struct expr_spec *spec,
                                         const char *name);
/* The first option called name whose layout serves JDK jdk: its bound is
 * none or at least jdk (variants are written oldest first; jdk INT_MAX
 * picks an unbounded one). NULL if none. */
const struct expr_option *expr_spec_find_jdk(const struct expr_spec *spec,
                                             const char *name, int jdk);
void expr_spec_free(struct expr_spec *spec);

/* Parse one expression (for tests and tools). NULL with *err on error. */
struct expr *expr_parse(const char *text, char **err);
void expr_free(struct expr *e);
/* Call fn for every counter name the expression names, in order. */
void expr_names(const struct expr *e, void (*fn)(void *ctx, const char *),
                void *ctx);

/* What a counter is at resolve time; the lookup fills it. */
enum expr_kind {
  EXPR_MISSING,
  EXPR_CONST_LONG,
  EXPR_CONST_STRING,
  EXPR_LIVE_LONG,
  EXPR_LIVE_STRING
};
struct expr_counter {
  enum expr_kind kind;
  long long value;    /* EXPR_CONST_LONG */
  const char *string; /* EXPR_CONST_STRING (copied) */
  int handle;         /* EXPR_LIVE_*: passed back to the readers */
};

struct expr_source {
  void (*lookup)(void *ctx, const char *name, struct expr_counter *out);
  long long (*read_long)(void *ctx, int handle);
  const char *(*read_string)(void *ctx, int handle);
  uint64_t (*now_ms)(void *ctx); /* jstat.timestamp; NULL = wall clock */
  void *ctx;
};

/* A resolved, constant-folded copy of e for one target (caller frees with
 * expr_free). jstat.timestamp is the wall clock in ms, as in JDK 25. */
struct expr *expr_resolve(const struct expr *e, int required,
                          const struct expr_source *src);

/* Evaluate a resolved expression. Returns the number (NaN for missing
 * counters, x/0 and strings in arithmetic), or sets *str to the string
 * when the whole expression is a string counter (then returns NaN). */
double expr_eval(const struct expr *e, const struct expr_source *src,
                 const char **str);

#endif
