/* cmd.h - what the dispatcher (cmd/jvmtool.c) and the commands share
 *
 * core/ knows nothing of commands: the table of them (specs/commands.def)
 * and the name the binary was run by are the dispatcher's.
 */
#ifndef CMD_H
#define CMD_H

/* Set when the binary runs as a JDK tool's name ("jps", "jstat", "jcmd",
 * "jstack", "jmap", "jinfo"): the command then takes that tool's command line. NULL
 * otherwise. */
extern const char *jt_alias;

/* Every command's entry point, from the rows of specs/commands.def. */
#define CMD(id, name, alias, summary) int id##_main(int argc, char **argv);
#include "specs/commands.def"
#undef CMD

#endif
