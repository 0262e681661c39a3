/* agent_install.c - jvmtool agent-install: the built-in allocation sampler
 *
 * Loads agent/ (embedded in the binary, see build.d/agent.sh) into a running
 * JVM with the attach "load" command, like jattach or async-profiler's
 * launcher. The agent file is written into the target's own /tmp (through
 * /proc/<pid>/root, so containers work), under a name made of its content
 * hash: loading it again reaches the same image, which is how --stop and
 * --status talk to a running sampler. The samples are written inside the
 * target, to /tmp/jvmtool-alloc-<nspid>.txt, and copied back to -o.
 *
 * Options mirror the original's flame.properties (sample.strategy, ...);
 * they are checked here and passed as key=value pairs. --agent loads any
 * other agent: a .so natively, a .jar through the JDK's instrument agent.
 *
 * Deviation: the agent file stays in the target's /tmp after a run (the JVM
 * keeps it mapped; musl's loader needs it to recognise a second load).
 */
#include "core/jvmtool.h"
#include "core/proc.h"
#include "core/vm.h"
#include "core/attach.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define OPTS_FILE "specs/agent_install.opts"
#include "core/opt_table.h"

/* The agent's bytes, put into the binary by build.d/agent.sh. */
extern const unsigned char jt_agent_so[];
extern const uint64_t jt_agent_so_size;

/* Agent_OnAttach's return codes (agent/agent.c). */
enum { AGENT_OK = 0, AGENT_OPTIONS = 2, AGENT_OUTPUT = 3, AGENT_OLD = 4,
       AGENT_JVMTI = 5, AGENT_IDLE = 6, AGENT_TAKEN = 98 };

struct target {
  int pid, nspid;
  struct proc_status st;
  int tmpfd;                /* the target's /tmp, through /proc/<pid>/root */
  char agent[80];           /* the agent as the target sees it */
  char out[64];             /* the sample file as the target sees it */
};

static const char *const props[] = {
  "sample.strategy", "sample.interval.bytes", "sample.interval.ms",
  "sample.rate", "sample.delay.secs", "record.size", "stack.trace.verbosity",
  "output.file", "recorder", "max.stack.depth"
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
  interrupted = sig;
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
  uint64_t h = 0xcbf29ce484222325ull;

  while (n--) h = (h ^ *p++) * 0x100000001b3ull;
  return h;
}

/* Add "key=value" to the agent's option list; a comma would split it. */
static int add_pair(struct buf *b, const char *key, const char *val)
{
  if (strchr(val, ',')) return usage_error("'%s': no comma allowed", val);
  if (b->len) buf_addc(b, ',');
  buf_printf(b, "%s=%s", key, val);
  return 0;
}

static int one_of(const char *what, const char *v, const char *a,
                  const char *b, const char *c)
{
  if (!strcmp(v, a) || !strcmp(v, b) || (c && !strcmp(v, c))) return 0;
  return usage_error("bad %s '%s'", what, v);
}

static int number(const char *what, const char *v, long long min,
                  long long max, long long *out)
{
  if (parse_long(v, min, max, out))
    return usage_error("bad %s '%s' (%lld..%lld)", what, v, min, max);
  return 0;
}

/* Read an allocation-instrumenter flame.properties ("key = value", "key:
 * value", "key value"; # and ! comments) into pairs. attach: output.file
 * names a path in the target and is left to -o. */
static int read_properties(const char *path, int attach, struct buf *b,
                           char **strategy)
{
  char *data, *line, *next, *k, *v, *e;
  size_t len, i;
  int err = read_file(AT_FDCWD, path, 0, 1 << 20, &data, &len), known;

  if (err) {
    errno_msg(err, "cannot read '%s'", path);
    return 1;
  }
  if (memchr(data, 0, len)) {  /* it would end the lines read there */
    error_msg("cannot read '%s': NUL byte (binary data?)", path);
    free(data);
    return 1;
  }
  for (line = data; line; line = next) {
    if ((next = strchr(line, '\n'))) *next++ = 0;
    for (k = line; *k == ' ' || *k == '\t'; k++);
    if (!*k || *k == '#' || *k == '!') continue;
    for (v = k; *v && !strchr("=: \t\r", *v); v++);
    e = v;
    for (; *v && strchr(" \t\r", *v); v++);
    if (*v == '=' || *v == ':') v++;
    for (*e = 0; *v == ' ' || *v == '\t'; v++);
    for (e = v + strlen(v); e > v && strchr(" \t\r", e[-1]); *--e = 0);
    for (i = known = 0; i < sizeof(props) / sizeof(props[0]); i++)
      known |= !strcmp(k, props[i]);
    if (!known) error_msg("%s: ignoring unknown property '%s'", path, k);
    else if (attach && !strcmp(k, "output.file")) continue;
    else if (add_pair(b, k, v)) {
      free(data);
      return 2;
    }
    if (known && !strcmp(k, "sample.strategy")) {
      free(*strategy);
      *strategy = xstrdup(v);
    }
  }
  jt_status = 0;
  free(data);
  return 0;
}

/* The agent's option string from the command line (and --properties). */
static int agent_options(struct args *a, int attach, struct buf *b)
{
  char *strategy = NULL;
  long long n;
  int rc = 0;

  if (a->val[OPT_properties] &&
      (rc = read_properties(a->val[OPT_properties], attach, b, &strategy)))
    goto out;
  if (a->val[OPT_strategy]) {
    free(strategy);
    strategy = xstrdup(a->val[OPT_strategy]);
    if ((rc = one_of("strategy", strategy, "bytes", "time", "allocationCount")) ||
        (rc = add_pair(b, "sample.strategy", strategy)))
      goto out;
  } else if (a->val[OPT_rate]) {
    strategy = xstrdup("allocationCount");
    add_pair(b, "sample.strategy", strategy);
  }
  if (a->val[OPT_interval]) {
    int by_time = strategy && !strcmp(strategy, "time");

    if ((rc = number("interval", a->val[OPT_interval], by_time, INT_MAX, &n)))
      goto out;
    add_pair(b, by_time ? "sample.interval.ms" : "sample.interval.bytes",
             a->val[OPT_interval]);
  }
  if ((a->val[OPT_rate] &&
       ((rc = number("rate", a->val[OPT_rate], 1, 1000000000, &n)) ||
        (rc = add_pair(b, "sample.rate", a->val[OPT_rate])))) ||
      (a->val[OPT_delay] &&
       ((rc = number("delay", a->val[OPT_delay], 0, 86400 * 365, &n)) ||
        (rc = add_pair(b, "sample.delay.secs", a->val[OPT_delay])))) ||
      (a->val[OPT_verbosity] &&
       ((rc = one_of("verbosity", a->val[OPT_verbosity], "methodName",
                     "methodClassName", "methodClassLineNumber")) ||
        (rc = add_pair(b, "stack.trace.verbosity", a->val[OPT_verbosity])))) ||
      (a->val[OPT_recorder] &&
       ((rc = one_of("recorder", a->val[OPT_recorder], "flame", "lifetime",
                     NULL)) ||
        (rc = add_pair(b, "recorder", a->val[OPT_recorder])))) ||
      (a->val[OPT_depth] &&
       ((rc = number("depth", a->val[OPT_depth], 1, 1024, &n)) ||
        (rc = add_pair(b, "max.stack.depth", a->val[OPT_depth])))))
    goto out;
  if (a->count[OPT_no_size]) add_pair(b, "record.size", "false");
out:
  free(strategy);
  return rc;
}

/* Write data to fd; 0 or -errno. */
static int write_all(int fd, const void *data, size_t n)
{
  const char *p = data;

  while (n) {
    ssize_t w = write(fd, p, n);

    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return -errno;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Put data into the target's /tmp as name, owned by the target's user,
 * never through a link and never over a file that is not the same bytes. */
static int put_file(struct target *t, const char *name, const void *data,
                    size_t n)
{
  struct stat sb;
  char *old = NULL;
  size_t oldlen = 0;
  int fd, err;

  fd = openat(t->tmpfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
              O_CLOEXEC, 0644);
  if (fd >= 0) {
    err = write_all(fd, data, n);
    if (!err && geteuid() == 0 && fchown(fd, t->st.euid, t->st.egid))
      err = -errno;
    if (close(fd) && !err) err = -errno;
    if (err) {
      unlinkat(t->tmpfd, name, 0);
      errno_msg(err, "cannot write '/tmp/%s' for pid %d", name, t->pid);
    }
    return err ? -1 : 0;
  }
  if (errno != EEXIST) {
    perror_msg("cannot create '/tmp/%s' for pid %d", name, t->pid);
    return -1;
  }
  /* Written by an earlier run: the name is the content's hash. */
  fd = openat(t->tmpfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  err = fd < 0 ? -errno : fstat(fd, &sb) ? -errno : 0;
  if (!err && (!S_ISREG(sb.st_mode) || (sb.st_uid != t->st.euid &&
                                        sb.st_uid != geteuid())))
    err = -EPERM;
  if (!err) err = read_fd(fd, n + 1, &old, &oldlen);
  if (fd >= 0) close(fd);
  if (!err && (oldlen != n || memcmp(old, data, n))) err = -EEXIST;
  free(old);
  if (err)
    errno_msg(err, "'/tmp/%s' of pid %d is in the way", name, t->pid);
  return err ? -1 : 0;
}

static int same_mount_ns(int pid)
{
  uint64_t a, b;

  return !proc_ns_ino(pid, "mnt", &a) && !proc_ns_ino(0, "mnt", &b) && a == b;
}

/* Resolve the target: ids, namespaces, its /tmp. */
static int open_target(struct target *t, const char *arg)
{
  char path[64];
  int err;

  memset(t, 0, sizeof(*t));
  t->tmpfd = -1;
  /* A pid is taken as it is (attach needs no PerfData file); a PerfData
   * path or file:// URI names its JVM's pid. */
  if (parse_pid(arg, &t->pid)) {
    struct vm v;
    char why[256];

    if (vm_resolve(arg, &v, why, sizeof(why))) {
      error_msg("%s", why);
      return 1;
    }
    t->pid = v.pid;
    /* A PerfData file is named by the JVM's pid in its namespace; one seen
     * through /proc/<pid>/root names the host pid in its path. */
    if (!t->pid && (sscanf(v.path, "/proc/%d/root/", &t->pid) != 1 ||
                    t->pid <= 0) &&
        parse_pid(strrchr(v.path, '/') ? strrchr(v.path, '/') + 1 : v.path,
                  &t->pid))
      t->pid = 0;
    vm_free(&v);
    if (!t->pid) {
      error_msg("cannot tell which process '%s' belongs to", arg);
      return 1;
    }
  }
  if ((err = proc_status(t->pid, &t->st))) {
    errno_msg(err, "no process %d", t->pid);
    return 1;
  }
  t->nspid = t->st.nnspid ? t->st.nspid[t->st.nnspid - 1] : t->pid;
  snprintf(path, sizeof(path), "/proc/%d/root/tmp", t->pid);
  t->tmpfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (t->tmpfd < 0) {
    perror_msg("cannot open '%s'", path);
    return 1;
  }
  snprintf(t->agent, sizeof(t->agent), "/tmp/jvmtool-agent-%016llx.so",
           (unsigned long long)fnv1a(jt_agent_so,
                                     (size_t)jt_agent_so_size));
  snprintf(t->out, sizeof(t->out), "/tmp/jvmtool-alloc-%d.txt", t->nspid);
  return 0;
}

/* attach "load": 0 and the agent's return code in *rc, or -1 (reported).
 * A JVM that is still starting does not catch SIGQUIT yet: asked again
 * until the timeout. */
static int load(struct target *t, const char *lib, int absolute,
                const char *opts, int *rc, int timeout)
{
  const char *args[3] = { lib, absolute ? "true" : "false", opts }, *body;
  struct attach_target at;
  uint64_t end = now_ms() + (uint64_t)timeout * 1000;
  char *reply = NULL, err[256];
  int e;

  if (attach_target(&at, t->pid)) {
    error_msg("no process %d", t->pid);
    return -1;
  }
  while ((e = attach_send(&at, "load", args, timeout * 1000, &reply, err,
                          sizeof(err))) == ATTACH_NOTJVM && now_ms() < end) {
    nanosleep(&(struct timespec){0, 100000000}, NULL);
    attach_target(&at, t->pid);
  }
  if (e) {
    error_msg("%s", err);
    return -1;
  }
  if (attach_load_code(reply, rc)) {
    attach_status(reply, &body);
    error_msg("pid %d: load failed: %.*s", t->pid,
              (int)strcspn(body, "\n"), body);
    free(reply);
    return -1;
  }
  free(reply);
  return 0;
}

/* The target's JAVA_VERSION from the release file of its java home (the
 * exe is <home>/bin/java, or <home>/jre/bin/java on JDK 8), or "?". */
static void jvm_version(struct target *t, char *out, size_t n)
{
  char link[64], exe[PATH_MAX], *path, *data, *p, *e;
  size_t dlen;
  ssize_t len;
  int i;

  snprintf(out, n, "?");
  snprintf(link, sizeof(link), "/proc/%d/exe", t->pid);
  if ((len = readlink(link, exe, sizeof(exe) - 1)) <= 0) return;
  exe[len] = 0;
  /* Drop "/java", then look next to "bin", then next to "jre". */
  for (i = 0; i < 3 && (p = strrchr(exe, '/')); i++) {
    *p = 0;
    if (!i) continue;
    path = xasprintf("/proc/%d/root%s/release", t->pid, exe);
    if (!read_file(AT_FDCWD, path, 0, 65536, &data, &dlen)) {
      if ((p = strstr(data, "JAVA_VERSION=\"")) && (e = strchr(p + 14, '"')))
        snprintf(out, n, "%.*s", (int)(e - p - 14), p + 14);
      free(data);
    }
    free(path);
    if (strcmp(out, "?")) return;
  }
}

/* What the agent's return code means, for the user. */
static void explain(struct target *t, int rc)
{
  char version[64];

  switch (rc) {
  case AGENT_OPTIONS: error_msg("the agent rejected its options"); break;
  case AGENT_OUTPUT: error_msg("the JVM cannot write '%s'", t->out); break;
  case AGENT_OLD:
    jvm_version(t, version, sizeof(version));
    error_msg("pid %d: Java %s has no allocation sampling (JVMTI "
              "SampledObjectAlloc): JDK 11 or later is needed", t->pid,
              version);
    break;
  case AGENT_IDLE: error_msg("pid %d: no sampler is running", t->pid); break;
  case AGENT_TAKEN:
    error_msg("pid %d: another agent owns allocation sampling (JVMTI error "
              "98), e.g. a profiler or an APM agent", t->pid);
    break;
  default:
    error_msg("pid %d: the agent failed with code %d (see the JVM's stderr)",
              t->pid, rc);
  }
}

/* Copy the target's sample file to out ("-": stdout) and remove it. */
static int collect(struct target *t, const char *out)
{
  char *data = NULL;
  size_t len = 0, lines = 0, i;
  struct stat sb;
  int fd, ofd, err;

  fd = openat(t->tmpfd, t->out + 5, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  err = fd < 0 ? -errno : fstat(fd, &sb) ? -errno : 0;
  if (!err && (!S_ISREG(sb.st_mode) || sb.st_uid != t->st.euid)) err = -EPERM;
  if (!err) err = read_fd(fd, (size_t)1 << 34, &data, &len);
  if (fd >= 0) close(fd);
  if (err) {
    errno_msg(err, "cannot read the samples '%s' of pid %d", t->out, t->pid);
    return 1;
  }
  ofd = strcmp(out, "-") ? open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                                0644) : 1;
  err = ofd < 0 ? -errno : write_all(ofd, data, len);
  if (ofd > 1 && close(ofd) && !err) err = -errno;
  if (err) {
    errno_msg(err, "cannot write '%s'", out);
    free(data);
    return 1;
  }
  for (i = 0; i < len; i++)
    lines += (i == 0 || data[i - 1] == '\n') && data[i] != '#';
  unlinkat(t->tmpfd, t->out + 5, 0);
  if (strcmp(out, "-"))
    fprintf(stderr, "jvmtool agent-install: %zu lines to '%s'\n", lines, out);
  free(data);
  return 0;
}

/* Quote a word for a POSIX shell when it needs it. */
static void shell_word(struct buf *b, const char *s)
{
  const char *p;

  if (*s && !s[strcspn(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~")]) {
    buf_adds(b, s);
    return;
  }
  buf_addc(b, '\'');
  for (p = s; *p; p++)
    buf_adds(b, *p == '\'' ? "'\\''" : (char[]){*p, 0});
  buf_addc(b, '\'');
}

/* --extract: the agent as a file, and the java option that loads it. */
static int extract(const char *path, struct args *a)
{
  struct buf opts = {0}, line = {0};
  char *abs, *absout = NULL;
  int fd, err, rc;

  if ((rc = agent_options(a, 0, &opts))) {
    buf_free(&opts);
    return rc;
  }
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  err = fd < 0 ? -errno : write_all(fd, jt_agent_so,
                                    (size_t)jt_agent_so_size);
  if (fd >= 0 && close(fd) && !err) err = -errno;
  if (err || !(abs = realpath(path, NULL))) {
    errno_msg(err ? err : -errno, "cannot write '%s'", path);
    buf_free(&opts);
    return 1;
  }
  if (a->val[OPT_output]) {
    absout = a->val[OPT_output][0] == '/' ? xstrdup(a->val[OPT_output])
      : xasprintf("%s/%s", getcwd((char[PATH_MAX]){0}, PATH_MAX),
                  a->val[OPT_output]);
    if (add_pair(&opts, "output.file", absout)) rc = 2;
  }
  if (rc) {
    free(abs);
    free(absout);
    buf_free(&opts);
    return rc;
  }
  buf_adds(&line, "-agentpath:");
  buf_adds(&line, abs);
  if (opts.len) {
    buf_addc(&line, '=');
    buf_adds(&line, opts.p);
  }
  buf_adds(&opts, "");
  fputs("java ", stdout);
  {
    struct buf q = {0};

    shell_word(&q, line.p);
    puts(q.p);
    buf_free(&q);
  }
  free(abs);
  free(absout);
  buf_free(&opts);
  buf_free(&line);
  return 0;
}

/* --agent: any other agent; copied into the target when it cannot see it. */
static int other_agent(struct target *t, const char *path, const char *args,
                       int timeout)
{
  int jar = strlen(path) > 4 && !strcmp(path + strlen(path) - 4, ".jar");
  char *abs = realpath(path, NULL), *data, *name, *opts, *lib;
  size_t len;
  int err, rc = 0;

  if (!abs) {
    perror_msg("cannot find '%s'", path);
    return 1;
  }
  lib = abs;
  if (!same_mount_ns(t->pid)) {
    if ((err = read_file(AT_FDCWD, abs, 0, (size_t)1 << 30, &data, &len))) {
      errno_msg(err, "cannot read '%s'", abs);
      free(abs);
      return 1;
    }
    name = xasprintf("jvmtool-%016llx-%s",
                     (unsigned long long)fnv1a((unsigned char *)data, len),
                     strrchr(abs, '/') + 1);
    err = put_file(t, name, data, len);
    free(data);
    lib = xasprintf("/tmp/%s", name);
    free(name);
    if (err) {
      free(lib);
      free(abs);
      return 1;
    }
  }
  opts = jar ? xasprintf("%s%s%s", lib, args ? "=" : "", args ? args : "")
             : xstrdup(args ? args : "");
  if (load(t, jar ? "instrument" : lib, !jar, opts, &rc, timeout)) rc = -1;
  else if (rc) error_msg("pid %d: agent '%s' returned %d", t->pid, path, rc);
  else verbose_msg("pid %d: loaded '%s'", t->pid, lib);
  if (lib != abs) free(lib);
  free(abs);
  free(opts);
  return rc != 0;
}

/* Is our agent mapped into the target? (--stop and --status must not load
 * a fresh copy just to ask it.) */
static int agent_loaded(struct target *t)
{
  char path[64], *maps;
  size_t len;
  int found;

  snprintf(path, sizeof(path), "/proc/%d/maps", t->pid);
  if (read_file(AT_FDCWD, path, 0, (size_t)64 << 20, &maps, &len)) return 0;
  found = strstr(maps, t->agent) != NULL;
  free(maps);
  return found;
}

static int stop_and_collect(struct target *t, const char *out, int timeout)
{
  int rc;

  if (!agent_loaded(t)) {
    error_msg("pid %d: no sampler is running (the agent is not loaded)", t->pid);
    return 1;
  }
  if (load(t, t->agent, 1, "stop", &rc, timeout)) return 1;
  if (rc) {
    explain(t, rc);
    return 1;
  }
  return collect(t, out);
}

static int status(struct target *t, int timeout)
{
  struct stat sb;
  int rc;

  if (!agent_loaded(t) || load(t, t->agent, 1, "status", &rc, timeout) ||
      rc != AGENT_OK) {
    printf("pid %d: not sampling\n", t->pid);
    return 1;
  }
  if (fstatat(t->tmpfd, t->out + 5, &sb, AT_SYMLINK_NOFOLLOW)) sb.st_size = 0;
  printf("pid %d: sampling into %s (%lld bytes so far)\n", t->pid, t->out,
         (long long)sb.st_size);
  return 0;
}

/* Load the sampler; with a duration, wait (until the JVM ends or we are
 * interrupted), stop it and collect the samples. */
static int sample(struct target *t, struct buf *opts, long long secs,
                  const char *out, int timeout)
{
  uint64_t end;
  int rc;

  add_pair(opts, "output.file", t->out);
  if (put_file(t, t->agent + 5, jt_agent_so,
               (size_t)jt_agent_so_size))
    return 1;
  verbose_msg("pid %d: load %s=%s", t->pid, t->agent, opts->p);
  rc = load(t, t->agent, 1, opts->p, &rc, timeout) ? -1 : rc;
  if (rc) {
    if (rc > 0) explain(t, rc);
    return 1;
  }
  if (!secs) {
    fprintf(stderr, "jvmtool agent-install: pid %d: sampling into %s; "
            "'jvmtool agent-install %d --stop -o FILE' collects it\n",
            t->pid, t->out, t->pid);
    return 0;
  }
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  end = now_ms() + (uint64_t)secs * 1000;
  while (!interrupted && now_ms() < end && proc_alive(t->pid))
    nanosleep(&(struct timespec){0, 100000000}, NULL);
  if (!proc_alive(t->pid)) {
    /* The agent completed the file at VM death; the fd on the target's
     * /tmp outlives the process. */
    fprintf(stderr, "jvmtool agent-install: pid %d ended while sampling\n",
            t->pid);
    return collect(t, out);
  }
  return stop_and_collect(t, out, timeout);
}

/* Everything after option parsing; a->argv is freed by the caller. */
static int install(struct args *a)
{
  struct target t;
  struct buf opts = {0};
  const char *out;
  long long timeout = 10, secs = 0;
  int rc;

  jt_verbose |= a->count[OPT_verbose] > 0;
  if (a->val[OPT_extract]) {
    if (a->argc) return usage_error("--extract takes no pid");
    return extract(a->val[OPT_extract], a);
  }
  if (a->argc != 1) return usage_error("expected one pid");
  if (a->count[OPT_stop] + a->count[OPT_status] + !!a->val[OPT_agent] > 1)
    return usage_error("--stop, --status and --agent exclude each other");
  if (a->val[OPT_agent_args] && !a->val[OPT_agent])
    return usage_error("--agent-args needs --agent");
  if ((a->val[OPT_timeout] &&
       number("timeout", a->val[OPT_timeout], 1, 3600, &timeout)) ||
      (a->val[OPT_duration] &&
       number("duration", a->val[OPT_duration], 1, 86400 * 365, &secs)))
    return 2;
  if (!a->val[OPT_agent] && !a->count[OPT_stop] && !a->count[OPT_status] &&
      (rc = agent_options(a, 1, &opts))) {
    buf_free(&opts);
    return rc;
  }
  out = a->val[OPT_output] ? a->val[OPT_output] : "stacks.txt";
  if ((rc = open_target(&t, a->argv[0]))) {
    buf_free(&opts);
    return rc;
  }
  if (a->val[OPT_agent])
    rc = other_agent(&t, a->val[OPT_agent], a->val[OPT_agent_args],
                     (int)timeout);
  else if (a->count[OPT_stop])
    rc = stop_and_collect(&t, out, (int)timeout);
  else if (a->count[OPT_status])
    rc = status(&t, (int)timeout);
  else
    rc = sample(&t, &opts, secs, out, (int)timeout);
  buf_free(&opts);
  close(t.tmpfd);
  return rc;
}

int agent_install_main(int argc, char **argv)
{
  struct args a;
  int rc = opt_parse(opt_rows, opt_usage, 0, argc, argv, &a);

  if (rc >= 0) return rc;
  rc = install(&a);
  return rc;
}
