/* opt.c - command-line options from spec rows, via getopt_long
 *
 * getopt_long wants an option string and a struct option array; both are
 * built here from the same rows that --help prints, so they cannot drift.
 */
#include "core/jvmtool.h"

static int count_rows(const struct opt *rows)
{
  int n = 0;

  while (rows[n].sname || rows[n].lname) n++;
  return n;
}

void opt_help(const struct opt *rows, const char *usage, FILE *f)
{
  fprintf(f, "usage: %s\n", usage);
  if (rows[0].sname || rows[0].lname) fputc('\n', f);
  for (const struct opt *o = rows; o->sname || o->lname; o++) {
    char left[64];
    int n = 0;

    if (o->sname) n += snprintf(left + n, sizeof(left) - n, "-%c", o->sname);
    else n += snprintf(left + n, sizeof(left) - n, "  ");
    if (o->lname)
      n += snprintf(left + n, sizeof(left) - n, "%s--%s",
                    o->sname ? ", " : "  ", o->lname);
    if (o->arg == REQ)
      n += snprintf(left + n, sizeof(left) - n, "%c%s", o->lname ? '=' : ' ',
                    o->metavar);
    if (n > 24) fprintf(f, "  %s\n  %-24s  %s\n", left, "", o->help);
    else fprintf(f, "  %-24s  %s\n", left, o->help);
  }
}

/* The operands of the last opt_parse call (see struct args). */
static char **operands;

int opt_parse(const struct opt *rows, const char *usage, int flags, int argc,
              char **argv, struct args *out)
{
  int n = count_rows(rows), c, idx, l = 0;
  struct option *longs = xzalloc((n + 2) * sizeof(*longs));
  char *shorts = xzalloc(n * 2 + 4), *s = shorts;
  int rc = -1;

  memset(out, 0, sizeof(*out));
  *s++ = (flags & OPT_IN_ORDER) ? '+' : '-';
  *s++ = ':';
  for (int i = 0; i < n; i++) {
    if (rows[i].sname) {
      *s++ = (char)rows[i].sname;
      if (rows[i].arg == REQ) *s++ = ':';
    }
    if (rows[i].lname)
      longs[l++] = (struct option){rows[i].lname,
                                   rows[i].arg == REQ ? required_argument
                                                      : no_argument,
                                   NULL, 1000 + i};
  }
  longs[l] = (struct option){"help", no_argument, NULL, 'H'};

  /* Operands are collected in order; "-" in the option string makes
   * getopt_long return them as 1 instead of permuting argv. The array is
   * ours, so no command has to free it on each of its exits. */
  free(operands);
  out->argv = operands = xzalloc((argc + 1) * sizeof(char *));
  optind = 0;
  opterr = 0;
  while ((c = getopt_long(argc, argv, shorts, longs, &idx)) != -1) {
    int i = -1;

    if (c == 1) {
      out->argv[out->argc++] = optarg;
      continue;
    }
    if (c == 'H') {
      opt_help(rows, usage, stdout);
      rc = 0;
      goto done;
    }
    if (c == '?' || c == ':') {
      const char *bad = argv[optind - 1];

      if (optopt && optopt < 1000)
        rc = c == ':' ? usage_error("option '-%c' needs an argument", optopt)
                      : usage_error("unknown option '-%c'", optopt);
      else
        rc = c == ':' ? usage_error("option '%s' needs an argument", bad)
                      : usage_error("unknown option '%s'", bad);
      goto done;
    }
    if (c >= 1000) i = c - 1000;
    else
      for (int j = 0; j < n; j++)
        if (rows[j].sname == c) i = j;
    out->count[i]++;
    if (rows[i].arg == REQ) out->val[i] = optarg;
  }
  while (optind < argc) out->argv[out->argc++] = argv[optind++];
done:
  free(longs);
  free(shorts);
  return rc;
}
