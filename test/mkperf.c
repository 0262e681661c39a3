/* mkperf.c - write a PerfData 2.0 file for tests: the one PerfData writer
 * (test/unit/pdwriter_lib.c) as a command. test/run.sh builds it as
 * dist/unit/mkperf; tests call it as "$MKPERF" (see test/testing.sh).
 *
 *   mkperf [-b] [-j] [-n] [-s SIZE] FILE [ENTRY...]
 *
 *   -b       big-endian (default little-endian)
 *   -n       leave the accessible byte 0 (a JVM still starting)
 *   -j       start with a small realistic JVM's counters (pdw_sample_jvm)
 *   -s SIZE  the file's size (default: the bytes the entries use, plus 64)
 *   ENTRY    TYPE:UNITS:VAR[:LEN]:NAME=VALUE, TYPE J (a long; VALUE in C
 *            syntax) or B (a string counter holding VALUE's bytes, LEN
 *            bytes long, default VALUE's length plus a NUL). UNITS and VAR
 *            are the numbers of docs/jvmstat.md §1.4, e.g.
 *              J:6:1:sun.os.hrt.frequency=1000000000
 *              B:5:3:81:sun.gc.cause=No GC
 *
 * Entries are laid out in argument order as HotSpot lays them out; the
 * accessible byte is set unless -n. Exit 0, or 1 with a message on stderr.
 */
#include "core/jvmtool.h"
#include "pdwriter.h"

#define CAP (1 << 20)

static int usage(const char *why)
{
  fprintf(stderr,
          "mkperf: %s\nusage: mkperf [-b] [-j] [-n] [-s SIZE] FILE "
          "[TYPE:UNITS:VAR[:LEN]:NAME=VALUE...]\n",
          why);
  return 1;
}

/* Read a decimal field ending at ':' from *s; -1 when there is none. */
static long field(const char **s)
{
  char *end;
  long v;

  if (**s < '0' || **s > '9') return -1;
  v = strtol(*s, &end, 10);
  if (*end != ':') return -1;
  *s = end + 1;
  return v;
}

static int add(struct pdw *w, const char *arg)
{
  const char *s = arg + 2, *eq;
  long units, var, len = -1;
  char name[256], *end;

  if ((arg[0] != 'J' && arg[0] != 'B') || arg[1] != ':') return -1;
  if ((units = field(&s)) < 0 || (var = field(&s)) < 0) return -1;
  if (arg[0] == 'B') {
    const char *t = s;
    long n = field(&t);
    if (n > 0 && strchr(t, '=')) len = n, s = t;
  }
  eq = strchr(s, '=');
  if (!eq || eq == s || (size_t)(eq - s) >= sizeof(name)) return -1;
  memcpy(name, s, (size_t)(eq - s));
  name[eq - s] = 0;
  if (arg[0] == 'J') {
    long long v;
    errno = 0;
    v = strtoll(eq + 1, &end, 0);
    if (errno || end == eq + 1 || *end) return -1;
    return pdw_long(w, name, (int)units, (int)var, v) ? 0 : -2;
  }
  if (len < 0) len = (long)strlen(eq + 1) + 1;
  return pdw_string(w, name, (int)var, eq + 1, (size_t)len) ? 0 : -2;
}

int main(int argc, char **argv)
{
  struct pdw w;
  int be = 0, jvm = 0, ready = 1, c;
  long size = 0;
  char *end;

  while ((c = getopt(argc, argv, "bjns:")) != -1) {
    if (c == 'b')
      be = 1;
    else if (c == 'j')
      jvm = 1;
    else if (c == 'n')
      ready = 0;
    else if (c == 's' && (size = strtol(optarg, &end, 0)) > 0 && !*end)
      ;
    else
      return usage("bad option");
  }
  if (optind >= argc) return usage("no FILE");
  if (jvm) {
    pdw_sample_jvm(&w, be);
    w.p = xrealloc(w.p, CAP);
    memset(w.p + w.size, 0, CAP - w.size);
    w.size = CAP;
  } else {
    pdw_init(&w, CAP, be);
  }
  for (int i = optind + 1; i < argc; i++) {
    int rc = add(&w, argv[i]);
    if (rc == -1) return usage("bad entry");
    if (rc) return usage("entries do not fit");
  }
  pdw_finish(&w);
  if (!ready) w.p[7] = 0; /* the prologue's accessible byte */
  if (!size) size = (long)w.used + 64;
  if ((size_t)size < w.used || size > CAP) return usage("bad size");
  w.size = (size_t)size;
  if ((c = pdw_save(&w, argv[optind]))) {
    fprintf(stderr, "mkperf: cannot write %s: %s\n", argv[optind],
            strerror(-c));
    return 1;
  }
  free(w.p);
  return 0;
}
