/* top.h - what cmd/top.c (node view, batch and JSON), cmd/top_jvm.c (a
 * JVM's threads) and cmd/top_tty.c (the full-screen display) share */
#ifndef TOP_H
#define TOP_H

#include "core/jvm.h"
#include "cmd/cmd.h" /* the views' functions other commands call */

#include <stddef.h>
#include <stdint.h>
#include "core/heap.h"
#include "core/pod.h"
#include "core/proc.h"

struct buf;
struct perfdata;
struct tdump;

/* One JVM of the node view, with what its last reading left for the next
 * interval's rates. */
struct top_vm {
  /* The JVM (core/jvm), kept from one refresh to the next: its pid,
   * nspid, other_ns, user (jvm->vm.user, from its hsperfdata_<user>
   * folder), its /proc folder (jvm->procfd) and its PerfData (jvm->pd,
   * open from one refresh to the next, or NULL). A listing's row opened
   * as listed (jvm_open_listed) in the node view, owned (own 1); in a
   * JVM's view, the view's own JVM (top_jvm.jvm, opened and verified
   * once), borrowed (own 0). */
  struct jvm *jvm;
  int own;
  char container[65]; /* its cgroup's container id, "" for none */
  /* its pod's names (core/pod), ns "" for none */
  struct pod_names names;
  char *main_class;   /* core/vm's vm_main_class (jps -l's), "" unknown */
  char *main;         /* the MAIN column: its short form (vm_main), or
                         why it is unknown ("" when PerfData says none) */
  int attach;         /* takes attach: 1, 0 (disabled), -1 unknown */
  int pd_ok;          /* its PerfData was read this time */
  uint64_t starttime; /* /proc: ticks after boot (tells a reused pid) */
  uint64_t ticks;     /* utime + stime */
  double cpu;         /* % of one core over the interval; -1 unknown */
  double rss;         /* bytes */
  long threads;
  double uptime;       /* seconds */
  double heap[3];      /* used, committed, max; -1 unknown */
  double gc_s, gc_pct; /* GC seconds so far; % of the interval, -1 */
  struct heap_eden eden;
  double alloc; /* bytes per second, -1 unknown */
};

/* The node view: every JVM found at the last refresh. */
struct top_node {
  struct top_vm *vm;
  size_t n;
  uint64_t at_ns;     /* monotonic time of the reading */
  uint64_t listed_ns; /* of the last vm_list walk */
  const int *only;    /* when set, only these pids (nonly of them) */
  size_t nonly;
  struct jvm *given; /* a JVM's view: its one line is this JVM's (the
                        view's own), read through it, never listed */
};

enum top_sort { TOP_CPU, TOP_RSS, TOP_GC, TOP_ALLOC };

/* top_node_read (cmd/cmd.h): read every JVM, with rates against the
 * previous reading kept in node; JVMs gone are dropped, new ones get rates
 * from their second reading. JVMs are found (vm_list) at most every
 * TOP_RELIST_NS; in between, the known ones are read again (a new JVM
 * shows within that time). */
enum { TOP_RELIST_S = 5 };
#define TOP_RELIST_NS ((uint64_t)TOP_RELIST_S * 1000000000u)
void top_node_sort(struct top_node *node, enum top_sort by);
void top_node_free(struct top_node *node);
/* The node view as text: header, column titles, one line per JVM (at most
 * rows lines, 0: all), each cut to width (0: no cut; -W: columns fitted to
 * W, lines not cut); JVM text escaped when esc. */
void top_node_text(const struct top_node *node, struct buf *b, size_t rows,
                   int width, int esc, int sel);
/* The lines a terminal or -b shows: 80 columns unless -w. */
/* Batch output's columns are chosen to fit 80, and its lines are never
 * cut (a pipe is no terminal): the views take it as width -80. */
enum { TOP_BATCH_WIDTH = 80 };
/* The fields of that object, added to o (top_jvm_json adds its own). */
struct json_obj;
void top_node_fields(const struct top_node *node, const char *view,
                     struct json_obj *o);

/* What is known of one thread of the JVM, kept from refresh to refresh
 * (parallel to top_jvm.prev: the same thread at the same index): its name
 * is learned once, from the first dump taken while it lives. */
struct top_known {
  int nstid;        /* its tid in the JVM's pid namespace: the dump's nid */
  char *name;       /* the dump's name, or NULL */
  char state[32];   /* the state in the last dump that named it */
  int java;         /* a Java thread ("#N" in the dump) */
  int dumped;       /* a dump was taken while it lived: it names the
                        thread or never will (launcher, GC, JFR sampler) */
  double allocated; /* Thread.print -e allocated= bytes at alloc_ns, -1 */
  uint64_t alloc_ns;
  double alloc; /* bytes per second between the last two -e dumps, -1 */
};

/* A JVM's view: its threads over the interval, names from a dump. */
struct top_thread {
  struct proc_task task;
  double cpu, usr, sys; /* % of one core over the interval */
  const char *kind;     /* "java", "gc", "jit", "jfr", "vm", or "-" */
  size_t k;             /* its entry in top_jvm.known */
};

struct top_jvm {
  struct top_node one; /* the JVM's own line (n is 0 or 1): one.given is
                          jvm, the same value */
  int pid;
  struct jvm jvm; /* opened once, by top_main or the tty (top_jvm_open) */
  int opened;
  int stacks;              /* --stacks N (or the s key) */
  int alloc;               /* --alloc: a Thread.print -e every refresh */
  int no_dump;             /* top_jvm_read takes no dump: its owner does,
                              without blocking (serve's JVM page) */
  uint64_t dump_every_ns;  /* --dump-every: the least time between dumps */
  struct proc_task *prev;  /* the last walk of its threads */
  struct top_known *known; /* parallel to prev */
  size_t nprev;
  struct top_thread *t; /* this refresh's threads, busiest first */
  size_t n;
  char *dump; /* the last thread dump, or NULL */
  struct tdump *td;
  uint64_t dump_ns; /* monotonic time of the last dump */
  int dumps;        /* how many were taken */
  char why[320];    /* why there are no names (attach off, ...) */
  uint64_t at_ns;
};

/* top_jvm_read (cmd/cmd.h): read the JVM's threads and line, and take a
 * thread dump when one is due: the first (names), with --alloc each
 * refresh, else at most every dump_every_ns: for stacks, or for a thread
 * no dump was taken while it lived (GC, JIT and VM threads by their native
 * names, and the launcher, never count). Returns 0, or -ESRCH when the
 * process is gone. */
/* Open host pid pid into j->jvm (core/jvm: verified once; every read of
 * its threads goes through its /proc folder): the listing's row when
 * row (a node view's line: its JVM's j->vm, jvm_open_row, the walk's
 * facts not read again), else by the pid typed (jvm_open_pid). 0, or
 * -errno with err set. */
int top_jvm_open(struct top_jvm *j, int pid, struct vm *row, char *err,
                 size_t n);
/* Take a dump now (a key asked for a stack): names, states and stacks
 * from it. Returns 0, or -1 with the reason in j->why. */
int top_jvm_dump(struct top_jvm *j);
void top_jvm_free(struct top_jvm *j);
/* For an owner that takes the dumps itself (no_dump set; cmd/cmd.h's
 * top_jvm_can_dump, top_jvm_dump_line, top_jvm_take): whether one is due
 * at now (ns, top_now_ns). */
int top_jvm_dump_due(const struct top_jvm *j, uint64_t now);
/* The JVM's view as text. rows 0: every thread, then the hot stacks
 * (batch); else at most rows lines in all, the hot stacks (when
 * j->stacks) sharing them, rows numbered and row sel (>= 0) marked. Lines
 * are cut to width (0: none; -W: columns fitted to W, lines not cut); JVM
 * text is escaped when esc. */
void top_jvm_text(const struct top_jvm *j, struct buf *b, size_t rows,
                  int width, int esc, int sel);
/* One thread's whole stack from the last dump (row i of j->t), from frame
 * skip on, in at most rows lines of width. */
void top_jvm_stack_text(const struct top_jvm *j, size_t i, struct buf *b,
                        size_t rows, int width, size_t skip);

/* Columns of a view, dropped by priority to fit a width. */
struct top_col {
  const char *title;
  int width; /* with its separating space */
  int left;  /* title left-aligned */
  int drop;  /* 1 is dropped first; 0 never */
};
/* The columns of c[0..n) (as a bit mask, of those in have) that fit in
 * width (0: all; -W: W) beside a last column of at least last_min. */
unsigned top_fit(const struct top_col *c, size_t n, unsigned have, int width,
                 int last_min);
/* The titles of the columns in mask, then " " and last. */
void top_titles(struct buf *b, const struct top_col *c, size_t n, unsigned mask,
                const char *last);

/* The full-screen display (cmd/top_tty.c): returns the exit status. */
int top_tty(struct top_node *node, struct top_jvm *proto, enum top_sort by,
            uint64_t delay_ns, long long count);

/* Small shared helpers of the three files. */
void top_size(struct buf *b, double bytes); /* "123.4M", "-" for < 0 */
/* Text from a JVM or a container (names, states, frames, main class):
 * the one way it reaches output, escaped for a terminal when esc. */
void top_add_text(struct buf *b, const char *s, size_t n, int esc);
/* Wait until the monotonic time until_ns, a signal (a stop signal, a
 * SIGWINCH) or input on fd (-1: none). Returns 1 for input, else 0. */
int top_wait(uint64_t until_ns, int fd);
uint64_t top_now_ns(void);
/* A measure as top's JSON gives it (core/out's json_num): to three
 * decimals; NaN (null) when unknown (v < 0). */
double top_json_val(double v);

#endif
