/* proc.h - facts about a process from /proc: namespace pids, ids, signals,
 * CPU time and threads
 *
 * Everything jvmtool knows about a pid across containers comes from here:
 * /proc/<pid>/status (NSpid, Uid, Gid, SigCgt), /proc/<pid>/ns/<kind>,
 * /proc/<pid>/stat and /proc/<pid>/task/<tid>/stat (proc(5)), cgroup.
 */
#ifndef PROC_H
#define PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum { PROC_MAX_NSPID = 16 };

struct proc_status {
  int nspid[PROC_MAX_NSPID]; /* NSpid: host first, innermost last */
  int nnspid;                /* 0 on kernels without an NSpid line */
  uid_t ruid, euid;
  gid_t rgid, egid;
  uint64_t sigcgt; /* caught signals, bit (sig - 1) */
  char name[64];   /* Name: (the comm, truncated) */
};

/* Every function that reads a process's files reads it through its
 * /proc/<pid> folder, opened once (proc_open): by the node walk and the
 * opener (core/vm_list, core/jvm) that find processes, and after them
 * through the folder an opened JVM holds (core/jvm's procfd). A process
 * once opened is never looked up by its pid again, and a pid reused since
 * is never read.
 *
 * The /proc/<pid> folder of host pid pid (O_PATH): the one way from a pid
 * to a process. Returns the fd (the caller closes it), or -errno
 * (-ENOENT: no such process). */
int proc_open(int pid);

/* The status of the process whose /proc/<pid> folder procfd is. Returns
 * 0, or -errno (-ENOENT: gone, -EINVAL: unparsable). */
int proc_status_at(int procfd, struct proc_status *st);
/* The same for one thread: task/<tid>/status (tid 0: the process). Its
 * NSpid is the thread's tid in each pid namespace, so proc_innermost of
 * it is the tid the JVM itself prints (a dump's nid). */
int proc_task_status_at(int procfd, int tid, struct proc_status *st);

/* The innermost pid of a status read for pid (the last NSpid field), or
 * pid where the kernel has no NSpid line. The one place that knows. */
int proc_innermost(const struct proc_status *st, int pid);

/* /proc as a folder, opened once per run (kept open: the walks of serve
 * and top read it again and again). -1 when it cannot be opened. */
int proc_dirfd(void);

/* Every pid in /proc, ascending: the one walk of /proc. Sets *pids
 * (caller frees) and *n; returns 0 or -errno when /proc cannot be read. */
int proc_pids(int **pids, size_t *n);

/* The inode of ns/<kind> ("pid", "mnt", "user") in procfd's process.
 * Returns 0 and sets *ino, or -errno. */
int proc_ns_ino_at(int procfd, const char *kind, uint64_t *ino);
/* The same of our own process. */
int proc_self_ns_ino(const char *kind, uint64_t *ino);

/* When we are not root and pid (whose status st is) runs as another
 * user: "pid N belongs to uid U: run as that user or root" in err, and
 * -EPERM. Otherwise 0. The one wording of every command for that
 * situation. */
int proc_foreign_user(int pid, const struct proc_status *st, char *err,
                      size_t errlen);

/* 1 if a process with this pid exists in our pid namespace (kill(pid, 0)
 * succeeds or says EPERM), 0 if not (ESRCH). A question about a number
 * (a PerfData file's name), not about a process: nothing of a process is
 * read, and nothing is aimed at it. */
int proc_alive(int pid);

/* One line of /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat. */
struct proc_stat {
  char comm[16];      /* field 2: the thread's name, at most 15 bytes */
  char state;         /* field 3: R, S, D, Z, ... */
  uint64_t utime;     /* field 14: user CPU, clock ticks */
  uint64_t stime;     /* field 15: system CPU, clock ticks */
  long threads;       /* field 20 */
  uint64_t starttime; /* field 22: ticks after boot */
  uint64_t vsize;     /* field 23: virtual memory, bytes */
  uint64_t rss;       /* field 24: resident pages */
};

/* Parse one stat line (n bytes, need not be NUL-terminated): the comm is
 * what lies between the first '(' and the last ')', so a name holding
 * spaces or ')' cannot shift the fields. Returns 0 or -EINVAL. */
int proc_stat_parse(const char *s, size_t n, struct proc_stat *st);

/* Read procfd's stat (tid 0) or task/<tid>/stat, at most PROC_STAT_MAX
 * bytes. Returns 0, -ENOENT when it is gone, or -errno. */
enum { PROC_STAT_MAX = 4096 };
int proc_stat_at(int procfd, int tid, struct proc_stat *st);

/* How many file descriptors the process has open: the entries of its fd folder,
 * counted from getdents64 (no stat per entry). A process may hold a
 * million: past max, counting stops and returns -E2BIG (*n then max;
 * serve and dump take PROC_MAX_FDS). Returns 0 and *n, or -errno
 * (-EACCES: another user's process and we lack the privilege). */
enum { PROC_MAX_FDS = 1 << 18 };
int proc_open_fds_at(int procfd, size_t max, size_t *n);

/* The soft limit on open files of the process ("Max open files" in its
 * limits). Returns 0 and *soft, -ERANGE when it is
 * "unlimited", or -errno (-EINVAL: no such line). */
int proc_max_fds_at(int procfd, uint64_t *soft);

/* One thread of a process. */
struct proc_task {
  int tid;
  struct proc_stat st;
};

/* Every thread of the process, ascending by tid, at most PROC_MAX_TASKS (the rest
 * counted in *dropped when not NULL). A thread that ends while being read
 * is left out: normal, not an error. Sets *tasks (caller frees) and *n;
 * returns 0, or -errno when /proc/<pid>/task cannot be opened. */
enum { PROC_MAX_TASKS = 1 << 16 };
int proc_tasks_at(int procfd, struct proc_task **tasks, size_t *n,
                  size_t *dropped);

/* qsort/bsearch order of struct proc_task: by tid. */
int proc_task_cmp(const void *a, const void *b);

/* The CPU ticks each thread of cur used since prev (both ascending by
 * tid, as proc_tasks returns them): d[i][0] user, d[i][1] system, for
 * cur[i]. A tid not in prev, or in it with another starttime (reused),
 * started in between and counts all its time. O(np + nc). */
void proc_tasks_delta(const struct proc_task *prev, size_t np,
                      const struct proc_task *cur, size_t nc, uint64_t (*d)[2]);

/* The CPU a process's threads use over a window: each thread's
 * utime+stime (proc(5), exact per thread) at its start and end. */
struct proc_window {
  int procfd; /* the process's /proc folder (the caller's, kept open) */
  struct proc_task *tasks; /* at the start, ascending by tid */
  size_t n;
  uint64_t ticks;         /* the process's utime+stime at the start */
  int on;                 /* started */
  uint64_t (*wait)[2];    /* schedstat's run and runqueue ns of tasks[i]
                              at the start (UINT64_MAX: unread); NULL: not
                              asked */
  uint64_t start_ms;      /* now_ms() at the start */
  int64_t start_epoch_ns; /* the wall clock then (ns since the epoch) */
};

/* One thread's CPU over a window. */
struct proc_cpu {
  int tid;         /* host tid */
  int nstid;       /* its tid in the process's innermost pid namespace (the
                     osThreadId a JVM reports), tid without NSpid */
  char comm[16];   /* its name (a Java thread's, cut to 15 bytes) */
  int64_t ns;      /* utime+stime over the window, ns */
  int64_t wait_ns; /* time it was ready to run and waited for a core
                      (schedstat), when asked, else 0 */
  int64_t run_ns;  /* time on a core (schedstat, ns), when asked; -1 when
                      unknown (not asked, not readable, not whole) */
  int whole;       /* it ran through the whole window */
};

/* task/<tid>/schedstat's first two fields (procfd's process): ns the thread ran
 * on a core (ns[0]) and waited on a runqueue (ready, no core free: ns[1]).
 * 0, or -errno (a kernel without schedstats: -ENOENT). */
int proc_task_sched_at(int procfd, int tid, uint64_t ns[2]);

/* Start a window on the threads of procfd's process (wait: also the time each waits for a
 * core: one more read per thread). 0, or -errno (no such process). */
int proc_window_start(struct proc_window *w, int procfd, int wait);

/* End it: every thread that used CPU in the window, ascending by tid, into
 * *out (caller frees) and *n; *process_ns the whole process's CPU over it
 * (threads that ended inside it included), *span_ns its length. Reads one status file per
 * thread that ran. 0, or -errno (the process is gone). Frees w. */
int proc_window_end(struct proc_window *w, struct proc_cpu **out, size_t *n,
                    int64_t *process_ns, int64_t *span_ns);

/* Drop a window (started or not). */
void proc_window_free(struct proc_window *w);

/* Clock ticks per second of the utime/stime fields (sysconf, asked once). */
long proc_hz(void);

/* Bytes per page of the rss field (sysconf, asked once). */
long proc_page(void);

/* Seconds since boot, from /proc/uptime (for starttime). Returns 0 and
 * *secs, or -errno. */
int proc_uptime(double *secs);

/* The container id of procfd's process: the first 64-hex-digit name in
 * its cgroup (docker, containerd, cri-o name them so), into id (65
 * bytes, "" for none); and the pod uid ("pod" and 36 of [0-9a-f-_], '_'
 * read as '-') into pod (37 bytes, "" for none; may be NULL). Returns 0
 * or -errno when the file cannot be read. */
int proc_container_at(int procfd, char id[65], char pod[37]);

/* One line of /proc/<pid>/maps: "start-end perms offset MAJ:MIN inode
 * path". Only lines with a path reach a callback (an anonymous mapping
 * costs a memchr); the kernel appends " (deleted)" to a file since
 * removed. */
struct proc_map {
  char perms[5]; /* "r-xp", "rw-s": x executable, s shared */
  unsigned maj, min;
  uint64_t ino;
  const char *path;
};

/* Hand each file line of fd (an open /proc/<pid>/maps) to cb, read
 * through a fixed buffer: memory does not follow the process's mappings,
 * and a line longer than the buffer is skipped. cb returns nonzero to
 * stop; that value is returned, else 0. */
int proc_maps_fd(int fd, int (*cb)(void *, const struct proc_map *), void *arg);

/* What a process's maps say of it as a JVM, read once, without asking any
 * file system (the kernel prints what each mapping is): whether it maps a
 * libjvm.so executable, and its shared mappings of files whose path ends
 * in hsperfdata_<user>/<digits> (a live HotSpot maps its PerfData file
 * so; the first PROC_JVM_PERF). A path is what the file is called *now*:
 * a name alone proves nothing (core/jvm judges; docs/security.md §11). */
enum { PROC_JVM_PERF = 4 };
struct proc_perf_map {
  unsigned maj, min; /* the mapped file's device and inode */
  uint64_t ino;
  char user[64];  /* from hsperfdata_<user> */
  int name;       /* the file's name, a pid */
  char path[256]; /* as the kernel shows it; "" when longer */
};
struct proc_jvm_maps {
  int libjvm;      /* an executable mapping of a file named libjvm.so */
  int libjvm_data; /* a mapping of a file named libjvm.so, none of them
                      executable (qemu-user maps an emulated JVM's so: it
                      runs translated code) */
  int nperf;
  struct proc_perf_map perf[PROC_JVM_PERF];
};

/* Read the maps file path at dirfd ("maps" in a /proc/<pid> folder, or
 * "<pid>/maps" in /proc) into m. 0 or -errno (-EACCES: another user's,
 * when we are not root; -ENOENT: gone).
 *
 * Where the kernel has it (Linux 6.11+), the maps are asked through the
 * PROCMAP_QUERY ioctl for the mappings the identity needs, no text for
 * the rest: the shared file mappings, the executable ones until a
 * libjvm.so, all file mappings only when neither has one. The same facts
 * the text shows (device, inode, flags, the name as maps prints it), so
 * the same result; the text is read where the ioctl is missing (found
 * once per command). */
int proc_jvm_maps(int dirfd, const char *path, struct proc_jvm_maps *m);

/* The same for the node walk, which keeps only a process with a
 * PerfData-shaped mapping: when m->nperf is 0, m->libjvm and
 * m->libjvm_data are not asked (0). */
int proc_perf_maps(int dirfd, const char *path, struct proc_jvm_maps *m);

/* How the maps of an open fd are read: PROC_MAPS_AUTO as above;
 * PROC_MAPS_TEXT the text only, PROC_MAPS_QUERY the ioctl only (-ENOTTY
 * and kin where there is none: the tests compare the two ways on one
 * process); PROC_MAPS_HOLDER (with AUTO or QUERY) as proc_perf_maps. */
enum {
  PROC_MAPS_AUTO = 0,
  PROC_MAPS_TEXT = 1,
  PROC_MAPS_QUERY = 2,
  PROC_MAPS_HOLDER = 4
};
int proc_jvm_maps_fd(int fd, int how, struct proc_jvm_maps *m);

/* 1 when the maps file path at dirfd has a mapping of the file (dev,
 * ino), under any name (a PerfData file reached through a link in our own
 * /tmp), 0 when not, -errno. Asked of the kernel for the file mappings'
 * devices and inodes, no names, where it can (as proc_jvm_maps). */
int proc_maps_has(int dirfd, const char *path, dev_t dev, ino_t ino);
int proc_maps_has_fd(int fd, int how, dev_t dev, ino_t ino);

/* m's shared mapping of the file (dev, ino), or on an overlay that shows
 * the lower device, of that inode named name (may be NULL); NULL when the
 * process does not map it (a planted or stale file). */
const struct proc_perf_map *proc_jvm_maps_file(const struct proc_jvm_maps *m,
                                               dev_t dev, ino_t ino,
                                               const char *name);

/* One read of a small /proc file (path at dirfd, never through a link)
 * into buf, at most max - 1 bytes, NUL-terminated; *len its length.
 * Returns 0 or -errno. */
int proc_read_small(int dirfd, const char *path, char *buf, size_t max,
                    size_t *len);

/* 1 when the executable of the process whose /proc/<pid> folder procfd
 * is, is a qemu-user emulator our own root holds and only root may
 * change: its name (the kernel's, resolved) is qemu-*, not qemu-system-*;
 * that path in our root (never the process's) is the very file it runs
 * (device and inode), a regular file of root's that no group or other
 * may write, in folders of root's, none of them a link, that no group or
 * other may write. 0 otherwise. A readlink and a few stats: asked only
 * of a process whose libjvm.so mapping is not executable
 * (docs/security.md §10). */
int proc_exe_emulator(int procfd);

#endif
