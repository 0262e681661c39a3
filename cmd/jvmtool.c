/* jvmtool.c - main: the command table and dispatch
 *
 * "jvmtool <command> ..." runs a command; so does a link named after a
  * command's alias (jps, jstat, jcmd), busybox-style, or "jvmtool-<command>".
 * A row with no name (jstack, jmap) is reached through its link only.
 * One exit path: a command returns its status, main flushes stdout and
 * reports a write error (a closed pipe is not an error worth a message).
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"

static const struct command {
  const char *name, *alias, *summary;
  int (*main)(int argc, char **argv);
} commands[] = {
#define CMD(id, name, alias, summary) {name, alias, summary, id##_main},
#include "specs/commands.def"
#undef CMD
};

enum { NCOMMANDS = sizeof(commands) / sizeof(commands[0]) };

/* The name the binary was started as when that was an alias ("jps"), else
 * NULL; commands use it to switch to the JDK tool's command line. */
const char *jt_alias;

static const struct command *find(const char *name, int by_alias)
{
  for (int i = 0; i < NCOMMANDS; i++) {
    const char *n = by_alias ? commands[i].alias : commands[i].name;

    if (n && !strcmp(n, name)) return &commands[i];
  }
  return NULL;
}

/* The message for a name that is no command, with the nearest one. */
static int unknown_command(const char *name)
{
  const struct command *link = find(name, 1);
  const char *names[NCOMMANDS];
  int at, n = 0;

  if (link && !link->name) {
    error_msg("'%s' is a link name, not a command: ln -s jvmtool %s; "
              "./%s ... (see 'jvmtool --help')", name, name, name);
    return 127;
  }
  for (int i = 0; i < NCOMMANDS; i++)
    if (commands[i].name) names[n++] = commands[i].name;
  at = nearest_name(name, names, n);
  if (at >= 0)
    error_msg("unknown command '%s': did you mean '%s'? (see 'jvmtool "
              "--help')", name, names[at]);
  else
    error_msg("unknown command '%s' (see 'jvmtool --help')", name);
  return 127;
}

static void usage(FILE *f)
{
  int links = 0, nlinks = 0;

  for (int i = 0; i < NCOMMANDS; i++) nlinks += commands[i].alias != NULL;
  fprintf(f, "usage: jvmtool <command> [options] [arguments]\n"
             "       jvmtool --help | --version | help <command>\n\n"
             "commands:\n");
  for (int i = 0; i < NCOMMANDS; i++)
    if (commands[i].name)
      fprintf(f, "  %-15s %s\n", commands[i].name, commands[i].summary);
  fprintf(f, "\nLinked as");
  for (int i = 0; i < NCOMMANDS; i++) {
    if (!commands[i].alias) continue;
    if (links++) fprintf(f, "%s", links == nlinks ? " or" : ",");
    fprintf(f, " %s", commands[i].alias);
  }
  fprintf(f, ", it takes that JDK tool's\ncommand line.\n");
  fprintf(f, "A JVM is named by its host pid, a PerfData file path or a "
             "file:// URI.\nRun 'jvmtool <command> --help' for a command's "
             "options.\n");
}

static int run(const struct command *c, int argc, char **argv)
{
  int rc;

  jt_cmd = c->name ? c->name : c->alias;
  rc = c->main(argc, argv);
  if (fflush(stdout) || ferror(stdout)) {
    if (errno != EPIPE) perror_msg("write error on standard output");
    return 1;
  }
  return rc;
}

int main(int argc, char **argv)
{
  const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1
                                            : argv[0];
  const struct command *c;

  if ((c = find(base, 1))) {
    jt_alias = c->alias;
    return run(c, argc, argv);
  }
  if (starts_with(base, "jvmtool-") && (c = find(base + 8, 0)))
    return run(c, argc, argv);
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("jvmtool %s\n", JVMTOOL_VERSION);
    return 0;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
      !strcmp(argv[1], "help")) {
    char *help[] = {argv[2], "--help", NULL};

    if (argc < 3) {
      usage(stdout);
      return 0;
    }
    if (!(c = find(argv[2], 0))) return unknown_command(argv[2]);
    return run(c, 2, help);
  }
  if (!(c = find(argv[1], 0))) return unknown_command(argv[1]);
  return run(c, argc - 1, argv + 1);
}
