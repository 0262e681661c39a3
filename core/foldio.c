/* foldio.c - read the input of a fold: mapped windows, pipes, lines
 *
 * Input is mapped (a regular file) or read in large blocks, and cut into
 * lines sixteen bytes at a time; each line is folded where it lies
 * (core/fold.c). A large file is read in two halves by two threads, and a
 * file cut short while mapped (SIGBUS) ends the read with FOLD_SHRANK.
 */
/* The hot loops of folding: built for speed in a binary otherwise built
 * for size. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O2")
#endif
#include "core/jvmtool.h"
#include "core/fold_int.h"

#include <pthread.h>
#include <setjmp.h>
#include <sys/mman.h>

/* jstack dumps start with a date, "Full thread dump" or a thread header. */
static enum fold_format detect(const char *p, size_t n)
{
  const char *nl = memchr(p, '\n', n);
  size_t l = nl ? (size_t)(nl - p) : n;

  if ((l >= 16 && !memcmp(p, "Full thread dump", 16)) || (l && *p == '"') ||
      (l >= 5 && isdigit((unsigned char)p[0]) && p[4] == '-') ||
      memmem(p, n, "\nFull thread dump", 17))
    return FOLD_JSTACK;
  return FOLD_STACKS;
}

/* The offset of the first '\n' in p[0..n), or n; *nul: a NUL came first. */
static size_t line_end(const char *p, size_t n, int *nul)
{
  size_t i = 0;

  *nul = 0;
  for (; i + 16 <= n; i += 16)
    for (unsigned m = fv_eq16(p + i, '\n') | fv_eq16(p + i, 0); m; m &= m - 1) {
      size_t at = i + (size_t)__builtin_ctz(m);

      if (p[at] == '\n') return at;
      *nul = 1;
    }
  for (; i < n && p[i] != '\n'; i++) *nul |= !p[i];
  return i;
}

/* Fold the whole lines of p[0..n) that start before stop, and at the end
 * of input the rest too; returns how many bytes were taken. */
static size_t lines(struct fold *f, const char *p, size_t n, int eof,
                    size_t stop)
{
  size_t at = 0, e;
  int nul;

  if (f->fmt != FOLD_JSTACK) return fold_text_lines(f, p, n, eof, stop);
  while (at < n && at < stop) {
    e = at + line_end(p + at, n - at, &nul);
    if (e == n && !eof) break;
    fold_jstack_line(f, p + at, e - at, nul);
    at = e + (e < n);
  }
  return at;
}

enum {
  BLOCK = 1 << 18,
  LONGEST_LINE = 64 << 20,
  SPLIT = 4 << 20,     /* a file this large is read by two threads */
  PIECE_MIN = 1 << 20, /* in pieces of a sixteenth, at least this */
  WINDOW = 8 << 20,
  SLACK = 1 << 16 /* mapped past the end of a range, for its last line */
};

/* Where a thread folding a mapped window goes when the file shrinks
 * under it: reading a page past the new end raises SIGBUS. */
static __thread sigjmp_buf *volatile shrank;

static void on_sigbus(int sig)
{
  if (shrank) siglongjmp(*shrank, 1);
  signal(sig, SIG_DFL); /* not ours: fault again, and die of it */
}

/* Fold the lines of fd's bytes [base, base + len) mapped, from at (a
 * line start in them) to the last whole line, or to the last that starts
 * before stop. Returns how many bytes were taken, 0 when the mapping
 * failed, or -1 when the file shrank while it was read. */
static ssize_t fold_window(struct fold *f, int fd, off_t base, size_t len,
                           size_t at, size_t stop)
{
  char *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, base);
  sigjmp_buf jb;
  size_t took;

  if (m == MAP_FAILED) return 0;
  if (sigsetjmp(jb, 1)) {
    shrank = NULL;
    munmap(m, len);
    return -1;
  }
  shrank = &jb;
  if (f->fmt == FOLD_AUTO) /* on what a first read would see */
    f->fmt = detect(m + at, len - at < BLOCK ? len - at : BLOCK);
  took = lines(f, m + at, len - at, 0, stop);
  shrank = NULL;
  munmap(m, len);
  return (ssize_t)took;
}

/* Fold the lines of a regular file fd from pos (a line start) that start
 * before to (< 0: the end) where the file lies, a mapped window at a
 * time: no copy through read(). Stops before a line that runs past the
 * last window or is longer than one. Returns the offset of the first
 * line not folded, or -1 when the file shrank while it was read. */
static off_t fold_mapped(struct fold *f, int fd, off_t pos, off_t to)
{
  off_t page = sysconf(_SC_PAGESIZE), base, end, len;
  struct stat sb;
  ssize_t took = 1;

  if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) return pos;
  end = to >= 0 && to < sb.st_size ? to : sb.st_size;
  for (; pos < end && took > 0; pos += took) {
    base = pos - pos % page;
    /* to the end, or as far as lines that start before it may need */
    len = sb.st_size - base < WINDOW ? sb.st_size - base : WINDOW;
    if (end < sb.st_size && end - base + SLACK < len) len = end - base + SLACK;
    took = fold_window(f, fd, base, (size_t)len, (size_t)(pos - base),
                       (size_t)(end - pos));
    if (took < 0) return -1;
  }
  return pos;
}

/* Fold the lines of fd that start in [from, to) (from is a line start;
 * to < 0: the end), reading the last one to its end; from < 0 reads on
 * from where fd is. A regular file is mapped as far as that goes, the
 * rest read. Returns 0 or -errno, FOLD_SHRANK when the file shrank. */
static int fold_range(struct fold *f, int fd, off_t from, off_t to)
{
  size_t cap = BLOCK, have = 0, took, stop;
  off_t pos = from < 0 ? lseek(fd, 0, SEEK_CUR) : from; /* of b[0] */
  ssize_t r = 1;
  int rc = 0, skip = 0;
  char *b;

  if (pos >= 0 && (pos = fold_mapped(f, fd, pos, to)) < 0) return FOLD_SHRANK;
  if (to >= 0 && pos >= to) return 0;
  if (from < 0) { /* read on from there, as if all of it had been read */
    if (pos >= 0) lseek(fd, pos, SEEK_SET);
    pos = -1;
  }
  b = xmalloc(cap);
  while (r) {
    r = pos < 0 ? read(fd, b + have, cap - have)
                : pread(fd, b + have, cap - have, pos + (off_t)have);
    if (r < 0 && errno == EINTR) {
      r = 1;
      continue;
    }
    if (r < 0) {
      rc = -errno;
      break;
    }
    have += (size_t)r;
    if (f->fmt == FOLD_AUTO) {
      if (r && have <= 4096) continue;
      f->fmt = detect(b, have);
    }
    took = 0;
    if (skip) { /* the rest of a line too long to fold */
      char *nl = memchr(b, '\n', have);

      took = nl ? (size_t)(nl + 1 - b) : have;
      skip = !nl;
    }
    stop = to < 0                   ? SIZE_MAX
           : to > pos + (off_t)took ? (size_t)(to - pos) - took
                                    : 0;
    took += lines(f, b + took, have - took, !r, stop);
    if (to >= 0 && pos + (off_t)took >= to) break;
    memmove(b, b + took, have -= took);
    if (pos >= 0) pos += (off_t)took;
    if (have < cap) continue;
    if (cap < LONGEST_LINE) {
      b = xrealloc(b, cap *= 2);
    } else {
      f->lineno++, f->st.lines++;
      fold_bad(f, "line longer than 64 MiB");
      have = 0, skip = 1;
    }
  }
  free(b);
  return rc;
}

/* The first line start after at in fd, or -1. */
static off_t line_start(int fd, off_t at)
{
  char c[4096];
  ssize_t r;

  for (at--; (r = pread(fd, c, sizeof(c), at)) > 0; at += r) {
    char *nl = memchr(c, '\n', (size_t)r);

    if (nl) return at + (nl - c) + 1;
  }
  return -1;
}

/* A piece of a large file: the lines that start in [from, to), folded by
 * whichever thread takes it, with counts and bad lines of its own (its
 * line numbers from its first line) added in file order at the end. */
struct piece {
  off_t from, to;
  uint64_t lineno;
  struct fold_stats st;
  struct bad first_bad[5];
  int rc;
};

struct pieces {
  struct piece *p;
  size_t n;
  size_t next; /* the next piece to take (atomic) */
  int fd;
};

/* Take pieces until none is left, folding them into f. */
static void fold_pieces(struct fold *f, struct pieces *ps)
{
  size_t i;

  while ((i = __atomic_fetch_add(&ps->next, 1, __ATOMIC_RELAXED)) < ps->n) {
    struct piece *c = &ps->p[i];

    f->lineno = 0;
    memset(&f->st, 0, sizeof(f->st));
    c->rc = fold_range(f, ps->fd, c->from, c->to);
    c->lineno = f->lineno;
    c->st = f->st;
    memcpy(c->first_bad, f->first_bad, sizeof(c->first_bad));
  }
}

struct worker {
  struct fold *f;
  struct pieces *ps;
};

static void *fold_worker(void *arg)
{
  struct worker *w = arg;

  fold_pieces(w->f, w->ps);
  return NULL;
}

/* A large file of lines is cut at line starts into pieces that two
 * threads take in turn (so that a core busy elsewhere slows the run, not
 * one half of it), each folding into a fold of its own; the folds and
 * the pieces' counts are added to f at the end, in file order. The
 * "#GC <n>" section of a line is known only reading from the top, so
 * not with --gc or --gc-frames. Returns 1 when it did not split. */
static int fold_split(struct fold *f, int fd, int *rc)
{
  struct stat sb;
  off_t at = lseek(fd, 0, SEEK_CUR), size, step, next;
  struct pieces ps = {NULL, 0, 0, fd};
  struct worker w[2];
  char head[4096];
  ssize_t r;
  pthread_t t;
  size_t cap;
  int threads;

  if (at < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
      sb.st_size - at < SPLIT || f->o.gc_lo >= 0 || f->o.gc_frames)
    return 1;
  if (f->fmt == FOLD_AUTO) {
    if ((r = pread(fd, head, sizeof(head), at)) <= 0) return 1;
    f->fmt = detect(head, (size_t)r);
  }
  if (f->fmt == FOLD_JSTACK) return 1;
  size = sb.st_size - at;
  step = size / 16 < PIECE_MIN ? PIECE_MIN
         : size / 16 > WINDOW  ? WINDOW
                               : size / 16;
  cap = (size_t)(size / step) + 2;
  ps.p = xzalloc(cap * sizeof(*ps.p));
  for (off_t from = at; from >= 0 && from < sb.st_size; from = next) {
    next = from + step < sb.st_size ? line_start(fd, from + step) : -1;
    if (ps.n == cap) break; /* the file grew: the last piece reads on */
    ps.p[ps.n++] = (struct piece){.from = from, .to = next};
  }
  if (ps.n) ps.p[ps.n - 1].to = -1; /* and what the file holds by then */
  for (int i = 0; i < 2; i++) {
    w[i].f = fold_new(&f->o);
    w[i].f->fmt = f->fmt;
    w[i].f->name = f->name;
    w[i].ps = &ps;
  }
  threads = !pthread_create(&t, NULL, fold_worker, &w[1]);
  fold_pieces(w[0].f, &ps);
  if (threads) pthread_join(t, NULL);
  for (int i = 0; i < 2; i++) {
    fold_take(f, w[i].f);
    fold_free(w[i].f);
  }
  *rc = 0;
  for (size_t i = 0; i < ps.n; i++) {
    struct piece *c = &ps.p[i];

    fold_merge_stats(f, c->lineno, &c->st, c->first_bad);
    if (!*rc) *rc = c->rc;
  }
  free(ps.p);
  return 0;
}

int fold_fd(struct fold *f, int fd, const char *name)
{
  enum fold_format keep = f->fmt;
  int rc = 0;

  struct sigaction bus = {.sa_handler = on_sigbus}, was;

  f->name = name;
  f->lineno = 0;
  f->gc = -1;
  sigaction(SIGBUS, &bus, &was);
  if (fold_split(f, fd, &rc)) rc = fold_range(f, fd, -1, -1);
  sigaction(SIGBUS, &was, NULL);
  if (f->fmt == FOLD_JSTACK) fold_jstack_end(f);
  f->formats |= 1u << f->fmt;
  f->fmt = keep;
  return rc;
}
