/* opt_table.h - turn the spec rows in OPTS_FILE into this file's tables.
 * Include once, after defining OPTS_FILE (e.g. "specs/ps.opts"). Each row's
 * id becomes OPT_<id>; OPTS_NROWS counts the rows. */
#ifndef OPTS_FILE
#error "define OPTS_FILE before including core/opt_table.h"
#endif

#define USAGE(text)
#define OPT(id, s, l, a, m, h) OPT_##id,
enum {
#include OPTS_FILE
  OPTS_NROWS
};
#undef OPT
#undef USAGE

#define USAGE(text)
#define OPT(id, s, l, a, m, h) {s, l, a, m, h},
static const struct opt opt_rows[] = {
#include OPTS_FILE
  {0, NULL, NONE, NULL, NULL}
};
#undef OPT
#undef USAGE

#define USAGE(text) text
#define OPT(id, s, l, a, m, h)
static const char opt_usage[] =
#include OPTS_FILE
;
#undef OPT
#undef USAGE

_Static_assert((int)OPTS_NROWS <= (int)OPTS_MAX, "too many options in " OPTS_FILE);
