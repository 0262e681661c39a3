/* fold.c - unit tests of core/fold at its seam: lines in, sorted totals
 * out (docs/flame.md §1-§3), with the options collapse hands it. */
#include "core/jvmtool.h"
#include "core/fold.h"
#include "check.h"

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

int main(void)
{
  test_sampler();
  test_lifetime_and_reverse();
  test_add();
  return check_failures != 0;
}
