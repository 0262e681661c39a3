/* out.h - output shared by commands: JSON strings and objects, XML, terminal
 * and Prometheus escaping, numbers */
#ifndef OUT_H
#define OUT_H

#include <stdio.h>

/* Append s (n bytes, any content) to b as a JSON string literal, quotes
 * included: control characters escaped, invalid UTF-8 bytes replaced by
 * U+FFFD, so the result is always valid JSON. */
struct buf;
void json_buf(struct buf *b, const char *s, size_t n);

/* One JSON object written field by field into a buffer: the one writer of
 * every JSON object a command prints (ps, top, stat --json). json_open
 * appends '{', each field its separator, its key (escaped like a value)
 * and its value, json_close the '}'. spaced: ", " and ": " between fields
 * (ps, top), else "," and ":" (stat's one object a row). */
struct json_obj {
  struct buf *b;
  int fields; /* written so far */
  int spaced;
};
void json_open(struct json_obj *o, struct buf *b, int spaced);
void json_close(struct json_obj *o);
/* A string field: n bytes at s as json_buf writes them; null when s is
 * NULL. json_strz: s NUL-terminated (or NULL). */
void json_str(struct json_obj *o, const char *key, const char *s, size_t n);
void json_strz(struct json_obj *o, const char *key, const char *s);
/* An integer field. */
void json_int(struct json_obj *o, const char *key, long long v);
/* A number field in the fewest digits that read back (out_num); null when
 * v is not finite (NaN stands for "unknown"). */
void json_num(struct json_obj *o, const char *key, double v);
/* true or false; null when v < 0 (unknown). */
void json_bool(struct json_obj *o, const char *key, int v);
/* The separator and "key": alone, for a value the caller appends to o->b
 * (an array, an object). */
void json_key(struct json_obj *o, const char *key);

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
