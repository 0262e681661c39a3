/* opt.h - command-line options from specs/<cmd>.opts rows, via getopt_long
 *
 * A spec file holds one USAGE("...") row and OPT rows:
 *   OPT(id, 'c', "long-name", ARG, "METAVAR", "help line")
 * ARG is NONE or REQ; METAVAR is NULL for NONE. A command file defines
 * OPTS_FILE and includes core/opt_table.h, which yields enum constants
 * OPT_<id> (the OPT_ prefix is theirs alone: this header's own names start
 * with OPTS_), opt_rows[] and opt_usage; the parser and the --help text are
 * both made from those rows.
 */
#ifndef JVMTOOL_OPT_H
#define JVMTOOL_OPT_H

enum opt_arg { NONE, REQ };

struct opt {
  int sname;            /* short option letter, or 0 */
  const char *lname;    /* long option name, or NULL */
  enum opt_arg arg;
  const char *metavar;  /* shown in help for REQ options */
  const char *help;
};

enum { OPTS_MAX = 48 };

struct args {
  int count[OPTS_MAX];        /* how often each option was given */
  const char *val[OPTS_MAX];  /* the last argument of each REQ option */
  int argc;                   /* operands left after the options */
  char **argv;                /* owned by opt_parse: valid until its next call */
  int nwords;                 /* OPTS_DASH_WORDS: the words taken, in order */
  char **words;               /* without their '-'; owned like argv */
};

enum opt_flags {
  OPTS_IN_ORDER = 1,    /* stop at the first operand (for "jcmd PID CMD -x");
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
/* Print "usage: ..." and one line per option to f. */
void opt_help(const struct opt *rows, const char *usage, FILE *f);

#endif
