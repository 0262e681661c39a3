/* vm.h - find JVMs: hsperfdata discovery and target resolution
 *
 * A JVM is visible through its PerfData file /tmp/hsperfdata_<user>/<pid>.
 * Discovery follows jvmstat (docs/jvmstat.md §2.1): our own /tmp, then the
 * /tmp of every other mount namespace, resolved inside that process's root
 * (core/root.h), where a file is named by the pid inside the container and
 * is reported under the host pid. The user name is the folder's suffix (no
 * NSS in a static binary); whether the JVM still holds its file comes from
 * /proc/locks. Nothing is opened while listing: a FIFO or a device named
 * like a pid is seen by its type and passed over.
 *
 * One header, a file per noun: vm_list.c lists (vm_list, vm_each_tmp,
 * vm_flock_held), vm_target.c resolves what a command line names
 * (vm_parse_target, vm_find, vm_owner), vm_open.c opens a listed JVM's file
 * within the per-JVM budget, vm_counters.c reads what a JVM says of itself
 * in its counters (command line, main class, attach, Java version).
 */
#ifndef VM_H
#define VM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct vm {
  int pid;      /* host pid */
  int nspid;    /* the pid inside its own pid namespace */
  char *user;   /* from hsperfdata_<user> */
  char *path;   /* the PerfData file, as named in messages and --json */
  int root_pid; /* whose root holds it: 0 ours, -1 a path the user
                       named (opened as named), else that host pid's */
  char *file;   /* its path inside that root */
  uid_t uid;    /* the file's owner */
  int other_ns; /* found in another mount namespace's /tmp */
  int alive;    /* its process exists and maps it (or, another
                       user's, cannot be asked); 0: a stale file */
  int locked;   /* 1: its flock is held (a live JVM), 0: not, -1: unknown */
  size_t found; /* vm_list: the order it was found in (ties by pid) */
  /* What vm_list's walk saw of its process (seen 1; 0 in other rows):
   * core/jvm's jvm_open_row takes it instead of reading the process's
   * maps again, while the process is the one seen (its start time). */
  int seen;
  int libjvm;        /* it maps a libjvm.so executable, or is an emulated
                        JVM (emulated 1) */
  int emulated;      /* a JVM run by a qemu-user our root holds (vm_see) */
  int libjvm_data;   /* it maps a libjvm.so, none of it executable */
  unsigned maj, min; /* its shared mapping of this file */
  uint64_t ino;
  uint64_t pidns, mntns; /* its namespaces' inodes */
  uint64_t start;        /* its start time (ticks after boot) */
  struct perfdata *pd;   /* vm_find's: its PerfData file, read once to
                            match it, handed to jvm_open_row (which takes
                            it: not read again); NULL. vm_free closes it */
};

/* Every JVM this user can see, sorted by host pid, each pid once: a file
 * is listed under a live pid only when that process maps that very file
 * (core/proc's proc_maps_file: a file planted under another process's pid
 * names no one), and under a gone pid with alive 0 (jps leaves those out;
 * ps --stale and clean show them). Sets
 * *out (caller frees with vm_list_free) and *n; returns 0 or -errno when
 * not even /tmp could be read. Unreadable folders are skipped. */
int vm_list(struct vm **out, size_t *n);
void vm_list_free(struct vm *v, size_t n);

/* v's process's /proc folder, opened (O_PATH): -1 when v is a file, the
 * process is gone, or (a row the walk saw) the process at that pid is no
 * longer the one seen (its start time). The caller closes it; everything
 * read of that process goes through it (core/proc's *_at). */
int vm_proc_open(const struct vm *v);

/* The one walk over every other mount namespace's /tmp (docs/jvmstat.md
 * §2.1; vm_list and clean take it): each live process whose /tmp, opened
 * inside its root, is not ours, in pid order: cb(arg, pid, r, tmpfd, sb,
 * first), first set for the first process that sees that /tmp (by device
 * and inode). r and tmpfd are closed after cb returns. A /tmp is judged
 * by what the kernel shows before it is opened (vm_tmp_of): one a
 * process serves is never opened (vm_skipped says which). Returns 0 or
 * -errno when /proc or our own /tmp cannot be read. */
struct root;
struct stat;
int vm_each_tmp(int (*cb)(void *arg, int pid, const struct root *r, int tmpfd,
                          const struct stat *sb, int first),
                void *arg);

/* The /tmp the process whose /proc folder procfd is (host pid pid) sees,
 * as vm_each_tmp judges it (its stat in *sb): 0, -EREMOTE when opening it
 * could wait on a file system a process serves (a FUSE /tmp: noted in
 * vm_skipped, never opened), or -errno. */
int vm_tmp_of(int procfd, int pid, struct stat *sb);

/* 1 when a file system a process serves is mounted at our own
 * /tmp/<name> or under it (a local user's FUSE mount on their
 * hsperfdata_ folder): never opened; noted in vm_skipped, why (n bytes,
 * may be NULL) says which. */
int vm_tmp_served(const char *name, char *why, size_t n);

/* What the walks of this command did not look at, each pid once: a JVM
 * (jvm 1) or a /tmp (jvm 0; pid 0: a folder of our own /tmp) behind a
 * file system a process serves (why:
 * "a fuse mount in its /tmp (/tmp/x)", the process's own text: escape it).
 * said is the caller's: set it once the user was told. */
struct vm_skip {
  int pid;
  int jvm;
  int said;
  char why[192];
};
struct vm_skip *vm_skipped(size_t *n);

#include "core/proc.h"

/* What the kernel shows of a process as a JVM, read without asking any
 * file system (docs/security.md §11): its maps (once), its namespaces,
 * and its mounts when its mount namespace is not ours. */
struct vm_seen {
  struct proc_jvm_maps maps;
  uint64_t pidns, mntns; /* 0: unknown */
  int other_mnt;         /* its mount namespace is not ours */
  int foreign;           /* our pid namespace (the host's), another mount
                            namespace and root: a container's files, whose
                            names that container controls, in a host
                            process. The shape of a renamed-mapping attack:
                            never a JVM */
  int emulated;          /* its libjvm.so mapping is not executable, and
                            its executable is a qemu-user emulator our own
                            root holds (proc_exe_emulator): maps.libjvm is
                            set; a JVM only with its PerfData file too */
  int row;               /* taken from a listing row's facts (jvm_open_row) */
  char hostile[192];     /* not empty: its /tmp meets a file system a
                            process serves (core/root's root_mounts_hostile):
                            not looked at; the why, the process's text */
};

/* Read maps (unless done: s->maps filled, maps_read set) and judge the
 * namespaces and mounts of the process whose /proc folder is procfd.
 * 0, or -errno when its maps cannot be read; -ESRCH when it exited
 * meanwhile (its namespaces gone). */
int vm_see(int procfd, int maps_read, struct vm_seen *s);

/* The inode of our own mount namespace (read once per run). */
uint64_t vm_self_mntns(void);

/* The one target grammar of every command: a host pid ("4242"; jstat's
 * "//4242" and "local://4242" too), a file: URI ("file:///tmp/a%20b/pd",
 * "file:/x": absolute, no authority, query or fragment, %XX decoded), a
 * pod's NAMESPACE/POD[/CONTAINER] when no file has that name (the one
 * live JVM there, core/pod's pod_find: -ESRCH for none, -E2BIG for
 * several, err saying which), or a path. Sets *pid (0 for a file) and
 * *path (malloc'd; NULL for a pid). Returns 0, or -EINVAL with
 * "<reason>: <target>" in err. VM_TARGET_JSTAT
 * is jstat's grammar: no plain paths, no space in a URI. */
enum { VM_TARGET_JSTAT = 1 };
int vm_parse_target(const char *s, int flags, int *pid, char **path, char *err,
                    size_t errlen);

/* 1 when s is a pod target (NAMESPACE/POD[/CONTAINER]) and no file has
 * that name: core/pod's pod_find resolves it to its listing row. */
int vm_pod_target(const char *s);

/* An empty row: no pid, no file, root_pid -1, locked -1. */
void vm_init(struct vm *out);

/* The host pid of the process whose PerfData file v is: v->pid, else (a
 * path the user named) the file's name read as a pid in the namespace of
 * the root it was named through (/proc/<n>/root/...; ours for any other
 * path); 0 when no process can be told. */
int vm_owner(const struct vm *v);
void vm_free(struct vm *v);

/* The JVMs an attaching command's target names (jcmd's grammar): a pid
 * (vm_parse_target's, jstat's flags), "0" for every JVM, or a part of the
 * main class as jps -l shows it (a jar's path, "module/class"; not its
 * arguments). 0 and main-class targets name only the live JVMs that take attach
 * requests (vm_attachable), as jcmd does. A main class that names JVMs of
 * several owners (users, or mount namespaces: containers) names none:
 * -E2BIG with vm_names' line in err; "0" (and "", a part of every main
 * class) names every JVM of every owner. A pid is named as it is, its
 * path NULL: core/jvm's jvm_open_row opens and verifies it. Sets *out (free with
 * vm_list_free) and *n; none found is *out NULL, *n 0. Returns 0, or
 * -EINVAL with the reason in err (a PerfData path: attach needs a pid), or
 * vm_list's -errno. */
int vm_find(const char *target, struct vm **out, size_t *n, char *err,
            size_t errlen);

/* One line naming the n JVMs v[0..n) a target names, for a command that
 * needs one: "'x' names 2 JVMs[ of several owners]: 4242 (uid 0), 4343
 * (uid 100000, container 0123456789ab): give one pid" (a container by its
 * cgroup id, else by its mount namespace, "mnt:[N]"; at most 16 pids,
 * then how many more). Into err. */
void vm_names(const char *target, const struct vm *v, size_t n, char *err,
              size_t errlen);

/* Open v's PerfData file (pd_open's returns, pd->err set on failure): a
 * file found by pid is resolved inside its root and must be a regular file
 * with one link, owned by v->uid; a path the user named is opened as
 * named, and must be a regular file too. Never blocks. */
struct perfdata;
int vm_open(const struct vm *v, struct perfdata *pd);

/* A node-wide loop (ps, stat all, dump all) reads one JVM at a time, each
 * within a budget: its work is bounded by the PerfData ceilings (at most
 * PD_MAX_FILE bytes read, PD_MAX_ENTRIES entries, O(n log n)), and its
 * time by VM_BUDGET_MS, 200 times what a real JVM's file takes (~5 ms). */
enum { VM_BUDGET_MS = 1000 };

/* vm_open within the budget: the same returns, and -EFBIG for a file over
 * a ceiling, -ETIME when the open and parse took longer than VM_BUDGET_MS
 * (the file is then closed). pd->err says why, for one line of the loop:
 * vm_over_budget() tells the two apart from an ordinary failure. The time
 * is checked once the read returns: a read that never returns is not cut. */
int vm_open_budget(const struct vm *v, struct perfdata *pd);

/* The budget's check after any open that started at t0 (now_ms) and
 * returned rc: rc, or -ETIME (pd closed, pd->err says why) when it took
 * longer than VM_BUDGET_MS. */
#include <stdint.h>
int vm_budget_end(struct perfdata *pd, uint64_t t0, int rc);

/* 1 if rc (from vm_open_budget) means "over a ceiling or the budget": the
 * loop says so in one line and goes on with the next JVM. */
int vm_over_budget(int rc);

/* A JVM's command line: the one reader of its sun.rt.javaCommand counter
 * (the main class, or a -jar path, then the arguments). Sets *s (raw
 * bytes in pd's buffer, valid until pd_refresh/pd_close) and *n. Returns
 * 0, or -ENOENT (*s "", *n 0) when pd is NULL or has no such string. */
struct perfdata;
int vm_command(const struct perfdata *pd, const char **s, size_t *n);

/* main_class, the one meaning of that name in every output (ps --json,
 * top --json, the labels of /metrics and /sd): the main class as jps -l
 * shows it (docs/jvmstat.md §3.3), the command line cmd (n bytes) up to
 * its first space, all of it when a space starts it: a class, a
 * "module/class" or a jar's path as typed. Returns its length: the main
 * class is cmd[0..len). */
size_t vm_main_class(const char *cmd, size_t n);

/* main: jps's short form of a main class cls (n bytes, vm_main_class's):
 * the file or class name alone ("Server" for org.example.Server, "app.jar"
 * for /srv/app.jar). Returns its length; *at is where it starts in cls. */
size_t vm_main(const char *cls, size_t n, size_t *at);

/* Whether the JVM whose PerfData pd is takes attach requests, as its
 * sun.rt.jvmCapabilities counter says (its first character, as the JDK
 * attach client reads it): 1 yes, 0 no (started with
 * -XX:+DisableAttachMechanism), -ENOENT when it cannot be told (pd NULL,
 * no such counter). A SIGQUIT to a JVM that says no prints a thread dump
 * into its log. */
int vm_attachable(const struct perfdata *pd);

struct buf;
/* The string counter name of pd as the JDK tools print it (Java's text of
 * its bytes: core/out's out_java_text) into b, replacing what b held;
 * missing (absent, or when pd is NULL) is put, and b is NUL-terminated. */
void vm_text(const struct perfdata *pd, const char *name, const char *missing,
             struct buf *b);

/* pd's command line (vm_command) as vm_text gives a counter, "" when it
 * cannot be read (pd NULL: none). */
void vm_java_command(const struct perfdata *pd, struct buf *b);

/* The Java feature version a version text starts with: 8 for "1.8.0_144",
 * 11 for "11.0.2", 21 for "21-ea" (n bytes at s, NUL not needed). 0 when
 * it starts with no version. */
int java_feature(const char *s, size_t n);

/* The feature version of the JVM whose PerfData pd is, from its
 * java.property.java.version, else java.vm.specification.version. 0 when
 * neither says (the caller assumes the newest). */
struct perfdata;
int vm_java_feature(const struct perfdata *pd);

/* When the JVM started, in ms since the epoch, as its RuntimeMXBean's
 * getStartTime says it (sun.rt.vmInitDoneTime: the end of its creation).
 * 0 and *ms, or -ENOENT. */
int vm_start_ms(const struct perfdata *pd, double *ms);

/* The JVM's uptime in seconds at the wall clock's wall_ms, the one rule
 * of ps, top --json and stat -t (specs/jstat.spec's timestamp, jstat 25's
 * rule; every JDK has its counter, JDK 25 has no sun.os.hrt.ticks): since
 * sun.rt.createVmBeginTime, as RuntimeMXBean's getUptime counts from its
 * start. 0 and *secs, or -ENOENT. */
int vm_uptime(const struct perfdata *pd, uint64_t wall_ms, double *secs);

/* 1 if some process holds a flock on the file (dev, ino), per /proc/locks;
 * 0 if not; -errno if /proc/locks cannot be read. */
int vm_flock_held(dev_t dev, ino_t ino);

#endif
