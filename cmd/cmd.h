/* cmd.h - what the dispatcher (cmd/jvmtool.c) and the commands share
 *
 * core/ knows nothing of commands: the tables of them (specs/commands.def,
 * specs/dropins.def) and the name the binary was run by are the
 * dispatcher's.
 */
#ifndef CMD_H
#define CMD_H

/* Every command's entry point, from the rows of specs/commands.def. */
#define CMD(id, name, summary) int id##_main(int argc, char **argv);
#include "specs/commands.def"
#undef CMD

/* Every drop-in link's entry point (the JDK tool's command line), from the
 * rows of specs/dropins.def. */
#define DROPIN(link, takes) int link##_link_main(int argc, char **argv);
#include "specs/dropins.def"
#undef DROPIN

/* Say on stderr, once per pid per run, what core/vm's walks did not look
 * at (vm_skipped: a /tmp a process serves). Every node-wide command calls
 * it after it walks. */
void say_skipped(void);

/* One counter of dump --json ("name": {value, units, variability}), after
 * ",\n  " (or "\n  " when first) into b: dump's and serve's JVM page's. */
struct buf;
struct perfdata;
struct pd_counter;
void dump_json_counter(struct buf *b, const struct perfdata *pd,
                       const struct pd_counter *c, int first);

#endif
