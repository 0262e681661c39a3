/* opt_table.h - turn the spec rows in OPTS_FILE into this file's tables.
 * Include once, after defining OPTS_FILE (e.g. "specs/ps.opts"). Each row's
 * id becomes OPT_<id>; OPTS_NROWS counts the rows. The kinds (core/opt.h)
 * are macros here only. Rule rows name long options: EXCLUDE("a|b") (at
 * most one of them), NEEDS("a|b") (--a only with --b). */
#ifndef OPTS_FILE
#error "define OPTS_FILE before including core/opt_table.h"
#endif

#define USAGE(text)
#define EXCLUDE(names)
#define NEEDS(names)
#define OPT(id, s, l, k, m, h) OPT_##id,
enum {
#include OPTS_FILE
  OPTS_NROWS
};
#undef OPT

#define FLAG OPTS_FLAG, NULL, NULL, "-", NULL
#define TEXT OPTS_TEXT, NULL, NULL, "-", NULL
#define INT(lo, hi, def) OPTS_INT, #lo, #hi, #def, NULL
#define REAL(lo, hi, def) OPTS_REAL, #lo, #hi, #def, NULL
#define TIME(lo, hi, def) OPTS_TIME, #lo, #hi, #def, NULL
#define WORD(words, def) OPTS_WORD, NULL, NULL, #def, words
#define OPT(id, s, l, k, m, h) {s, l, k, m, h},
/* the option rows, an empty row, then the rules (EXCLUDE, NEEDS) and an
 * empty row: opt_parse checks the rules after the options are read */
static const struct opt opt_rows[] = {
#include OPTS_FILE
    {0, NULL, OPTS_FLAG, NULL, NULL, NULL, NULL, NULL, NULL},
#undef OPT
#undef EXCLUDE
#undef NEEDS
#define OPT(id, s, l, k, m, h)
#define EXCLUDE(names)                                                         \
  {0, NULL, OPTS_EXCLUDE, NULL, NULL, NULL, names, NULL, NULL},
#define NEEDS(names) {0, NULL, OPTS_NEEDS, NULL, NULL, NULL, names, NULL, NULL},
#include OPTS_FILE
    {0, NULL, OPTS_FLAG, NULL, NULL, NULL, NULL, NULL, NULL}};
#undef OPT
#undef USAGE
#undef EXCLUDE
#undef NEEDS
#undef FLAG
#undef TEXT
#undef INT
#undef REAL
#undef TIME
#undef WORD

#define USAGE(text) text
#define OPT(id, s, l, k, m, h)
#define EXCLUDE(names)
#define NEEDS(names)
static const char opt_usage[] =
#include OPTS_FILE
    ;
#undef OPT
#undef USAGE
#undef EXCLUDE
#undef NEEDS

_Static_assert((int)OPTS_NROWS <= (int)OPTS_MAX,
               "too many options in " OPTS_FILE);
