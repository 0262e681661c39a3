/* heap.h - what heap.c (reading, histogram, diff) and heap_graph.c (names,
 * views of the object graph) share */
#ifndef HEAP_H
#define HEAP_H

#include "core/hprof.h"
#include "core/hprof_graph.h"

/* A class's name as jmap writes it: json 0 escaped for a terminal, 1 a
 * JSON string, 2 as it is. */
struct buf;
void heap_put_name(struct buf *b, const struct hprof *h, uint32_t c, int json);
/* The progress line on stderr, from now on (when it is a terminal). */
void heap_progress_start(void);
/* Take the progress line off stderr (before anything else is written). */
void heap_progress_clear(void);
/* Write b to stdout and empty it (the progress line cleared first). */
void heap_flush(struct buf *b);

/* --retained: the classes by retained size, then the top objects. */
void heap_retained(const struct hprof *h, const struct hp_graph *g, int top,
                   int json);
/* --path ID|CLASS: 0, or 1 after the error line. */
int heap_path(struct hprof *h, const struct hp_graph *g, int fd,
              const char *what, int json);
/* --folded / --svg FILE: 0, or 1 after the error line. */
int heap_folded(const struct hprof *h, const struct hp_graph *g,
                const char *svg);

/* --strings: duplicated String values by wasted bytes, from two more
 * passes over fd. 0, or 1 after the error line. */
int heap_strings(struct hprof *h, int fd, int top, int json);
/* heap PID (cmd/heap_take.c): does arg name a JVM rather than a dump? */
int heap_is_target(const char *arg);
/* A live dump of the JVM target names, taken out (-o keep: kept there,
 * else in a file of ours removed at once): 0 with *fd reading it and
 * what naming it for messages, or 1 after the error line. */
int heap_take(const char *target, const char *keep, int *fd, char *what,
              size_t whatlen);

#endif
