/* fold.c - unit tests of core/fold at its seam: lines in, sorted totals
 * out (docs/flame.md §1-§3), with the options collapse hands it. */
#include "core/jvmtool.h"
#include "core/fold.h"
#include "check.h"

#include <sys/wait.h>

/* The scans as the build has them (SSE2 on x86-64, NEON on aarch64), and
 * the portable ones under other names, to compare them. */
#include "core/foldvec.h"
#undef FOLDVEC_H
#undef FV_SSE2
#undef FV_NEON
#undef FV_PORTABLE
#undef FV_NAME
#define JT_PORTABLE 1
#define FV_NAME(x) port_##x
#include "core/foldvec.h"

/* On x86-64 the AVX2 path too, called (by functions built for it) only
 * where the CPU has it. */
#if defined(__x86_64__) && defined(__SSE2__)
#undef FOLDVEC_H
#undef FV_PORTABLE
#undef JT_PORTABLE
#undef FV_NAME
#define FV_AVX2 1
#define FV_NAME(x) avx2_##x
#include "core/foldvec.h"
#endif
#ifdef FV_AVX2
static FV_TARGET uint64_t avx2_nl64(const char *p)
{
  return avx2_fv_nl64(p);
}
static FV_TARGET size_t avx2_find_nl(const char *p, size_t n)
{
  return avx2_fv_find_nl(p, n);
}
static FV_TARGET size_t avx2_find(const char *p, size_t n, char c)
{
  return avx2_fv_find(p, n, c);
}
static FV_TARGET int avx2_same(const char *a, const char *b, size_t n)
{
  return avx2_fv_same(a, b, n);
}
static FV_TARGET uint64_t avx2_hash(const char *s, size_t n, int64_t ctx)
{
  return avx2_fv_hash(s, n, ctx);
}
#endif

/* The sampler's lines of a small run: recursion to squash, a bad line, a
 * frame a filter finds. */
static const char *const sampler[] = {
    "main;run;run;run;alloc;byte[] 100",
    "main;run;alloc;byte[] 50",
    "main;idle;char[] 7",
    "bad line without value",
    "main;Proto.encode;byte[] 3",
};

/* Fold the lines with o; the result as "key value\n" text in out. */
static const struct fold_stats *fold_all(const struct fold_opts *o,
                                         const char *const *lines, int n,
                                         char *out, size_t size,
                                         struct fold **fp)
{
  struct fold *f = fold_new(o);
  const struct fold_stack *st;
  size_t k, used = 0;

  for (int i = 0; i < n; i++) fold_line(f, lines[i], strlen(lines[i]));
  k = fold_result(f, &st);
  out[0] = 0;
  for (size_t i = 0; i < k && used < size; i++)
    used += (size_t)snprintf(out + used, size - used, "%.*s %lld\n",
                             (int)st[i].len, st[i].key, (long long)st[i].value);
  *fp = f;
  return fold_stats(f);
}

static void test_sampler(void)
{
  struct fold_opts o = {.gc_lo = -1, .gc_hi = -1};
  const char *filters[] = {"proto"};
  const struct fold_stats *s;
  struct fold *f;
  char out[1024];

  s = fold_all(&o, sampler, 5, out, sizeof(out), &f);
  CHECK_STR(out,
            "main;Proto.encode;byte[] 3\n"
            "main;idle;char[] 7\n"
            "main;run;alloc;byte[] 150\n",
            "fold-1.1 sizes summed, direct recursion squashed, sorted");
  CHECK(s->bad == 1 && s->nfirst_bad == 1 && s->lines >= 5,
        "fold-1.2 the bad line counted and kept for the report");
  fold_free(f);

  o.samples = 1;
  fold_all(&o, sampler, 5, out, sizeof(out), &f);
  CHECK_STR(out,
            "main;Proto.encode;byte[] 1\n"
            "main;idle;char[] 1\n"
            "main;run;alloc;byte[] 2\n",
            "fold-1.3 --samples: lines counted, not sizes");
  fold_free(f);

  o.samples = 0;
  o.no_squash = 1;
  fold_all(&o, sampler, 5, out, sizeof(out), &f);
  CHECK(strstr(out, "main;run;run;run;alloc;byte[] 100\n") &&
            strstr(out, "main;run;alloc;byte[] 50\n"),
        "fold-1.4 --no-squash keeps the recursion apart");
  fold_free(f);

  o.no_squash = 0;
  o.filters = filters;
  o.nfilters = 1;
  fold_all(&o, sampler, 5, out, sizeof(out), &f);
  CHECK_STR(out, "Proto.encode;byte[] 3\n",
            "fold-1.5 a filter (any case) cuts before its frame, drops the "
            "rest");
  CHECK_INT(fold_stats(f)->skipped, 3, "fold-1.6 the dropped samples counted");
  fold_free(f);

  o.keep_unmatched = 1;
  fold_all(&o, sampler, 5, out, sizeof(out), &f);
  CHECK_STR(out,
            "Proto.encode;byte[] 3\n"
            "main;idle;char[] 7\n"
            "main;run;alloc;byte[] 150\n",
            "fold-1.7 --keep-unmatched keeps the other stacks whole");
  fold_free(f);

  o = (struct fold_opts){.gc_lo = -1, .gc_hi = -1, .type_frames = 1};
  fold_all(&o, sampler + 2, 1, out, sizeof(out), &f);
  CHECK_STR(out, "main;idle;char[]_[i] 7\n",
            "fold-1.8 --type-frames marks the allocated type");
  fold_free(f);
}

static void test_lifetime_and_reverse(void)
{
  static const char *const lifetime[] = {
      "#GC 1",          "main;a;int[] 4", "#GC 2",
      "main;b;int[] 8", "#GC 3",          "main;a;int[] 16",
  };
  struct fold_opts o = {.gc_lo = 2, .gc_hi = 3};
  const struct fold_stack *st;
  struct fold_stack *rev;
  struct buf arena = {0};
  struct fold *f;
  char out[512];
  size_t n;

  fold_all(&o, lifetime, 6, out, sizeof(out), &f);
  CHECK_STR(out, "main;a;int[] 16\nmain;b;int[] 8\n",
            "fold-2.1 --gc 2-3: only those sections");
  fold_free(f);

  o = (struct fold_opts){.gc_lo = -1, .gc_hi = -1, .gc_frames = 1};
  fold_all(&o, lifetime, 6, out, sizeof(out), &f);
  CHECK_STR(out,
            "GC 1;main;a;int[] 4\nGC 2;main;b;int[] 8\nGC 3;main;a;int[] 16\n",
            "fold-2.2 --gc-frames: a root frame per section");
  fold_free(f);

  o = (struct fold_opts){.gc_lo = -1, .gc_hi = -1};
  fold_all(&o, sampler, 5, out, sizeof(out), &f);
  n = fold_result(f, &st);
  rev = fold_reverse(st, &n, &arena);
  CHECK(n == 3 && rev[0].len == strlen("byte[];Proto.encode;main") &&
            !memcmp(rev[0].key, "byte[];Proto.encode;main", rev[0].len) &&
            rev[1].value == 150 && !memcmp(rev[2].key, "char[]", 6),
        "fold-2.3 reversed: leaf first, re-sorted, values kept");
  free(rev);
  buf_free(&arena);
  fold_free(f);
}

/* Equal stacks from two spellings of one input merge; fold_add (the JFR
 * reader's door) and fold_line meet in one table. */
static void test_add(void)
{
  struct fold_opts o = {.gc_lo = -1, .gc_hi = -1};
  struct fold *f = fold_new(&o);
  const struct fold_stack *st;
  size_t n;

  fold_add(f, "a;b", 3, 5, 0);
  fold_line(f, "a;b 7", 5);
  fold_add(f, "a;b;b", 5, 1, 0);
  n = fold_result(f, &st);
  CHECK(n == 1 && st[0].value == 13,
        "fold-3.1 fold_add and fold_line share one table; recursion squashed");
  fold_free(f);
}

/* The vector scans and the portable ones give the same answers at every
 * length and alignment, on the bytes they look for and their neighbours. */
/* A stack's hash in a new run of this program, once it has folded
 * (fv_seed): main's "hash" argument. */
static uint64_t hash_in_run(void)
{
  char self[4096], cmd[4200];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  unsigned long long h = 0;
  FILE *p;

  if (n <= 0) return 0;
  self[n] = 0;
  snprintf(cmd, sizeof(cmd), "'%s' hash", self);
  if (!(p = popen(cmd, "r"))) return 0;
  if (fscanf(p, "%llx", &h) != 1) h = 0;
  pclose(p);
  return h;
}

static int print_hash(void)
{
  struct fold_opts o = {0};
  struct fold *f = fold_new(&o);

  printf("%llx\n",
         (unsigned long long)fv_hash("java.lang.Thread.run;Main.main", 30, 0));
  fold_free(f);
  return 0;
}

/* NH's keys are drawn for each run: no file can be made whose stacks
 * collide in every run's table */
static void test_seed(void)
{
  uint64_t a = hash_in_run(), b = hash_in_run(), c = hash_in_run();

  CHECK(a && b && c && (a != b || b != c),
        "fold-4.6 fv_seed: three runs hash a stack three ways (%llx %llx %llx)",
        (unsigned long long)a, (unsigned long long)b, (unsigned long long)c);
}

static void test_scans(void)
{
  static const char pick[] = "\n\0 ;a\xff\x80\x0a\x0b\x09";
  char a[720], b[720];
  int eq16 = 1, eol = 1, same = 1, hash = 1, spread = 1;
  int avx2_eol = 1, avx2_ok = 1;

  fv_seed(); /* and fv_avx2 */
  uint64_t x = 88172645463325252ULL;

  for (int round = 0; round < 2000; round++) {
    for (size_t i = 0; i < sizeof(a); i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      a[i] = pick[x % (sizeof(pick) - 1)];
    }
    memcpy(b, a, sizeof(b));
    for (size_t off = 0; off < 8; off++) {
      eq16 &= fv_eq16(a + off, '\n') == port_fv_eq16(a + off, '\n') &&
              fv_eq16(a + off, ';') == port_fv_eq16(a + off, ';') &&
              fv_eq16(a + off, (char)0xff) == port_fv_eq16(a + off, (char)0xff);
      eol &= fv_nl64(a + off) == port_fv_nl64(a + off);
      for (size_t n = 0; n < 150; n += 7)
        eol &= fv_find_nl(a + off, n) == port_fv_find_nl(a + off, n) &&
               fv_find(a + off, n, 0) == port_fv_find(a + off, n, 0) &&
               fv_find(a + off, n, ';') == port_fv_find(a + off, n, ';');
#ifdef FV_AVX2
      if (fv_avx2) {
        avx2_eol &= avx2_nl64(a + off) == port_fv_nl64(a + off);
        for (size_t n = 0; n < 150; n += 7)
          avx2_eol &= avx2_find_nl(a + off, n) == port_fv_find_nl(a + off, n) &&
                      avx2_find(a + off, n, 0) == port_fv_find(a + off, n, 0);
      }
#endif
    }
    for (size_t n = 0; n < 660; n += n < 140 ? 1 : n < 300 ? 3 : 11) {
      size_t at = (size_t)(x >> 20) % (n + 1), off = round % 7;

      same &= fv_same(a + off, b + off, n) == 1 &&
              port_fv_same(a + off, b + off, n) == 1;
      hash &=
          fv_hash(a + off, n, round % 3) == port_fv_hash(a + off, n, round % 3);
#ifdef FV_AVX2
      if (fv_avx2)
        avx2_ok &= avx2_same(a + off, b + off, n) == 1 &&
                   avx2_hash(a + off, n, round % 3) ==
                       port_fv_hash(a + off, n, round % 3);
#endif
      if (at < n) {
        b[off + at] ^= (char)(1 << (round % 8));
        same &= fv_same(a + off, b + off, n) == 0 &&
                port_fv_same(a + off, b + off, n) == 0;
        if (n >= 16)
          eq16 &= fv_ne16(a + off + n - 16, b + off + n - 16) ==
                      port_fv_ne16(a + off + n - 16, b + off + n - 16) &&
                  fv_ne16(a + off, b + off) == port_fv_ne16(a + off, b + off);
#ifdef FV_AVX2
        if (fv_avx2) avx2_ok &= avx2_same(a + off, b + off, n) == 0;
#endif
        /* one bit changes the hash (a chance of 2^-32 that it does not:
         * none for these bytes, found once) */
        spread &= fv_hash(a + off, n, 0) != fv_hash(b + off, n, 0);
        b[off + at] = a[off + at];
      }
    }
  }
  CHECK(eq16, "fold-4.1 fv_eq16, fv_ne16: the vector mask is the portable one");
  CHECK(eol, "fold-4.2 fv_nl64, fv_find_nl, fv_find: vector = portable");
  CHECK(same, "fold-4.3 fv_same: equal and one bit apart at every length "
              "and place, vector and portable");
  CHECK(hash, "fold-4.4 fv_hash: the vector hash is the portable one at "
              "every length");
  CHECK(spread, "fold-4.5 fv_hash: one bit changed anywhere, at every "
                "length, changes the hash");
#ifdef FV_AVX2
  if (!fv_avx2) {
    printf("# fold-4.7, fold-4.8: AVX2 path off (no AVX2, or JT_NO_AVX2)\n");
  } else {
    CHECK(avx2_eol, "fold-4.7 fv_nl64, fv_find_nl, fv_find: AVX2 = portable");
    CHECK(avx2_ok, "fold-4.8 fv_same, fv_hash: AVX2 = portable at every "
                   "length and place");
  }
#endif
  test_seed();
}

/* Lines of every kind a sampler file may hold, at random: stacks that
 * repeat (some long, across the 64-byte blocks the scan reads), recursion,
 * comments, "#GC <n>", CRLF, blank, bad lines (no value, a NUL, a word),
 * a stack that folds to nothing; stacks of every length up to 70 bytes
 * (the hash and the compare take 16-byte blocks); values of 1 to 20
 * digits, signed or with leading zeros (a line's last eight bytes are
 * read at once). */
static void random_lines(struct buf *b, size_t size, uint64_t seed)
{
  static const char *const bad[] = {"novalue", "a;b x",
                                    "a;b 1.5", "a;b  -7",
                                    "; 3",     "x;y 99999999999999999999",
                                    "x;y  12", "com.example.Fx.m1;byte   7"};
  uint64_t x = seed;

  while (b->len < size) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    switch (x % 16) {
    case 0:
      buf_adds(b, bad[(x >> 8) % 8]);
      break;
    case 1:
      buf_printf(b, "#GC %u", (unsigned)(x >> 9) % 5);
      break;
    case 2:
      buf_add(b, "a;b\0c 4", 8);
      break;
    case 3:
      buf_adds(b, "\r");
      break;
    default: {
      unsigned k = (unsigned)(x >> 12) % 300, d = k % 9 == 0 ? 90 : k % 7 + 1;

      buf_adds(b, "main");
      if (k % 4 == 1) /* short stacks: 5 to 70 bytes, every length */
        for (unsigned j = 0; j < k % 67; j++) buf_addc(b, "ab;"[j % 3]);
      else
        for (unsigned j = 0; j < d; j++)
          buf_printf(b, ";com.example.F%u.m%u", (k * 31 + j * 7) % 23, j % 3);
      if (k % 5 == 0) buf_adds(b, ";rec;rec;rec");
      buf_printf(b, ";%s ", k % 2 ? "byte" : "java/lang/String");
      if (k % 6 == 3) { /* 1 to 20 digits, a sign, leading zeros */
        buf_adds(b, (x >> 50) % 4 == 0 ? "+" : (x >> 50) % 4 == 1 ? "00" : "");
        for (unsigned j = 0; j <= (x >> 20) % 20; j++)
          buf_addc(b, (char)('0' + (x >> (j % 60)) % 10));
      } else {
        buf_printf(b, "%d", (int)((x >> 40) % 5000) - (k % 11 == 0 ? 2500 : 0));
      }
      if (k % 13 == 0) buf_addc(b, '\r');
    }
    }
    buf_addc(b, '\n');
  }
}

/* The result and counts of a fold as text. */
static void describe(struct fold *f, struct buf *out)
{
  const struct fold_stack *st;
  const struct fold_stats *s;
  size_t n = fold_result(f, &st);

  out->len = 0;
  buf_add(out, "", 0);
  for (size_t i = 0; i < n; i++)
    buf_printf(out, "%.*s %lld\n", (int)st[i].len, st[i].key,
               (long long)st[i].value);
  s = fold_stats(f);
  buf_printf(out, "lines %llu samples %llu bad %llu skipped %llu\n",
             (unsigned long long)s->lines, (unsigned long long)s->samples,
             (unsigned long long)s->bad, (unsigned long long)s->skipped);
  for (int i = 0; i < s->nfirst_bad; i++)
    buf_printf(out, "%s\n", s->first_bad[i]);
}

/* A file folded by fold_fd (batched look-ups; over 4 MiB: pieces, two
 * threads) and through a pipe (read in blocks, one thread) gives what
 * fold_line gives line by line: the same totals, counts and bad lines.
 * Checks fold-S.*: S is 5 on the path this CPU takes, 6 on the SSE2 path
 * forced on a CPU that has AVX2 (which a release binary would take on a
 * CPU without it). */
static void test_fd(int s)
{
  const char *filters[] = {"F3.M1"};
  struct fold_opts opts[4] = {
      {.gc_lo = -1, .gc_hi = -1},
      {.gc_lo = -1,
       .gc_hi = -1,
       .samples = 1,
       .filters = filters,
       .nfilters = 1},
      {.gc_lo = -1,
       .gc_hi = -1,
       .no_squash = 1,
       .type_frames = 1,
       .normalize = 1},
      {.gc_lo = 1, .gc_hi = 3},
  };
  struct buf in = {0}, want = {0}, file = {0}, pipe_out = {0};
  char path[] = "/tmp/fold-unit-XXXXXX";
  int fd = mkstemp(path), ok_file = 1, ok_pipe = 1;

  random_lines(&in, 5 << 20, 0x9e3779b97f4a7c15ULL);
  CHECK(fd >= 0 && write(fd, in.p, in.len) == (ssize_t)in.len,
        "fold-%d.1 a 5 MiB file of random sampler lines written%s", s,
        s == 6 ? " (the SSE2 path on an AVX2 CPU)" : "");
  for (int k = 0; k < 4; k++) {
    struct fold *f = fold_new(&opts[k]);
    int p[2];
    pid_t pid;

    for (size_t at = 0; at < in.len;) {
      const char *nl = memchr(in.p + at, '\n', in.len - at);

      fold_line(f, in.p + at, (size_t)(nl - in.p) - at);
      at = (size_t)(nl - in.p) + 1;
    }
    describe(f, &want);
    fold_free(f);

    f = fold_new(&opts[k]);
    lseek(fd, 0, SEEK_SET);
    fold_fd(f, fd, "-");
    describe(f, &file);
    fold_free(f);
    ok_file &= file.len == want.len && !memcmp(file.p, want.p, want.len);

    f = fold_new(&opts[k]);
    if (pipe(p)) break;
    if (!(pid = fork())) {
      close(p[0]);
      for (size_t at = 0; at < in.len;) {
        ssize_t w = write(p[1], in.p + at, in.len - at);

        if (w <= 0) _exit(1);
        at += (size_t)w;
      }
      _exit(0);
    }
    close(p[1]);
    fold_fd(f, p[0], "-");
    close(p[0]);
    waitpid(pid, NULL, 0);
    describe(f, &pipe_out);
    fold_free(f);
    ok_pipe &=
        pipe_out.len == want.len && !memcmp(pipe_out.p, want.p, want.len);
  }
  CHECK(ok_file,
        "fold-%d.2 a file in pieces: totals, counts, bad lines as "
        "line by line (4 sets of options)",
        s);
  CHECK(ok_pipe, "fold-%d.3 a pipe: the same", s);
  CHECK(strstr(want.p, ":") && strstr(want.p, "bad 0") == NULL,
        "fold-%d.4 the input had bad lines to number", s);
  /* a look-up waits in a batch: its report keeps its own line number */
  if (fd >= 0 && !ftruncate(fd, 0) && !lseek(fd, 0, SEEK_SET) &&
      write(fd, "a 1\n; 2\nb 3\nc 4\n", 16) == 16) {
    struct fold *f = fold_new(&opts[0]);

    lseek(fd, 0, SEEK_SET);
    fold_fd(f, fd, "-");
    describe(f, &file);
    fold_free(f);
    CHECK_STR(file.p,
              "a 1\nb 3\nc 4\nlines 4 samples 3 bad 1 skipped 0\n"
              "-:2: empty stack\n",
              "fold-%d.5 a stack that folds to nothing, reported at its line",
              s);
  }
  if (fd >= 0) close(fd);
  unlink(path);
  buf_free(&in), buf_free(&want), buf_free(&file), buf_free(&pipe_out);
}

int main(int argc, char **argv)
{
  if (argc > 1 && !strcmp(argv[1], "hash")) return print_hash();
  test_sampler();
  test_lifetime_and_reverse();
  test_add();
  test_scans();
  test_fd(5);
  if (fv_avx2) { /* the CPU has it: the SSE2 path too */
    fv_avx2 = 0;
    test_fd(6);
    fv_avx2 = 1;
  } else {
    printf(
        "# fold-6.*: this CPU takes the SSE2 (or portable) path: fold-5.*\n");
  }
  return check_failures != 0;
}
