/* top.h - what cmd/top.c (node view, batch and JSON), cmd/top_jvm.c (a
 * JVM's threads) and cmd/top_tty.c (the full-screen display) share */
#ifndef TOP_H
#define TOP_H

#include "core/jvm.h"

#include <stddef.h>
#include <stdint.h>
#include "core/heap.h"
#include "core/proc.h"

struct buf;
struct perfdata;
struct tdump;

/* One JVM of the node view, with what its last reading left for the next
 * interval's rates. */
struct top_vm {
  int pid, nspid, other_ns;
  char *user;         /* from its hsperfdata_<user> folder */
  char container[65]; /* its cgroup's container id, "" for none */
  char *main_class;   /* jps's short main class, "" when unknown */
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
  double alloc;        /* bytes per second, -1 unknown */
  struct perfdata *pd; /* open from one refresh to the next, or NULL */
};

/* The node view: every JVM found at the last refresh. */
struct top_node {
  struct top_vm *vm;
  size_t n;
  uint64_t at_ns;     /* monotonic time of the reading */
  uint64_t listed_ns; /* of the last vm_list walk */
  const int *only;    /* when set, only these pids (nonly of them) */
  size_t nonly;
};

enum top_sort { TOP_CPU, TOP_RSS, TOP_GC, TOP_ALLOC };

/* Read every JVM, with rates against the previous reading kept in node;
 * JVMs gone are dropped, new ones get rates from their second reading.
 * JVMs are found (vm_list) at most every TOP_RELIST_NS; in between, the
 * known ones are read again (a new JVM shows within that time). */
enum { TOP_RELIST_S = 5 };
#define TOP_RELIST_NS ((uint64_t)TOP_RELIST_S * 1000000000u)
void top_node_read(struct top_node *node);
void top_node_sort(struct top_node *node, enum top_sort by);
void top_node_free(struct top_node *node);
/* The node view as text: header, column titles, one line per JVM (at most
 * rows lines, 0: all), each cut to width (0: no cut); JVM text escaped
 * when esc. */
void top_node_text(const struct top_node *node, struct buf *b, size_t rows,
                   int width, int esc, int sel);
/* One JSON object of the node (view "node") or a JVM's line ("jvm"). */
void top_node_json(const struct top_node *node, const char *view,
                   struct buf *b);

/* A JVM's view: its threads over the interval, names from a dump. */
struct top_thread {
  struct proc_task task;
  double cpu, usr, sys; /* % of one core over the interval */
  const char *name;     /* the dump's name, or NULL */
  const char *state;    /* the dump's state, or NULL */
  const char *kind;     /* "java", "gc", "jit", "vm", or "-" */
  int java;
};

struct top_jvm {
  struct top_node one; /* the JVM's own line (n is 0 or 1) */
  int pid;
  struct jvm vm; /* opened once, when names are first wanted */
  int opened;
  int stacks;             /* --stacks N */
  struct proc_task *prev; /* the last walk of its threads */
  size_t nprev;
  struct top_thread *t; /* this refresh's threads, busiest first */
  size_t n;
  char *dump; /* the last thread dump, or NULL */
  struct tdump *td;
  int dumps;     /* how many were taken */
  char why[320]; /* why there are no names (attach off, ...) */
  uint64_t at_ns;
};

/* Read the JVM's threads and line; a dump is asked for when stacks are
 * wanted, or when a thread appeared that the last dump does not name.
 * Returns 0, or -ESRCH when the process is gone. */
int top_jvm_read(struct top_jvm *j);
void top_jvm_free(struct top_jvm *j);
void top_jvm_text(const struct top_jvm *j, struct buf *b, size_t rows,
                  int width, int esc);
void top_jvm_json(const struct top_jvm *j, struct buf *b);

/* The full-screen display (cmd/top_tty.c): returns the exit status. */
int top_tty(struct top_node *node, int pid, enum top_sort by, int stacks,
            uint64_t delay_ns, long long count);

/* Small shared helpers of the three files. */
void top_size(struct buf *b, double bytes); /* "123.4M", "-" for < 0 */
void top_add_text(struct buf *b, const char *s, int esc); /* JVM text */
/* Wait until the monotonic time until_ns, a signal (a stop signal, a
 * SIGWINCH) or input on fd (-1: none). Returns 1 for input, else 0. */
int top_wait(uint64_t until_ns, int fd);
uint64_t top_now_ns(void);
/* "key": number (null when v < 0), then ", " unless last. */
void top_json_num(struct buf *b, const char *key, double v, int last);
/* "key": "escaped text", then ", ". */
void top_json_str(struct buf *b, const char *key, const char *s);

#endif
