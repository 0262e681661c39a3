/* jvmtool.c - main: the command table and dispatch
 *
 * "jvmtool <command> ..." runs a command (specs/commands.def); so does a
 * link named "jvmtool-<command>". A link named after a JDK tool
 * (specs/dropins.def: jps, jstat, jcmd, jstack, jmap, jinfo), busybox-style,
 * runs that row's main, which takes the JDK tool's command line.
 * One exit path: a command returns its status, main flushes stdout and
 * reports a write error (a closed pipe is not an error worth a message).
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"

struct command {
  const char *name, *summary;
  int (*main)(int argc, char **argv);
};

static const struct command commands[] = {
#define CMD(id, name, summary) {name, summary, id##_main},
#include "specs/commands.def"
#undef CMD
};

static const struct command links[] = {
#define DROPIN(link, takes) {#link, takes, link##_link_main},
#include "specs/dropins.def"
#undef DROPIN
};

enum {
  NCOMMANDS = sizeof(commands) / sizeof(commands[0]),
  NLINKS = sizeof(links) / sizeof(links[0])
};

/* The row named name in table t of n rows, or NULL. */
static const struct command *find(const struct command *t, int n,
                                  const char *name)
{
  for (int i = 0; i < n; i++)
    if (!strcmp(t[i].name, name)) return &t[i];
  return NULL;
}

/* The message for a name that is no command, with the nearest one. */
static int unknown_command(const char *name)
{
  const char *names[NCOMMANDS];
  int at;

  if (find(links, NLINKS, name)) {
    error_msg("'%s' is a link name, not a command: ln -s jvmtool %s; "
              "./%s ... (see 'jvmtool --help')",
              name, name, name);
    return 127;
  }
  for (int i = 0; i < NCOMMANDS; i++) names[i] = commands[i].name;
  at = nearest_name(name, names, NCOMMANDS);
  if (at >= 0)
    error_msg("unknown command '%s': did you mean '%s'? (see 'jvmtool "
              "--help')",
              name, names[at]);
  else
    error_msg("unknown command '%s' (see 'jvmtool --help')", name);
  return 127;
}

static void usage(FILE *f)
{
  fprintf(f, "usage: jvmtool <command> [options] [arguments]\n"
             "       jvmtool --help | --version | help <command>\n\n"
             "commands:\n");
  for (int i = 0; i < NCOMMANDS; i++)
    fprintf(f, "  %-15s %s\n", commands[i].name, commands[i].summary);
  fprintf(f, "\nLinked as");
  for (int i = 0; i < NLINKS; i++)
    fprintf(f, "%s %s", !i ? "" : i == NLINKS - 1 ? " or" : ",", links[i].name);
  fprintf(f, ", it takes that JDK tool's\ncommand line.\n");
  fprintf(f, "A JVM is named by its host pid, a PerfData file path, a "
             "file:// URI\nor a part of its main class that names one "
             "JVM.\nRun 'jvmtool <command> --help' for a command's "
             "options.\n");
}

static int run(const struct command *c, int argc, char **argv)
{
  int rc;

  jt_cmd = c->name;
  rc = c->main(argc, argv);
  if (fflush(stdout) || ferror(stdout)) {
    if (errno != EPIPE) perror_msg("write error on standard output");
    return 1;
  }
  return rc;
}

int main(int argc, char **argv)
{
  const char *base =
      strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  const struct command *c;

  if ((c = find(links, NLINKS, base))) return run(c, argc, argv);
  if (starts_with(base, "jvmtool-") &&
      (c = find(commands, NCOMMANDS, base + 8)))
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
    if (!(c = find(commands, NCOMMANDS, argv[2])))
      return unknown_command(argv[2]);
    return run(c, 2, help);
  }
  if (!(c = find(commands, NCOMMANDS, argv[1])))
    return unknown_command(argv[1]);
  return run(c, argc - 1, argv + 1);
}
