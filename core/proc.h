/* proc.h - facts about a process from /proc: namespace pids, ids, signals
 *
 * Everything jvmtool knows about a pid across containers comes from here:
 * /proc/<pid>/status (NSpid, Uid, Gid, SigCgt) and /proc/<pid>/ns/<kind>.
 */
#ifndef PROC_H
#define PROC_H

#include <stddef.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum { PROC_MAX_NSPID = 16 };

struct proc_status {
  int nspid[PROC_MAX_NSPID];  /* NSpid: host first, innermost last */
  int nnspid;                 /* 0 on kernels without an NSpid line */
  uid_t ruid, euid;
  gid_t rgid, egid;
  uint64_t sigcgt;            /* caught signals, bit (sig - 1) */
  char name[64];              /* Name: (the comm, truncated) */
};

/* Read /proc/<pid>/status. Returns 0, or -errno (-ENOENT: no such process,
 * -EINVAL: unparsable). */
int proc_status(int pid, struct proc_status *st);

/* The pid of <pid> inside its innermost pid namespace (the last NSpid field),
 * or pid itself where the kernel has no NSpid line. Returns -errno when
 * /proc/<pid>/status cannot be read. */
int proc_nspid(int pid);

/* The innermost pid of a status read for pid (the last NSpid field), or
 * pid where the kernel has no NSpid line. The one place that knows. */
int proc_innermost(const struct proc_status *st, int pid);

/* Every pid in /proc, ascending: the one walk of /proc. Sets *pids
 * (caller frees) and *n; returns 0 or -errno when /proc cannot be read. */
int proc_pids(int **pids, size_t *n);

/* The inode of /proc/<pid>/ns/<kind> ("pid", "mnt"); pid 0 means self.
 * Returns 0 and sets *ino, or -errno. */
int proc_ns_ino(int pid, const char *kind, uint64_t *ino);

/* When we are not root and pid runs as another user: "pid N belongs to uid
 * U: run as that user or root" in err, and -EPERM. Otherwise 0. The one
 * wording of every command for that situation. */
int proc_foreign_user(int pid, char *err, size_t errlen);

/* 1 if a process with this pid exists in our pid namespace (kill(pid, 0)
 * succeeds or says EPERM), 0 if not (ESRCH). */
int proc_alive(int pid);

#endif
