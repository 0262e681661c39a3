/* out.h - output escaping shared by commands: JSON strings */
#ifndef OUT_H
#define OUT_H

#include <stdio.h>

/* Write s (n bytes, any content) as a JSON string literal, quotes included:
 * control characters escaped, invalid UTF-8 bytes replaced by U+FFFD, so the
 * result is always valid JSON. */
void json_string(FILE *f, const char *s, size_t n);

#endif
