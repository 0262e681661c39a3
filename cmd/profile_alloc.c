/* profile_alloc.c - profile's jvmti sampler (profile.h)
 *
 * JFR samples allocations only where a thread refills its TLAB, so the
 * allocation that happens to overflow one takes the sample: a periodic
 * pattern (two sizes alternating) reads 1:1 whatever the byte split, and
 * JDK 17's G1 region ends pick by object count (docs/jfr.md §13). JVMTI's
 * sampler places its sample points at random byte offsets (exponentially
 * spaced, 512 KiB apart on average), so an object is sampled with
 * probability by its size; the agent weighs each sample by the bytes it
 * stands for. This drives our agent for profile: start, stop, take.
 */
#include "core/jvmtool.h"
#include "core/root.h"
#include "agent/config.h"
#include "agent/protocol.h"
#include "cmd/profile.h"
#include "cmd/cmd.h"
#include "core/jvm.h"

int palloc_start(struct palloc *pa, const struct jvm *j, int lines,
                 int timeout_ms, char *why, size_t n)
{
  char opts[CONFIG_PATH_MAX + 512], err[256];
  struct config c;
  const char *v = lines ? "stack.trace.verbosity=methodClassLineNumber" : "";
  const unsigned char *image;
  size_t image_len;
  int reused, rc;

  memset(pa, 0, sizeof(*pa));
  pa->timeout_ms = timeout_ms;
  pa->t = j;
  agent_samples_name(pa->t, pa->samples, sizeof(pa->samples));
  config_defaults(&c);
  snprintf(c.output, sizeof(c.output), "%s", pa->samples);
  if (config_apply(&c, v, strlen(v), ',', 0, err, sizeof(err), NULL, NULL) ||
      config_format(&c, opts, sizeof(opts)) < 0) {
    snprintf(why, n, "agent options: %s", err);
    return -1;
  }
  if (agent_image(&image, &image_len, why, n) ||
      agent_start(pa->t, image, image_len, opts, timeout_ms, pa->lib,
                  sizeof(pa->lib), &reused, &rc, why, n)) {
    return -1;
  }
  if (rc) {
    snprintf(why, n, "the agent refused (code %d: %s)", rc,
             rc == AGENT_OLD      ? "JDK 11 or later is needed"
             : rc == AGENT_TAKEN  ? "another agent owns allocation sampling"
             : rc == AGENT_OUTPUT ? "it cannot create a file in /tmp"
                                  : "see the JVM's stderr");
    return -1;
  }
  pa->open = 1;
  verbose_msg("pid %d: sampling with %s%s into %s", j->pid, pa->lib,
              reused ? " (loaded before)" : "", pa->samples);
  return 0;
}

/* Fold the complete lines of fd's first size bytes into f and counts
 * (NULL: none; a target may still write to it: what grew after the open
 * is not read). */
static int fold_upto(struct fold *f, struct fold *counts, int fd, off_t size)
{
  static char b[1 << 16];
  size_t have = 0;
  ssize_t r;

  while (size > 0) {
    char *p = b, *nl, *end;

    r = read(fd, b + have,
             (size_t)size < sizeof(b) - have ? (size_t)size : sizeof(b) - have);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return r < 0 ? -errno : 0; /* shrank: what there is */
    size -= r;
    end = b + have + r;
    while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
      fold_line(f, p, (size_t)(nl - p));
      if (counts) fold_line(counts, p, (size_t)(nl - p));
      p = nl + 1;
    }
    have = (size_t)(end - p);
    if (have == sizeof(b)) have = 0; /* no agent line is that long */
    memmove(b, p, have);
  }
  return 0;
}

/* Take the samples file: checked, removed by inode, folded. */
static int take(struct palloc *pa, struct fold *f, struct fold *counts)
{
  struct stat sb;
  int fd, rc;

  if ((rc = agent_samples_open(pa->t, pa->samples, 1, &fd, &sb))) {
    error_msg("pid %d: cannot take its '%s': %s", pa->t->pid, pa->samples,
              root_check_msg(rc, S_IFREG));
    return 1;
  }
  if ((rc = fold_upto(f, counts, fd, sb.st_size)))
    errno_msg(rc, "pid %d: cannot read its samples", pa->t->pid);
  close(fd);
  return rc != 0;
}

int palloc_collect(struct palloc *pa, struct fold *f, struct fold *counts)
{
  char why[512];
  int rc = 0, code;

  if (agent_load(pa->t, pa->lib, 1, AGENT_WORD_STOP, &code, pa->timeout_ms, why,
                 sizeof(why))) {
    error_msg("%s", why);
    rc = 1;
  } else if (code) {
    error_msg("pid %d: the agent did not stop (code %d)", pa->t->pid, code);
    rc = 1;
  }
  rc = rc ? rc : take(pa, f, counts);
  if (rc) palloc_abort(pa);
  pa->open = 0;
  return rc;
}

void palloc_abort(struct palloc *pa)
{
  const char *name = pa->samples + 5;
  char why[256];
  struct stat sb;
  int code;

  if (!pa->open) return;
  if (jvm_alive(pa->t))
    agent_load(pa->t, pa->lib, 1, AGENT_WORD_STOP, &code, pa->timeout_ms, why,
               sizeof(why));
  else
    agent_drop(pa->t, pa->lib); /* nothing maps it any more */
  if (!fstatat(pa->t->tmpfd, name, &sb, AT_SYMLINK_NOFOLLOW) &&
      S_ISREG(sb.st_mode))
    root_unlink(&pa->t->root, pa->t->tmpfd, name, &sb, 0);
  pa->open = 0;
}
