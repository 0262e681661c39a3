/* stat.h - what cmd/stat.c and cmd/stat_jstat.c share: the run's state */
#ifndef STAT_H
#define STAT_H

#include "core/expr.h"
#include "core/jvm.h"
#include "core/perfdata.h"

enum stat_out { OUT_TEXT, OUT_JSON, OUT_CSV };

struct stat_jvm {
  char *name;     /* as given: a pid, a file's path, a class */
  int pid;        /* 0 for files */
  char *path;     /* the PerfData file */
  struct jvm j;   /* opened by name (core/jvm), or from row */
  struct vm *row; /* the listing's row of a pod target or of "all",
                     opened as it is (jvm_open_row: not looked up again
                     by its pid), then freed; NULL */
  struct perfdata pd;
  int opened;                     /* pd needs pd_close */
  const struct pd_counter **refs; /* expr handles index this */
  int nrefs;
  struct buf str;      /* the last string read */
  struct expr **exprs; /* resolved, one per column */
  int gone;
};

struct run {
  const char *option;
  int timestamp, header_every, utf8;
  int layout;         /* jstat's layout of JDK <= this; 0: the target's */
  long long interval; /* ms, < 0: none */
  long long count;    /* <= 0: forever */
  enum stat_out mode;
  struct expr_spec spec;
  const struct expr_column **cols;
  int ncols, *widths;
  struct stat_jvm *tg;
  int ntg, pid_column;
  uint64_t now; /* wall clock of the current sample, ms */
  struct buf line;
};

/* stat_jstat.c: the option language, interval and count, both command
 * lines. */
void stat_load_builtin(struct run *r, int all);
int stat_load_spec(struct run *r, const char *path);
/* The JDK whose jstat layout is printed (--layout's, else the first open
 * target's; INT_MAX when unknown), and name's option in that layout. */
int stat_layout_jdk(const struct run *r);
const struct expr_option *stat_layout_option(const struct run *r,
                                             const char *name, int jdk);
int stat_list_options(struct run *r);
/* <interval>[ms|s] and <count> operands: 0, or -1 with *why (caller frees) */
int stat_timing(struct run *r, char **ops, int n, char **why);
/* jvmtool stat's command line, and jstat's (for the jstat link's main in
 * cmd/stat.c), into r: the option, timing and targets (r->tg: a pid or a file each,
 * every live JVM for "all"; cmd/stat.c opens them). -1 to go on, or the
 * exit status. */
int stat_args(struct run *r, int argc, char **argv);
int stat_jstat_args(struct run *r, int argc, char **argv);

#endif
