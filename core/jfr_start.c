/* jfr_start.c - profile's JFR.start, in the form the JVM's version takes
 *
 * JDK 17 and later take the events as options of JFR.start itself
 * ("settings=none +jdk.ExecutionSample#period=10ms", docs/jfr.md §12.2).
 * JDK 11 to 16 reject every such option ("Unknown argument"): there the
 * events come from a .jfc file in the target's own filesystem, passed as
 * settings=<path> (docs/jfr.md §12.4). The form follows the version the
 * JVM states, never a failed try; the settings are the rows of
 * specs/jfr_events.def that serve that version.
 */
#include "core/jvmtool.h"
#include "core/attach.h"
#include "core/jfr.h"
#include "core/root.h"
#include "core/jvm.h"

int jfr_start_jdk_of(const char *reply)
{
  const char *body, *l;

  attach_status(reply, &body);
  if ((l = strstr(body, "\nJDK "))) return java_feature(l + 5, strlen(l + 5));
  return 0;
}

int jfr_start_jdk(const struct jvm *j, int timeout_ms)
{
  const char *args[3] = {"VM.version", NULL, NULL};
  int jdk = j->jdk;
  char *reply, err[256];

  if (jdk || !timeout_ms ||
      attach_send(j, "jcmd", args, timeout_ms, &reply, err, sizeof(err)))
    return jdk;
  jdk = jfr_start_jdk_of(reply);
  free(reply);
  return jdk;
}

int jfr_start_put_jfc(const struct jvm *j, const struct jfr_start *s,
                      char *name, size_t n)
{
  struct buf text = {0};
  long long uid, gid;
  int rc;

  jvm_file_owner(j, &uid, &gid);
  jfr_start_jfc(&text, s->event, s->interval, s->jdk);
  rc = root_put(&j->root, j->tmpfd, "jvmtool-", ".jfc", text.p, text.len, 0644,
                uid, gid, name, n);
  buf_free(&text);
  return rc;
}

void jfr_start_drop_jfc(const struct jvm *j, const char *name)
{
  long long uid, gid;
  int fd;

  jvm_file_owner(j, &uid, &gid);
  if (!root_take_at(&j->root, j->tmpfd, name,
                    uid < 0 ? (long long)geteuid() : uid, &fd))
    close(fd);
}

int jfr_start_needs_jfc(int jdk)
{
  return jdk > 0 && jdk < 17;
}

/* 1 if row r serves JDK jdk (0: the newest). */
static int serves(const struct jfr_event_row *r, int jdk)
{
  if (!jdk) return !r->to;
  return (!r->from || jdk >= r->from) && (!r->to || jdk <= r->to);
}

int jfr_start_since(const char *event, int jdk)
{
  int word = 0, since = 0;

  for (int i = 0; i < jfr_event_nrows; i++) {
    const struct jfr_event_row *r = &jfr_event_rows[i];

    if (strcmp(r->word, event)) continue;
    word = 1;
    if (serves(r, jdk)) return 0;
    if (r->from > jdk && (!since || r->from < since)) since = r->from;
  }
  return word ? since : 0;
}

/* A time span as JFR takes it: 10ms, 250us, 7ns (a .jfc: "10 ms"). */
static void span(struct buf *b, int64_t ns, const char *gap)
{
  if (ns % 1000000 == 0)
    buf_printf(b, "%" PRId64 "%sms", ns / 1000000, gap);
  else if (ns % 1000 == 0)
    buf_printf(b, "%" PRId64 "%sus", ns / 1000, gap);
  else
    buf_printf(b, "%" PRId64 "%sns", ns, gap);
}

/* One setting: its event, its name and its value, "$I" and "$R" filled. */
typedef void (*setting_fn)(struct buf *out, const char *event, size_t elen,
                           const char *name, size_t nlen, const char *value);

/* "value" of a row's "setting=value" word (n bytes at s), in val. */
static void expand(struct buf *val, const char *s, size_t n, int64_t interval,
                   int jfc)
{
  val->len = 0;
  for (size_t k = 0; k < n; k++) {
    if (s[k] == '$' && k + 1 < n && s[k + 1] == 'I') {
      span(val, interval, jfc ? " " : "");
      k++;
    } else if (s[k] == '$' && k + 1 < n && s[k + 1] == 'R') {
      buf_printf(val, "%" PRId64 "/s",
                 1000000000 / interval > 0 ? 1000000000 / interval : 1);
      k++;
    } else {
      buf_addc(val, s[k]);
    }
  }
  buf_addc(val, 0);
  val->len--;
}

/* Call fn for each setting event's rows ask of JDK jdk; an event type no
 * row names is enabled with its stack traces. */
static void each_setting(struct buf *out, const char *event, int64_t interval,
                         int jdk, int jfc, setting_fn fn)
{
  static const char fallback[] = "enabled=true stackTrace=true";
  struct buf val = {0};
  int found = 0;

  for (int i = 0; i <= jfr_event_nrows; i++) {
    const struct jfr_event_row *r =
        i < jfr_event_nrows ? &jfr_event_rows[i] : NULL;
    const char *s = r ? r->settings : fallback, *name = r ? r->name : event;

    if (r && (strcmp(r->word, event) || !s || !serves(r, jdk))) continue;
    if (!r && found) break;
    found = 1;
    while (*s) {
      size_t n = strcspn(s, " "), eq = strcspn(s, "=");
      const char *hash = memchr(s, '#', n);

      if (eq > n) eq = n;
      expand(&val, s + eq + (eq < n), n - eq - (eq < n), interval, jfc);
      if (hash) /* "event#setting=value": another event's, the rows need */
        fn(out, s, (size_t)(hash - s), hash + 1, eq - (size_t)(hash - s) - 1,
           val.p);
      else
        fn(out, name, strlen(name), s, eq, val.p);
      s += n + (s[n] == ' ');
    }
  }
  buf_free(&val);
}

static void inline_setting(struct buf *out, const char *event, size_t elen,
                           const char *name, size_t nlen, const char *value)
{
  buf_printf(out, " +%.*s#%.*s=%s", (int)elen, event, (int)nlen, name, value);
}

static void jfc_setting(struct buf *out, const char *event, size_t elen,
                        const char *name, size_t nlen, const char *value)
{
  buf_printf(out,
             "  <event name=\"%.*s\">\n"
             "    <setting name=\"%.*s\">%s</setting>\n"
             "  </event>\n",
             (int)elen, event, (int)nlen, name, value);
}

static void source_setting(struct buf *out, const char *event, size_t elen,
                           const char *name, size_t nlen, const char *value)
{
  if ((nlen == 7 && !memcmp(name, "enabled", 7)) ||
      (nlen == 10 && !memcmp(name, "stackTrace", 10)))
    return;
  buf_printf(out, " %.*s#%.*s=%s", (int)elen, event, (int)nlen, name, value);
}

void jfr_start_source(struct buf *b, const char *event, int64_t interval,
                      int jdk)
{
  if (jdk)
    buf_printf(b, "JFR (JDK %d):", jdk);
  else
    buf_adds(b, "JFR (JDK unknown):");
  each_setting(b, event, interval, jdk, 0, source_setting);
}

void jfr_start_jfc(struct buf *b, const char *event, int64_t interval, int jdk)
{
  buf_adds(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<configuration version=\"2.0\" label=\"jvmtool\">\n");
  each_setting(b, event, interval, jdk, 1, jfc_setting);
  buf_adds(b, "</configuration>\n");
}

void jfr_start_line(struct buf *b, const struct jfr_start *s)
{
  buf_printf(b,
             "JFR.start name=%s settings=%s duration=%lldms "
             "maxsize=%lldM filename=%s",
             s->name, s->jfc ? s->jfc : "none", s->ms, s->mb, s->file);
  if (!s->jfc)
    each_setting(b, s->event, s->interval, s->jdk, 0, inline_setting);
}
