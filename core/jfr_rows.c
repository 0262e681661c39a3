/* jfr_rows.c - the rows of specs/jfr_events.def and the --event grammar
 * (jfr.h): what collapse, profile and serve take as an event.
 */
#include "core/jvmtool.h"
#include "core/jfr.h"

const struct jfr_event_row jfr_event_rows[] = {
#define EVENT(w, g, n, v, l, s, x, f, t, st) {w, g, n, v, l, s, x, f, t, st},
#include "specs/jfr_events.def"
#undef EVENT
};
const int jfr_event_nrows =
    (int)(sizeof(jfr_event_rows) / sizeof(jfr_event_rows[0]));

int jfr_event_valid(const char *e)
{
  for (int i = 0; i < jfr_event_nrows; i++)
    if (!strcmp(jfr_event_rows[i].word, e)) return 1;
  for (const char *c = e; *c; c++)
    if (!isalnum((unsigned char)*c) && !strchr("._$", *c)) return 0;
  return strchr(e, '.') != NULL;
}

int jfr_event_error(const char *e)
{
  const char *names[32] = {0};
  int n = 0;

  for (int i = 0; i < jfr_event_nrows && n < 32; i++)
    if (!n || strcmp(names[n - 1], jfr_event_rows[i].word))
      names[n++] = jfr_event_rows[i].word;
  return opt_bad_word("--event", e, names, n,
                      "cpu, cputime, native, alloc, "
                      "lock, wall or an event type such as jdk.SocketRead");
}
