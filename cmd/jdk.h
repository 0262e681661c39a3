/* jdk.h - the JDK tools' conventions, for the drop-in links
 *
 * Each row of specs/dropins.def is a link (jps, jstat, jcmd, jstack, jmap,
 * jinfo) whose <link>_link_main takes that JDK tool's command line; the
 * files defining those mains (and cmd/jdk*.c) include this header, nothing
 * else does (test/lint.test learns them from the rows). Here: what the JDK
 * launchers do alike (-J options, the help words, the attach timeout), the
 * tools' words for targets that are not there or refuse (cmd/jdk.c), and
 * a file the JVM writes for us (cmd/jdk_out.c). Each link's help text is
 * specs/<link>.usage, embedded by build.d/jdk.sh as <link>_usage[] in
 * dist/gen/<link>_usage.inc (the link's file includes it).
 */
#ifndef JDK_H
#define JDK_H

#include <limits.h>
#include <stddef.h>
#include "core/wfile.h"

/* How long the JDK tool links (jcmd, jstack, jmap, jinfo) wait, ms: for
 * the JVM's attach listener, the JDK's attach timeout
 * (sun.tools.attach.attachTimeout's default, 10 s); then for its answer,
 * an hour. The JDK's tools wait for an answer without end: a heap dump
 * takes minutes (docs/dropins.md), and a link that gave up at 10 s left
 * the JVM writing a dump its script was told failed. The hour bounds a
 * JVM that never answers. jvmtool's own commands take --timeout. */
enum { JDK_TIMEOUT_MS = 10000, JDK_REPLY_MS = 3600 * 1000 };
/* A fan-out's wait for each answer (jcmd 0, a main class of several
 * JVMs): its JVMs are asked side by side and each answer waited for this
 * long, so one JVM that never answers costs the others 10 s, not an hour
 * (the hour is for one named JVM). */
enum { JDK_FAN_REPLY_MS = JDK_TIMEOUT_MS };

/* attach_ask as the links wait (JDK_TIMEOUT_MS, then JDK_REPLY_MS). */
struct jvm;
int jdk_ask(const struct jvm *j, const char *cmd, const char *const args[3],
            char **reply, char *err, size_t errlen);

/* The JDK launcher's -J<flag> options (for the tool's own JVM, taken
 * anywhere on the line) dropped from argv (NULL-terminated again); when
 * user_home is not NULL it gets the last -J-Duser.home= value, else stays.
 * Returns the new argc, or -1 after the launcher's line for a bare "-J"
 * (the tool then exits 1, as the JDK's launcher does). */
int jdk_args(int argc, char **argv, const char **user_home);
/* 1 for the JDK tools' help words: -h -help --help -?. Where on the line a
 * tool takes them is each tool's (its link's main says). */
int jdk_is_help(const char *s);

/* The JDK tools' target check (sun.tools.common.ProcessArgumentMatcher):
 * an empty target or one that starts with "-" is refused with its
 * exception's line. Returns 0, or 1 after that line. */
int jdk_bad_target(const char *target);
/* The JDK tools' words when vm_find (its rc and err) named no JVM for
 * target: its reason, or "Could not find any processes matching". */
void jdk_none(const char *target, int rc, const char *err);
/* The JVMs target names, as jstack, jmap and jinfo take it:
 * jdk_bad_target's check (an empty target is no part of every main
 * class), then core/vm's vm_find. Returns 0 with *n >= 1 (free *v with
 * vm_list_free), or 1 after the tool's words (*v NULL, *n 0). */
struct vm;
int jdk_find(const char *target, struct vm **v, size_t *n);
/* Why a request was not answered (attach_ask's enum attach_error, err its
 * reason), in the words of jstack, jmap and jinfo: "<pid>: <why>". */
void jdk_refusal(int pid, int why, const char *err);
/* jvm_open_row for the JDK tool links: 0, or -1 after jdk_refusal's line. */
struct jvm;
int jdk_open(struct jvm *j, struct vm *row);
/* Print a reply through term_write: its body on stdout when the status is
 * 0 (empty: the line empty, unless NULL) and return 0, else on stderr and
 * return 1. */
int jdk_print_reply(int pid, const char *reply, const char *empty);

/* The take-out of a file a JVM writes for us (struct jdk_out, cmd/jdk_out.c)
 * is in cmd/cmd.h: jvmtool heap PID takes dumps out too. */

#endif
