/* opt.c - command-line options from spec rows, via getopt_long
 *
 * getopt_long wants an option string and a struct option array; both are
 * built here from the same rows that --help prints, so they cannot drift.
 */
#include "core/jvmtool.h"

/* What getopt_long returns for row i and for --help: outside the range of
 * option letters, so no row's letter can be taken for either. */
enum { VAL_ROW = 1000, VAL_HELP = VAL_ROW + OPTS_MAX };

static int count_rows(const struct opt *rows)
{
  int n = 0;

  while (rows[n].sname || rows[n].lname) n++;
  return n;
}

static int find_short(const struct opt *rows, int n, int c)
{
  for (int i = 0; i < n; i++)
    if (rows[i].sname == c) return i;
  return -1;
}

static int find_long(const struct opt *rows, int n, const char *name,
                     size_t len)
{
  for (int i = 0; i < n; i++)
    if (rows[i].lname && strlen(rows[i].lname) == len &&
        !strncmp(rows[i].lname, name, len))
      return i;
  return -1;
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

/* The arrays handed out by the last opt_parse call (see struct args). */
static char **operands, **dashed;
static int ndashed;

/* How many of the arguments after argv[i] the option word argv[i] takes:
 * 1 when it is a REQ option whose value is the next argument. */
static int takes_next(const struct opt *rows, int n, const char *s)
{
  int i;

  if (starts_with(s, "--"))
    return !strchr(s, '=') &&
           (i = find_long(rows, n, s + 2, strlen(s + 2))) >= 0 &&
           rows[i].arg == REQ;
  for (s++; *s; s++) {
    if ((i = find_short(rows, n, *s)) < 0) return 0;
    if (rows[i].arg == REQ) return !s[1];
  }
  return 0;
}

/* OPTS_DASH_WORDS: the options as getopt_long should see them ("-name"
 * spelled "--name"); operands (a negative number too) and words are taken
 * out into out->argv and out->words, in order. */
static char **take_words(const struct opt *rows, int n, int *argc,
                         char **argv, struct args *out)
{
  char **nv = xzalloc((*argc + 1) * sizeof(*nv));
  int k = 0, i;

  dashed = xzalloc((*argc + 1) * sizeof(*dashed));
  ndashed = *argc;
  for (i = 0; i < *argc; i++) {
    char *s = argv[i];
    size_t len = strcspn(s + 1, "=");

    if (!i) {
      nv[k++] = s;
    } else if (!strcmp(s, "--")) {
      break;
    } else if (s[0] != '-' || !s[1] || isdigit((unsigned char)s[1])) {
      out->argv[out->argc++] = s;
    } else if (s[1] == '-') {
      nv[k++] = s;
      if (takes_next(rows, n, s) && i + 1 < *argc) nv[k++] = argv[++i];
    } else if (!strcmp(s, "-?") || find_long(rows, n, s + 1, len) >= 0 ||
               (len == 4 && !strncmp(s + 1, "help", 4))) {
      nv[k++] = dashed[i] = xasprintf("-%s", strcmp(s, "-?") ? s : "-help");
      if (takes_next(rows, n, nv[k - 1]) && i + 1 < *argc) nv[k++] = argv[++i];
    } else if (find_short(rows, n, s[1]) >= 0 ||
               (s[1] == 'h' && find_short(rows, n, 'h') < 0)) {
      nv[k++] = s;
      if (takes_next(rows, n, s) && i + 1 < *argc) nv[k++] = argv[++i];
    } else {
      out->words[out->nwords++] = s + 1;
    }
  }
  while (++i < *argc) out->argv[out->argc++] = argv[i];
  *argc = k;
  return nv;
}

static int unknown_option(const struct opt *rows, int n, const char *bad,
                          int letter)
{
  const char **names = xzalloc((n + 1) * sizeof(*names));
  const char *name = bad + strspn(bad, "-");
  char *word = xstrndup(name, strcspn(name, "="));
  int at, rc;

  if (letter) {
    free(names);
    free(word);
    return usage_error("unknown option '-%c'", letter);
  }
  for (int i = 0; i < n; i++) names[i] = rows[i].lname;
  names[n] = "help";
  at = nearest_name(word, names, n + 1);
  if (at >= 0)
    rc = usage_error("unknown option '%s': did you mean '--%s'?", bad,
                     names[at]);
  else
    rc = usage_error("unknown option '%s'", bad);
  free(names);
  free(word);
  return rc;
}

int opt_parse(const struct opt *rows, const char *usage, int flags, int argc,
              char **argv, struct args *out)
{
  int n = count_rows(rows), c, idx, l = 0, own_h = find_short(rows, n, 'h') < 0;
  struct option *longs = xzalloc((n + 2) * sizeof(*longs));
  char *shorts = xzalloc(n * 2 + 5), *s = shorts;
  char **av = argv;
  int rc = -1;

  memset(out, 0, sizeof(*out));
  *s++ = (flags & OPTS_IN_ORDER) ? '+' : '-';
  *s++ = ':';
  if (own_h) *s++ = 'h';
  for (int i = 0; i < n; i++) {
    if (rows[i].sname) {
      *s++ = (char)rows[i].sname;
      if (rows[i].arg == REQ) *s++ = ':';
    }
    if (rows[i].lname)
      longs[l++] = (struct option){rows[i].lname,
                                   rows[i].arg == REQ ? required_argument
                                                      : no_argument,
                                   NULL, VAL_ROW + i};
  }
  longs[l] = (struct option){"help", no_argument, NULL, VAL_HELP};

  /* Operands are collected in order; "-" in the option string makes
   * getopt_long return them as 1 instead of permuting argv. The arrays are
   * ours, so no command has to free them on each of its exits. */
  for (int i = 0; i < ndashed; i++) free(dashed[i]);
  free(dashed);
  dashed = NULL;
  ndashed = 0;
  free(operands);
  out->argv = operands = xzalloc(2 * (argc + 1) * sizeof(char *));
  out->words = operands + argc + 1;
  if (flags & OPTS_DASH_WORDS) av = take_words(rows, n, &argc, argv, out);
  optind = 0;
  opterr = 0;
  if (argc == 2 && !strcmp(av[1], "-h")) {  /* -h alone is help anywhere */
    opt_help(rows, usage, stdout);
    rc = 0;
    goto done;
  }
  while ((c = getopt_long(argc, av, shorts, longs, &idx)) != -1) {
    int i = -1;

    if (c == 1) {
      out->argv[out->argc++] = optarg;
      continue;
    }
    if (c == VAL_HELP || (c == 'h' && own_h)) {
      opt_help(rows, usage, stdout);
      rc = 0;
      goto done;
    }
    if (c == '?' || c == ':') {
      const char *bad = av[optind - 1];

      if (c == ':')
        rc = optopt && optopt < VAL_ROW
                 ? usage_error("option '-%c' needs an argument", optopt)
                 : usage_error("option '%s' needs an argument", bad);
      else
        rc = unknown_option(rows, n, bad,
                            optopt && optopt < VAL_ROW ? optopt : 0);
      goto done;
    }
    if (c >= VAL_ROW) i = c - VAL_ROW;
    else i = find_short(rows, n, c);
    out->count[i]++;
    if (rows[i].arg == REQ) out->val[i] = optarg;
  }
  while (optind < argc) out->argv[out->argc++] = av[optind++];
done:
  if (av != argv) free(av);
  free(longs);
  free(shorts);
  return rc;
}
