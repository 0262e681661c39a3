/* fuzz_agentopts.c - the agent's option parser (agent/config.c) on any text
 *
 * It runs inside the JVM, so a crash there is the JVM's. Invariants: on
 * success every setting is within its range; whatever happens the output
 * path stays a NUL-terminated string; the same text gives the same
 * settings; a text without newlines means the same as pairs ("k=v,k=v")
 * and as properties lines (one pair a line).
 */
#include "core/jvmtool.h"
#include "agent/protocol.h"
#include "agent/config.h"
#include "test/fuzz/check.h"

/* Equal settings (the bytes after output's NUL may differ). */
static int same(const struct config *a, const struct config *b)
{
  struct config x = *a, y = *b;

  memset(x.output, 0, sizeof(x.output));
  memset(y.output, 0, sizeof(y.output));
  return !memcmp(&x, &y, sizeof(x)) && !strcmp(a->output, b->output);
}

static int parse(struct config *c, const char *s, size_t n, char sep,
                 int from_file)
{
  char err[400];
  int rc;

  config_defaults(c);
  rc = config_apply(c, s, n, sep, from_file, err, sizeof(err), NULL, NULL);
  INVARIANT(rc == 0 || rc == AGENT_OPTIONS);
  INVARIANT(memchr(err, 0, sizeof(err)) && (rc == 0) == (err[0] == 0));
  INVARIANT(memchr(c->output, 0, sizeof(c->output)));
  if (!rc)
    INVARIANT(c->strategy >= BY_BYTES && c->strategy <= BY_COUNT &&
              c->verbosity >= V_METHOD && c->verbosity <= V_LINE &&
              (c->lifetime == 0 || c->lifetime == 1) &&
              (c->record_size == 0 || c->record_size == 1) &&
              (c->weight == W_ESTIMATE || c->weight == W_SIZE) &&
              c->depth >= 1 && c->depth <= 1024 && c->interval_bytes >= 0 &&
              c->interval_bytes <= 0x7fffffff && c->interval_ms >= 1 &&
              c->interval_ms <= 86400000 && c->rate >= 1 &&
              c->rate <= 1000000000 && c->delay_secs >= 0 &&
              c->delay_secs <= 86400 * 365 && c->output[0]);
  if (!rc) {
    /* What config_format writes reads back as the same settings. */
    struct config back;
    char line[CONFIG_PATH_MAX + 512];
    int len = config_format(c, line, sizeof(line));

    if (len >= 0) {
      config_defaults(&back);
      INVARIANT(config_apply(&back, line, (size_t)len, ',', 0, err, sizeof(err),
                             NULL, NULL) == 0 &&
                same(&back, c));
    }
  }
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct config a, b;
  const char *s = (const char *)data;
  char *lines;
  int rc;

  rc = parse(&a, s, size, ',', 0);
  INVARIANT(parse(&b, s, size, ',', 0) == rc && !memcmp(&a, &b, sizeof(a)));
  parse(&b, s, size, '\n', 1);
  if (!rc && !memchr(s, '\n', size)) {
    lines = xmalloc(size + 1);
    for (size_t i = 0; i < size; i++) lines[i] = s[i] == ',' ? '\n' : s[i];
    INVARIANT(parse(&b, lines, size, '\n', 1) == 0 &&
              !memcmp(&a, &b, sizeof(a)));
    free(lines);
  }
  return 0;
}
