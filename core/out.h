/* out.h - output escaping shared by commands: JSON strings */
#ifndef OUT_H
#define OUT_H

#include <stdio.h>

/* Write s (n bytes, any content) as a JSON string literal, quotes included:
 * control characters escaped, invalid UTF-8 bytes replaced by U+FFFD, so the
 * result is always valid JSON. */
void json_string(FILE *f, const char *s, size_t n);
/* The same, appended to b. */
struct buf;
void json_buf(struct buf *b, const char *s, size_t n);

/* Write s (n bytes) as XML character data or an attribute value: markup
 * characters as entities, control characters and invalid UTF-8 as U+FFFD,
 * so any name yields a well-formed document. */
void xml_string(FILE *f, const char *s, size_t n);
/* The same, appended to b. */
struct buf;
void xml_buf(struct buf *b, const char *s, size_t n);

/* Append a counter string (n raw bytes) as the JDK tools print it
 * (docs/jvmstat.md §1.5, §8): under a UTF-8 locale valid UTF-8 passes and
 * each invalid byte becomes U+FFFD; under any other locale each byte above
 * 0x7f becomes '?'. */
struct buf;
void out_java_text(struct buf *b, const char *s, size_t n, int utf8);

/* term_escape (core/lib.h) when stdout is a terminal; in a pipe or file the bytes stay
 * exact, as jps, jstat and jcmd write them. */
void term_buf(struct buf *b, const char *s, size_t n, int keep_nl);
/* The same, written to f: escaped when f's own fd is a terminal (stderr's
 * for stderr), exact otherwise. */
void term_write(FILE *f, const char *s, size_t n, int keep_nl);
/* Append s (n bytes) as a Prometheus label value, without the quotes:
 * backslash, quote and newline escaped, invalid UTF-8 as U+FFFD, so the
 * exposition stays valid whatever the JVM or container wrote. */
void prom_label_buf(struct buf *b, const char *s, size_t n);
/* The same for HELP text and comments: backslash and newline escaped, a
 * quote kept, other control characters and invalid UTF-8 as U+FFFD. */
void prom_help_buf(struct buf *b, const char *s, size_t n);

/* Append v as the shortest decimal text that reads back as the same
 * double (Python's repr, Go's FormatFloat 'g' -1): 0.1, 2.14, 1e-05,
 * 1.5e+20; a whole number below 1e16 without ".0" (201138176); NaN and
 * infinities as Prometheus writes them (NaN, +Inf, -Inf). */
void out_num(struct buf *b, double v);

#endif
