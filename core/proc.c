/* proc.c - facts about a process from /proc */
#include "core/jvmtool.h"

int proc_status(int pid, struct proc_status *st)
{
  char path[64], *data, *line, *next;
  size_t len;
  int rc, seen = 0;

  memset(st, 0, sizeof(*st));
  snprintf(path, sizeof(path), "/proc/%d/status", pid);
  if ((rc = read_file(AT_FDCWD, path, 0, 1 << 20, &data, &len))) return rc;
  for (line = data; line && *line; line = next) {
    unsigned long long a, b;
    char *p;

    if ((next = strchr(line, '\n'))) *next++ = 0;
    if (starts_with(line, "Name:")) {
      for (p = line + 5; *p == '\t' || *p == ' '; p++) ;
      snprintf(st->name, sizeof(st->name), "%s", p);
    } else if (starts_with(line, "NSpid:")) {
      p = line + 6;
      while (st->nnspid < PROC_MAX_NSPID) {
        char *end;
        long v = strtol(p, &end, 10);

        if (end == p) break;
        st->nspid[st->nnspid++] = (int)v;
        p = end;
      }
    } else if (sscanf(line, "Uid: %llu %llu", &a, &b) == 2) {
      st->ruid = (uid_t)a, st->euid = (uid_t)b, seen |= 1;
    } else if (sscanf(line, "Gid: %llu %llu", &a, &b) == 2) {
      st->rgid = (gid_t)a, st->egid = (gid_t)b, seen |= 2;
    } else if (sscanf(line, "SigCgt: %llx", &a) == 1) {
      st->sigcgt = a;
    }
  }
  free(data);
  return seen == 3 ? 0 : -EINVAL;
}

int proc_innermost(const struct proc_status *st, int pid)
{
  return st->nnspid ? st->nspid[st->nnspid - 1] : pid;
}

int proc_nspid(int pid)
{
  struct proc_status st;
  int rc = proc_status(pid, &st);

  return rc ? rc : proc_innermost(&st, pid);
}

static int by_value(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;

  return (x > y) - (x < y);
}

int proc_pids(int **pids, size_t *n)
{
  DIR *d = opendir("/proc");
  struct dirent *e;
  size_t cap = 0;
  int pid;

  *pids = NULL;
  *n = 0;
  if (!d) return -errno;
  while ((e = readdir(d))) {
    if (parse_pid(e->d_name, &pid)) continue;
    if (*n == cap) {
      cap = cap ? cap * 2 : 256;
      *pids = xrealloc(*pids, cap * sizeof(**pids));
    }
    (*pids)[(*n)++] = pid;
  }
  closedir(d);
  if (*n) qsort(*pids, *n, sizeof(**pids), by_value);
  return 0;
}

int proc_ns_ino(int pid, const char *kind, uint64_t *ino)
{
  char path[64];
  struct stat sb;

  if (pid) snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, kind);
  else snprintf(path, sizeof(path), "/proc/self/ns/%s", kind);
  if (stat(path, &sb)) return -errno;
  *ino = sb.st_ino;
  return 0;
}

int proc_alive(int pid)
{
  return pid > 0 && (!kill(pid, 0) || errno == EPERM);
}

int proc_foreign_user(int pid, char *err, size_t errlen)
{
  struct proc_status st;

  if (!geteuid() || proc_status(pid, &st) || st.euid == geteuid()) return 0;
  snprintf(err, errlen, "pid %d belongs to uid %d: run as that user or root",
           pid, (int)st.euid);
  return -EPERM;
}
