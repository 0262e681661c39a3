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

    if (o->sname)
      n += snprintf(left + n, sizeof(left) - n, "-%c", o->sname);
    else
      n += snprintf(left + n, sizeof(left) - n, "  ");
    if (o->lname)
      n += snprintf(left + n, sizeof(left) - n, "%s--%s",
                    o->sname ? ", " : "  ", o->lname);
    if (o->kind != OPTS_FLAG)
      n += snprintf(left + n, sizeof(left) - n, "%c%s", o->lname ? '=' : ' ',
                    o->metavar);
    if (n > 24)
      fprintf(f, "  %s\n  %-24s  %s", left, "", o->help);
    else
      fprintf(f, "  %-24s  %s", left, o->help);
    if (o->lo) fprintf(f, " (%s to %s", o->lo, o->hi);
    if (o->lo && strcmp(o->def, "-")) fprintf(f, ", default %s", o->def);
    fputs(o->lo ? ")\n" : "\n", f);
  }
}

int opt_bad_word(const char *option, const char *value,
                 const char *const *names, int n, const char *expected)
{
  int at = nearest_name(value, names, n);

  if (at >= 0)
    return usage_error("unknown %s '%s': did you mean '%s'?", option, value,
                       names[at]);
  return usage_error("unknown %s '%s' (%s)", option, value, expected);
}

/* The words of a WORD row, split at '|' into names (at most max). */
static int split_words(const char *list, char *copy, size_t size,
                       const char **names, int max)
{
  int n = 0;

  snprintf(copy, size, "%s", list);
  for (char *w = copy; w && n < max; n++) {
    names[n] = w;
    if ((w = strchr(w, '|'))) *w++ = 0;
  }
  return n;
}

int opt_value(const struct opt *o, const char *v, long long *num)
{
  long long lo, hi;

  if (o->kind == OPTS_INT)
    return parse_long(o->lo, LLONG_MIN, LLONG_MAX, &lo) ||
                   parse_long(o->hi, lo, LLONG_MAX, &hi) ||
                   parse_long(v, lo, hi, num)
               ? -1
               : 0;
  if (o->kind == OPTS_TIME)
    return parse_span(o->lo, &lo) || parse_span(o->hi, &hi) ||
                   parse_span(v, num) || *num < lo || *num > hi
               ? -1
               : 0;
  if (o->kind == OPTS_WORD) { /* the index of v in "a|b|c" */
    size_t n = strlen(v);
    long long i = 0;

    for (const char *w = o->words; w && *w; i++) {
      size_t k = strcspn(w, "|");

      if (k == n && !memcmp(w, v, n)) {
        *num = i;
        return 0;
      }
      w += k + (w[k] == '|');
    }
    return -1;
  }
  return o->kind == OPTS_TEXT ? 0 : -1;
}

/* Check v against row o and store it at i: 0, or -1 when it does not fit
 * (value_error says why). */
static int take_value(const struct opt *o, const char *v, int i,
                      struct args *out)
{
  const char *names[32];
  char copy[512];
  char *end;
  int n;

  switch (o->kind) {
  case OPTS_INT:
  case OPTS_TIME:
    return opt_value(o, v, &out->num[i]);
  case OPTS_REAL:
    out->real[i] = strtod(v, &end);
    if (end == v || *end) return -1;
    if (out->real[i] < strtod(o->lo, NULL)) return -1;
    return out->real[i] <= strtod(o->hi, NULL) ? 0 : -1; /* NaN too */
  case OPTS_WORD:
    n = split_words(o->words, copy, sizeof(copy), names, 32);
    for (out->word[i] = 0; out->word[i] < n; out->word[i]++)
      if (!strcmp(v, names[out->word[i]])) return 0;
    out->word[i] = -1;
    return -1;
  default:
    return 0;
  }
}

/* The usage error for a value v that row o does not take. Returns 2. */
static int value_error(const struct opt *o, const char *v)
{
  const char *names[32];
  char copy[512], opt[64];
  struct buf list = {0};
  int n, rc;

  if (o->lname)
    snprintf(opt, sizeof(opt), "--%s", o->lname);
  else
    snprintf(opt, sizeof(opt), "-%c", o->sname);
  switch (o->kind) {
  case OPTS_INT:
    return usage_error("%s takes a whole number from %s to %s, not '%s'", opt,
                       o->lo, o->hi, v);
  case OPTS_REAL:
    return usage_error("%s takes a number from %s to %s, not '%s'", opt, o->lo,
                       o->hi, v);
  case OPTS_TIME:
    return usage_error("%s takes a time from %s to %s (e.g. 30, 1.5s, 500ms, "
                       "1m), not '%s'",
                       opt, o->lo, o->hi, v);
  default:
    n = split_words(o->words, copy, sizeof(copy), names, 32);
    for (int i = 0; i < n; i++)
      buf_printf(&list, "%s%s", i ? ", " : "", names[i]);
    rc = opt_bad_word(opt, v, names, n, list.p);
    buf_free(&list);
    return rc;
  }
}

/* Every row's default, before the arguments are read: 0, or 2 after
 * saying which row's default its own range refuses (a spec mistake, shown
 * by any run of the command). */
static int defaults(const struct opt *rows, int n, struct args *out)
{
  for (int i = 0; i < n; i++) {
    out->word[i] = -1;
    if (strcmp(rows[i].def, "-") && take_value(&rows[i], rows[i].def, i, out))
      return usage_error("the spec's default for option %d, '%s', does not "
                         "fit its kind",
                         i + 1, rows[i].def);
  }
  return 0;
}

/* The arrays handed out by the last opt_parse call (see struct args). */
static char **operands, **dashed;
static int ndashed;

/* How many of the arguments after argv[i] the option word argv[i] takes:
 * 1 when it is an option that takes a value whose value is the next argument. */
static int takes_next(const struct opt *rows, int n, const char *s)
{
  int i;

  if (starts_with(s, "--"))
    return !strchr(s, '=') &&
           (i = find_long(rows, n, s + 2, strlen(s + 2))) >= 0 &&
           rows[i].kind != OPTS_FLAG;
  for (s++; *s; s++) {
    if ((i = find_short(rows, n, *s)) < 0) return 0;
    if (rows[i].kind != OPTS_FLAG) return !s[1];
  }
  return 0;
}

/* OPTS_DASH_WORDS: the options as getopt_long should see them ("-name"
 * spelled "--name"); operands (a negative number too) and words are taken
 * out into out->argv and out->words, in order. */
static char **take_words(const struct opt *rows, int n, int *argc, char **argv,
                         struct args *out)
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

/* The rule rows after the options' empty row: EXCLUDE (at most one of
 * its options given), NEEDS (the first only with the second). Returns -1,
 * or 2 after the usage error. */
static int check_rules(const struct opt *rows, int n, const struct args *a)
{
  for (const struct opt *r = rows + n + 1; r->kind >= OPTS_EXCLUDE; r++) {
    struct buf names = {0};
    int given[8] = {0}, k = 0, count = 0, rc = -1;

    for (const char *w = r->words; *w && k < 8; k++) {
      size_t len = strcspn(w, "|");
      int i = find_long(rows, n, w, len);

      count += given[k] = i >= 0 && a->count[i] > 0;
      buf_printf(&names, "%s--%.*s",
                 !k       ? ""
                 : w[len] ? ", "
                          : " and ",
                 (int)len, w);
      w += len + (w[len] == '|');
    }
    if (r->kind == OPTS_EXCLUDE && count > 1)
      rc = usage_error("%s exclude each other", names.p);
    else if (r->kind == OPTS_NEEDS && given[0] && !given[1])
      rc = usage_error("--%.*s goes with --%s", (int)strcspn(r->words, "|"),
                       r->words, strchr(r->words, '|') + 1);
    buf_free(&names);
    if (rc >= 0) return rc;
  }
  return -1;
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
  if (defaults(rows, n, out)) {
    rc = 2;
    goto done;
  }
  *s++ = (flags & OPTS_IN_ORDER) ? '+' : '-';
  *s++ = ':';
  if (own_h) *s++ = 'h';
  for (int i = 0; i < n; i++) {
    if (rows[i].sname) {
      *s++ = (char)rows[i].sname;
      if (rows[i].kind != OPTS_FLAG) *s++ = ':';
    }
    if (rows[i].lname)
      longs[l++] = (struct option){rows[i].lname,
                                   rows[i].kind != OPTS_FLAG ? required_argument
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
  if (argc == 2 && !strcmp(av[1], "-h")) { /* -h alone is help anywhere */
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
    if (c >= VAL_ROW)
      i = c - VAL_ROW;
    else
      i = find_short(rows, n, c);
    out->count[i]++;
    if (rows[i].kind == OPTS_FLAG) continue;
    out->val[i] = optarg;
    if (take_value(&rows[i], optarg, i, out)) {
      rc = value_error(&rows[i], optarg);
      goto done;
    }
  }
  while (optind < argc) out->argv[out->argc++] = av[optind++];
  rc = check_rules(rows, n, out);
done:
  if (av != argv) free(av);
  free(longs);
  free(shorts);
  return rc;
}
