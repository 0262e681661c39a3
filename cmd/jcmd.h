/* jcmd.h - what cmd/jcmd.c shares with cmd/jstack.c (the jstack and jmap
 * links): targets, one attach request, printing its reply */
#ifndef JCMD_H
#define JCMD_H

#include <stddef.h>

/* The JVMs a target names: a pid (core/vm's grammar), 0 for all, or every
 * JVM whose main class (jps -l's: a jar's path, "module/class") contains
 * it, as jcmd matches; only JVMs that take attach requests. Returns how
 * many (*pids malloc'd, caller frees), 0 for none, -1 after a message for
 * a target that names no process. */
int jcmd_targets(const char *target, int **pids);

/* Why a request was not sent or got no reply. */
enum jcmd_refusal { JCMD_SENT, JCMD_ATTACH_OFF, JCMD_NO_PROCESS, JCMD_FAILED };

/* Send one request (cmd, up to three args, NULL = empty) to pid through
 * core/attach, which applies the attach preconditions. Returns JCMD_SENT
 * with *reply set (caller frees), or why not; JCMD_ATTACH_OFF and
 * JCMD_FAILED put attach's one-line reason in err. */
enum jcmd_refusal jcmd_ask(int pid, const char *cmd, const char *const args[3],
                           int timeout_ms, char **reply, char *err,
                           size_t errlen);

/* Print a reply through term_write: its body on stdout when the status is
 * 0 (empty: the line empty, unless NULL) and return 0, else on stderr and
 * return 1. */
int jcmd_print_reply(int pid, const char *reply, const char *empty);

/* Drop the JDK launcher's -J options (the tools take them anywhere) from
 * argv; returns the new argc. */
int jcmd_drop_j(int argc, char **argv);
/* 1 for the JDK tools' help words: -h -help --help -? */
int jcmd_is_help(const char *s);

#endif
