/* jvm.h - an opened JVM: one verified value per target per command
 *
 * A command names its JVM once (a pid, a main class, a PerfData path or
 * file: URI, or a row of core/vm's listing) and jvm_open makes of it the
 * value every layer below takes: the process (a pidfd and its /proc
 * folder, so a reused pid is never mistaken for it), its pid namespace
 * and the pid it knows itself by, its ids, its root and /tmp as opened
 * directories, the PerfData file it maps, its Java version and whether it
 * takes attach requests. Nothing below the command looks the pid up again.
 *
 * Identity is verified, not assumed (docs/security.md §9): a process is a
 * JVM when it maps libjvm.so or the PerfData file attributed to it, and a
 * PerfData file is a process's only when that process maps that very
 * file (its inode, and its device or its path). Nothing that can reach a
 * process (a trigger file, SIGQUIT, a socket) is aimed at one that is not
 * a verified JVM: jvm_check_attach says so first.
 */
#ifndef JVM_H
#define JVM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include "core/proc.h"
#include "core/root.h"
#include "core/vm.h"

enum jvm_verdict {
  JVM_UNKNOWN = -1, /* its maps cannot be read (another user's, not root) */
  JVM_NOT = 0,      /* maps neither libjvm.so nor its PerfData file */
  JVM_IS = 1,
};

struct jvm {
  int pid;               /* host pid; 0: a PerfData file named by path */
  int nspid;             /* the pid it knows itself by (innermost NSpid) */
  uint64_t pidns;        /* the inode of that pid namespace; 0 unknown */
  struct proc_status st; /* ids, caught signals, NSpid: read at the open */
  int procfd;            /* its /proc/<pid> folder, -1 for a file */
  int pidfd;             /* pidfd_open's (signals reach it alone), or -1 */
  struct root root;      /* its "/" (fd -1: none) */
  int tmpfd;             /* its /tmp, opened inside its root; -1: none */
  int other_ns;          /* that /tmp is not ours */
  int is_jvm;            /* enum jvm_verdict */
  struct vm vm;          /* its PerfData file (vm.path NULL: none found) */
  int off;               /* 1: its PerfData says it takes no attach
                            requests, 0: it takes them, -1: cannot tell */
  int jdk;               /* Java feature version; 0 unknown */
  struct vm_seen seen;   /* what the kernel showed at the open */
  struct perfdata *pd;   /* the PerfData the open read, until
                            jvm_perfdata takes it; NULL. A reader that
                            keeps it (jvm_read: /metrics, top's lines)
                            reads it there */
  int listed;            /* 1: opened by jvm_open_listed, for reading:
                            nothing may be aimed at it */
};

/* How jvm_open reads its target. */
enum jvm_flags {
  JVM_JSTAT = 1,   /* jstat's grammar: pids and URIs, no path, no class */
  JVM_PROCESS = 2, /* a running process is needed (attach): a path or URI
                      is refused ("attach needs a pid") */
};

/* Open the one JVM target names: a host pid ("4242", "//4242",
 * "local://4242"), a file: URI or a path to a PerfData file (a file
 * alone: pid 0), or a part of a main class as jps -l shows it that names
 * exactly one JVM taking attach requests (as jcmd matches). Returns 0, or
 * -errno with one line in err: -ESRCH "no process 42" or "no JVM
 * matches 'x'", -E2BIG "'x' names 3 JVMs: give one pid", -ENOENT, -EPERM
 * (another user's, not root), -EINVAL (grammar). j is closed on failure;
 * jvm_close after success. */
int jvm_open(struct jvm *j, const char *target, int flags, char *err,
             size_t errlen);

/* Open the JVM of a listing row (vm_list, vm_find): its process when
 * row->pid, its PerfData file when row->path. The row's PerfData, when
 * vm_find read it and it is the file verified, is taken (row->pd NULL
 * then): not read again. Same returns. */
int jvm_open_row(struct jvm *j, struct vm *row, char *err, size_t errlen);

/* A listing row (vm_list's) as the JVM a node-wide reader renders
 * (/metrics, /sd, dump --prometheus all, top's node view), at the cost
 * of the walk's look-up: nothing the walk saw is read again. The row is
 * taken (its strings and PerfData move into j->vm and j->pd; the row is
 * then empty). A live row's process is its /proc folder, opened when the
 * process is still the one the walk saw (its start time: core/vm's
 * vm_proc_open), -1 when it is gone; a stale file (row->alive 0) or a
 * file named by path (pid 0) is a file alone, procfd -1, its pid the
 * file's name. Nothing else is opened: no pidfd, status, root or /tmp
 * (its PerfData, read by jvm_read, is opened as the walk listed it,
 * core/vm's vm_open). j is for reading only (listed 1): jvm_check_jvm
 * refuses it, and a command that acts on a JVM opens it with
 * jvm_open_row. Never fails; jvm_close after. */
void jvm_open_listed(struct jvm *j, struct vm *row);

/* j's PerfData into j->pd, kept there (a reader's: jvm_perfdata would
 * hand it over), read within core/vm's per-JVM budget: 0 (j->pd set;
 * already set is 0 too), or vm_open_budget's -errno with the reason in
 * err (vm_over_budget tells a ceiling or the budget apart). */
int jvm_read(struct jvm *j, char *err, size_t errlen);

/* Open host pid pid (a number the user typed, or a listing's). */
int jvm_open_pid(struct jvm *j, int pid, char *err, size_t errlen);

/* Close what j holds; j is then empty (jvm_init's). */
void jvm_close(struct jvm *j);

/* An empty value, holding nothing: jvm_close may be called on it. */
void jvm_init(struct jvm *j);

/* Whether anything may be aimed at j (a trigger file, SIGQUIT, a socket):
 * 0 when it is a verified JVM, else -EPERM with "pid N is not a JVM (it
 * maps no libjvm.so): nothing sent" in err. */
int jvm_check_jvm(const struct jvm *j, char *err, size_t errlen);

/* Send sig to j's process and no other (its pidfd where the kernel has
 * them): 0 or -errno (-ESRCH: it has exited). Refuses (-EPERM) what
 * jvm_check_jvm refuses. */
int jvm_signal(const struct jvm *j, int sig);

/* 1 while j's process runs (its /proc folder still answers). */
int jvm_alive(const struct jvm *j);

/* proc_maps_fd over j's own /proc folder's maps: -errno when it cannot
 * be opened (-EACCES: another user's, when we are not root). */
int jvm_maps(const struct jvm *j, int (*cb)(void *, const struct proc_map *),
             void *arg);

/* j's PerfData file (pd_open's returns; pd->err set on failure): the
 * one the open read, handed over to the first call (the file is opened
 * once per JVM per command), else opened afresh through its held root: a
 * regular file of its owner, never through a link. -ENOENT when j has
 * none ("no PerfData file for pid N (...)" in pd->err). Never blocks. */
struct perfdata;
int jvm_perfdata(struct jvm *j, struct perfdata *pd);

/* Whether host_path (absolute, or relative to our cwd) names the same
 * place in j's mount namespace: its folder is the same inode seen from
 * both sides. 1 yes, 0 no (a private /tmp, another root, a folder missing
 * on either side). */
int jvm_same_path(const struct jvm *j, const char *host_path);

/* The owner a file we put into j's /tmp gets: j's euid and egid when we
 * are root (the JVM reads it as its own), else -1 each (ours). */
void jvm_file_owner(const struct jvm *j, long long *uid, long long *gid);

/* Whom a JVM's cost is charged to (what a per-owner bound counts by): its
 * container when it runs in another pid namespace than ours (else
 * another mount namespace), else its user (euid). */
enum jvm_owner_kind { JVM_OWNER_USER, JVM_OWNER_PIDNS, JVM_OWNER_MNTNS };
struct jvm_owner {
  int kind;    /* enum jvm_owner_kind */
  uint64_t id; /* the uid, or the namespace's inode */
};
/* j's owner into *o (never fails: a namespace that cannot be read counts
 * as ours, so the owner is the user). */
void jvm_owner(const struct jvm *j, struct jvm_owner *o);
/* 1 when a and b are the same owner. */
int jvm_owner_same(const struct jvm_owner *a, const struct jvm_owner *b);
/* o in words for a message: "user 1000", "the container of pid namespace
 * 4026532301". */
void jvm_owner_name(const struct jvm_owner *o, char *s, size_t n);

#endif
