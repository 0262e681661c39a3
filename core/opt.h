/* opt.h - command-line options from specs/<cmd>.opts rows, via getopt_long
 *
 * A spec file holds one USAGE("...") row and OPT rows:
 *   OPT(id, 'c', "long-name", KIND, "METAVAR", "help line")
 * KIND says what the option takes, and opt_parse checks it, so no command
 * checks a value by hand and one name means one thing everywhere:
 *   FLAG                  nothing (counted)
 *   TEXT                  any text
 *   INT(lo, hi, def)      a whole number in [lo, hi]
 *   REAL(lo, hi, def)     a decimal number in [lo, hi]
 *   TIME(lo, hi, def)     a time in lib.h's parse_span grammar (30, 1.5s,
 *                         500ms, 1m), in [lo, hi]; kept in nanoseconds
 *   WORD("a|b|c", def)    one of the words (a near miss gets "did you mean")
 * def is the value when the option is not given, or '-' for none. METAVAR
 * is NULL for FLAG. A command file defines OPTS_FILE and includes
 * core/opt_table.h, which yields enum constants OPT_<id> (the OPT_ prefix
 * is theirs alone: this header's own names start with OPTS_), opt_rows[]
 * and opt_usage; the parser and the --help text are both made from those
 * rows, and --help states each range and default.
 */
#ifndef JVMTOOL_OPT_H
#define JVMTOOL_OPT_H

enum opt_kind {
  OPTS_FLAG,
  OPTS_TEXT,
  OPTS_INT,
  OPTS_REAL,
  OPTS_TIME,
  OPTS_WORD,
  OPTS_EXCLUDE, /* a rule row (after the options): words "a|b|c" */
  OPTS_NEEDS    /* a rule row: words "a|b", --a needs --b */
};

struct opt {
  int sname;         /* short option letter, or 0 */
  const char *lname; /* long option name, or NULL */
  enum opt_kind kind;
  const char *lo, *hi; /* INT, REAL, TIME: the range as written */
  const char *def;     /* the default as written, or "-" */
  const char *words;   /* WORD: "a|b|c" */
  const char *metavar; /* shown in help for options that take a value */
  const char *help;
};

enum { OPTS_MAX = 48 };

struct args {
  int count[OPTS_MAX];       /* how often each option was given */
  const char *val[OPTS_MAX]; /* the last value given to each option */
  long long num[OPTS_MAX];   /* INT: the number; TIME: nanoseconds (the
                                 default when not given, else 0) */
  double real[OPTS_MAX];     /* REAL: the number, or its default */
  int word[OPTS_MAX];        /* WORD: the index of the word (or of the
                                 default), -1 when neither */
  int argc;                  /* operands left after the options */
  char **argv;               /* owned by opt_parse: valid until its next call */
  int nwords;                /* OPTS_DASH_WORDS: the words taken, in order */
  char **words;              /* without their '-'; owned like argv */
};

enum opt_flags {
  OPTS_IN_ORDER = 1, /* stop at the first operand (for "jcmd PID CMD -x");
                           not with OPTS_DASH_WORDS */
  /* jstat's single-dash words: "-name" is the long option --name when a row
   * has that name, short options when its first letter is one (-t, -h20),
   * a negative number is an operand, "-?" is help, and any other "-word"
   * is taken into words (jstat's -gcutil). */
  OPTS_DASH_WORDS = 2,
};

/* Parse argv (argv[0] is the command name) against rows. Returns -1 when the
 * command should go on, or an exit status the command must return at once:
 * 0 after printing --help to stdout, 2 after a usage error on stderr (an
 * unknown option names the nearest one). --help, and -h when no row takes
 * the letter or when it is the only argument, print the help. */
int opt_parse(const struct opt *rows, const char *usage, int flags, int argc,
              char **argv, struct args *out);
/* Check a value v against row o, as opt_parse does (the rows of other
 * tables too: serve's query parameters): INT its number and TIME its
 * nanoseconds into *num, WORD the index of the word into *num; TEXT
 * takes anything. 0, or -1 when o does not
 * take v (or o is of another kind). */
int opt_value(const struct opt *o, const char *v, long long *num);
/* Print "usage: ..." and one line per option to f. */
void opt_help(const struct opt *rows, const char *usage, FILE *f);

/* A usage error for value of --option, which is none of the n names: the
 * nearest one is suggested ("did you mean 'alloc'?"), else what is listed
 * in expected. Returns 2, as usage_error does. */
int opt_bad_word(const char *option, const char *value,
                 const char *const *names, int n, const char *expected);

#endif
