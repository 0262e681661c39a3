/* attach.h - the HotSpot dynamic-attach client (docs/attach-agent.md §1-2)
 *
 * One request per connection: make the JVM start its attach listener (a
 * trigger file and SIGQUIT), connect to /tmp/.java_pid<nspid> as the JVM's
 * own uid/gid, send protocol-1 strings, read the reply to EOF. Every path
 * is resolved inside the target's root, as the JVM sees it; the socket is
 * connected through the inode that was checked, and the listener must be
 * the target process itself (SO_PEERCRED), so a hostile container cannot
 * point us at another JVM or socket. One deadline bounds the exchange.
 */
#ifndef ATTACH_H
#define ATTACH_H

#include <sys/types.h>

enum attach_error {
  ATTACH_NOPROC = -1,  /* no such process */
  ATTACH_NOTJVM = -2,  /* not a verified JVM (core/jvm), or does not catch
                          SIGQUIT (yet): nothing was sent */
  ATTACH_TIMEOUT = -3, /* no listener came up, or no reply in time */
  ATTACH_PERM = -4,    /* cannot act as the target's user */
  ATTACH_IO = -5,      /* connect/read/write failed, or no reply */
  ATTACH_TOOLONG = -6, /* a command or argument over the protocol's limit */
  ATTACH_UNSAFE = -7,  /* the socket is not the target JVM's: refused */
  ATTACH_CUT = -8,     /* reply over ATTACH_REPLY_MAX: *reply has the
                              first ATTACH_REPLY_MAX bytes */
  ATTACH_OFF = -9,     /* started with -XX:+DisableAttachMechanism */
};

/* The largest reply kept (a class histogram of a huge heap is a few MiB). */
enum { ATTACH_REPLY_MAX = 64 << 20 };

/* The attach preconditions, the ones attach_send applies before it
 * creates a file or sends a signal: j is a verified JVM (core/jvm), else
 * ATTACH_NOTJVM, and it takes attach requests, else ATTACH_OFF; the one
 * line in err. A caller with work to do first (a file to put) asks early. */
struct jvm;
int attach_check(const struct jvm *j, char *err, size_t errlen);

/* Send cmd with up to three args (NULL = empty), unless attach_check
 * refuses (then nothing is created or signalled), and read the whole reply
 * into *reply (malloc'd, NUL-terminated; caller frees): the status line
 * and the body. timeout_ms bounds everything: the wait for the listener,
 * connect, send and the reply. Returns 0, or an enum attach_error with err
 * filled (one line); on ATTACH_CUT *reply is set too. */
int attach_send(const struct jvm *j, const char *cmd, const char *const args[3],
                int timeout_ms, char **reply, char *err, size_t errlen);

/* attach_send, with *reply NULL on every failure (ATTACH_CUT's too). */
int attach_ask(const struct jvm *j, const char *cmd, const char *const args[3],
               int timeout_ms, char **reply, char *err, size_t errlen);

/* Split a reply: returns its status (the first line's number, or INT_MIN
 * when it has none) and points *body past the first line. */
int attach_status(const char *reply, const char **body);

/* The agent's return code in a "load" reply: JDK 9-20 put "return code: N"
 * in the body, 21+ too but always with status 0, JDK 8 a bare number.
 * Returns 0 and sets *rc, or -1 when the reply has none (a failed load). */
int attach_load_code(const char *reply, int *rc);

#endif
