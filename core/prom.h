/* prom.h - JVMs' PerfData as Prometheus text exposition (format 0.0.4)
 *
 * One renderer for dump --prometheus and serve. Families are named as
 * Prometheus' Java client 1.x names them (jvm_memory_*, jvm_gc_*,
 * jvm_threads_*, process_*, ...), or with PROM_SIMPLECLIENT as its 0.x
 * did: each name is a row of specs/prom_names.def. Values come from
 * PerfData counters and /proc/<pid>; pool and collector labels carry the
 * JVM's own MXBean names (specs/prom_map.def). Every
 * series has pid and main_class, container_id / pod_uid when the
 * process's cgroup names them, and namespace / pod / container when its
 * runtime's state does (core/pod). Samples of one family stay together, each
 * family with # HELP and # TYPE, so promtool check metrics is clean.
 *
 * Nothing in a file can break the exposition (docs/security.md §serve):
 * label values, HELP text and comments are escaped and kept valid UTF-8;
 * with PROM_RAW a counter's name must be HotSpot's [A-Za-z0-9._] and at
 * most PROM_MAX_NAME bytes, at most PROM_MAX_RAW of them per JVM, else it
 * is dropped and counted (jvmtool_dropped_counters); a series that is
 * already there (two names mapping to one, a collector named twice) or a
 * family of another type is dropped too: never a duplicate series.
 * JVMs are added one at a time: the caller may free each after adding it,
 * memory then grows with the exposition only.
 */
#ifndef PROM_H
#define PROM_H

#include <stddef.h>
#include <stdint.h>
/* struct buf: core/lib.h, through core/jvmtool.h */
#include "core/pod.h"
#include "core/strset.h"

struct perfdata;

/* One JVM to render is core/jvm's struct jvm, opened (jvm_open_listed
 * for a listing's row): its pid (0 for a file: no /proc facts, no pid
 * label), its /proc folder (procfd, -1: none; the only way /proc is
 * read) and its PerfData (j->pd, kept by jvm_read). */
struct jvm;

enum {
  PROM_RAW = 1,          /* also every numeric counter as hotspot_... */
  PROM_SIMPLECLIENT = 2, /* the names of client_java 0.x's simpleclient
                            (specs/prom_names.def), not 1.x's */
  PROM_MAX_NAME = 128,   /* --raw: longest name kept (HotSpot: 56) */
  PROM_MAX_RAW = 1024,   /* --raw: counters kept per JVM (a JVM has ~300) */
};

/* What was dropped from one JVM, by reason. */
struct prom_drops {
  size_t name;      /* a name outside [A-Za-z0-9._] or too long */
  size_t collision; /* its series or family was already there */
  size_t limit;     /* over PROM_MAX_RAW */
};

/* An exposition being built: families, their samples, comments. */
struct prom_family;
struct prom {
  int flags;
  struct buf lines;     /* every sample line, newline included */
  struct strset series; /* "name{labels}" of each line kept */
  struct prom_family *fam;
  size_t nfam, capfam;
  struct strset names; /* family name -> its index in fam */
  struct buf name_bytes;
  struct buf comments;     /* "# ..." lines, written first */
  struct prom_drops drops; /* of the JVM being added */
};

/* The flag of --names' word (its index in the WORD list of serve.opts
 * and dump.opts: client_java, simpleclient). */
static inline int prom_names_flag(int word)
{
  return word == 1 ? PROM_SIMPLECLIENT : 0;
}

/* The labels of one JVM: the one definition of what every series of
 * /metrics and every /sd target group carries. In order: pid (left out
 * for a file: j->pid 0), main_class (core/vm's vm_main_class of the
 * command line; "" when j->pd is NULL or says none), then container_id and
 * pod_uid when the process's cgroup path names them (a 64-hex-digit id;
 * "pod" and a uid, '_' standing for '-' under the systemd driver), then
 * namespace, pod and container when the container runtime's own state
 * for that id names them (core/pod's pod_names, verified). Values
 * are raw bytes (main_class points into j->pd's buffer): the caller
 * escapes them for its format. */
enum { PROM_MAX_LABELS = 7 };
struct prom_labels {
  size_t n;
  struct {
    const char *name, *value;
    size_t len;
  } l[PROM_MAX_LABELS];
  char pid[16], id[65], pod[37];
  struct pod_names names;
};
void prom_jvm_labels(const struct jvm *j, struct prom_labels *out);
/* prom_jvm_labels as the inside of a series' braces, escaped, appended
 * to b ('pid="42",main_class="x"'). */
void prom_jvm_label_text(const struct jvm *j, struct buf *b);

/* Start an exposition (flags: PROM_RAW, PROM_SIMPLECLIENT). */
void prom_init(struct prom *p, int flags);

/* Add one JVM's families from j->pd (not NULL). Reads
 * {stat,limits,fd,cgroup} at j->procfd for the process collector's
 * families; what cannot be read is left out. Never fails; sets *d (may
 * be NULL) to what was dropped from this JVM. */
void prom_add_jvm(struct prom *p, const struct jvm *j, struct prom_drops *d);

/* Add one sample of family (of type and help, both kept from the first
 * sample): the line "<family><suffix>{<labels><extra>} <v>", labels and
 * extra already formatted ('pid="42"', ',pool="x"'; values escaped with
 * prom_label_buf). A series already there, or a family of another type,
 * is dropped and counted in p->drops.collision. */
void prom_sample(struct prom *p, const char *family, const char *type,
                 const char *help, const char *suffix, const char *labels,
                 const char *extra, double v);

/* Add a comment line "# <text>", text escaped: one line whatever it holds. */
void prom_comment(struct prom *p, const char *text);

/* Append the exposition to out (comments first, then each family, names
 * sorted) and free everything p holds. */
void prom_finish(struct prom *p, struct buf *out);

/* core/prom_scrape.c: the JVMs of one exposition (dump --prometheus,
 * serve), one a step, each opened (core/jvm's jvm_open_listed: the
 * walk's look-up, nothing read again), its PerfData read within core/vm's
 * budget, rendered, and closed at the next step. */
#include "core/jvm.h"
struct prom_scrape {
  struct vm *v;   /* the rows (vm_list's, taken), or NULL */
  struct jvm *jv; /* or the JVMs, opened by the caller (taken) */
  size_t n, i;    /* how many; the next */
  struct jvm j;   /* the step's JVM (a row's), until the next step */
  struct prom p;
  uint64_t start;
  int flags;
  char why[320]; /* why the last step's JVM failed */
};
enum {
  PROM_SCRAPE_SELF = 1 << 8,    /* also jvmtool_scrape_error and
                                   jvmtool_scrape_duration_seconds per JVM
                                   (the JVM's labels: prom_jvm_labels;
                                   main_class "" when its PerfData was
                                   not read), and a comment for each one
                                   skipped */
  PROM_SCRAPE_BUDGET_MS = 5000, /* JVMs not begun by then are skipped:
                                   under Prometheus' default scrape
                                   timeout, 10 s */
};
/* Begin a scrape of the rows v[0..n) (taken: freed by prom_scrape_end),
 * flags PROM_RAW, PROM_SIMPLECLIENT and PROM_SCRAPE_SELF. */
void prom_scrape_begin(struct prom_scrape *s, struct vm *v, size_t n,
                       int flags);
/* The same over JVMs the caller opened, jv[0..n) (taken: closed and freed
 * by prom_scrape_end): a target a command line named, opened once. */
void prom_scrape_begin_jvms(struct prom_scrape *s, struct jvm *jv, size_t n,
                            int flags);
/* Read and render the next JVM (*which: its PerfData file as listed,
 * valid until the next step): 1 it was rendered, 0 none was left,
 * -EAGAIN it is still starting (left out), else -errno: it was skipped,
 * s->why says why (jvm_read's reasons, or -ETIME once the scrape's
 * budget is spent). */
int prom_scrape_step(struct prom_scrape *s, const struct vm **which);
/* Append the exposition to out, free everything. */
void prom_scrape_end(struct prom_scrape *s, struct buf *out);

/* The content type of what prom_finish writes. */
#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

#endif
