/* agent_install.c - jvmtool agent-install: the built-in allocation sampler
 *
 * Loads agent/ (embedded in the binary, see build.d/agent.sh) into a running
 * JVM with the attach "load" command, like jattach or async-profiler's
 * launcher (core/agent). The copy the JVM already maps is loaded again
 * (the agent restarts with the new options); only a JVM without one gets
 * a copy written into its own /tmp (resolved inside its root, so
 * containers work) under a fresh random name: one agent per JVM. The
 * samples go to a file in that /tmp whose name agent-install chooses, and
 * come back to -o at --stop or the end of --duration. --stop and --status
 * talk to the agent image the JVM has mapped (/proc/<pid>/maps).
 *
 * Options mirror the original's flame.properties (sample.strategy, ...)
 * and are checked by the agent's own parser (agent/config.c) before
 * anything is attached. --agent loads any other agent: a .so natively, a
 * .jar through the JDK's instrument agent.
 *
 * Deviations: starting while a sampler runs is refused, so what it took
 * is never thrown away (--stop collects it first); the agent file stays in
 * the target's /tmp while the JVM maps it (the loader recognises a second
 * load of it by that file; a copy whose load failed is removed, and clean
 * removes copies nothing maps). Messages count samples (the end line's
 * count); the lifetime recorder's lines are the survivors among them.
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "core/attach.h"
#include "core/vm.h"
#include "core/wfile.h"
#include "agent/config.h"
#include "agent/protocol.h"
#include "cmd/agent_install.h"

/* The agent's numbers as typed options: a count or size is an INT, a
 * time (ms, s in the agent) a TIME in the agent's unit, with the agent's
 * own range and default. */
#include "specs/agent_keys.h"
#define AGENT_OPT(field) AGENT_KEY_##field
#define NUM(lo, hi, def) INT(lo, hi, def)
#define MS(lo, hi, def) TIME(lo##ms, hi##ms, def##ms)
#define SECS(lo, hi, def) TIME(lo##s, hi##s, def##s)
/* --output's default, as its help says it */
#define OUTPUT_DEFAULT "stacks.txt"
#define OPTS_FILE "specs/agent_install.opts"
#include "core/opt_table.h"
#undef AGENT_OPT
#undef NUM
#undef MS
#undef SECS

/* ---- options: the command line and --properties, into a config -------- */

static void warn_property(const char *msg, void *file)
{
  fprintf(stderr, "jvmtool %s: %s: %s\n", jt_cmd, (const char *)file, msg);
}

/* Apply "key=value" (or, from_file, the lines of a file) with the agent's
 * parser. Returns 0, or 2 after the agent's message as a usage error. */
static int apply(struct config *c, const char *s, size_t n, char sep,
                 const char *file)
{
  char err[400];

  if (!config_apply(c, s, n, sep, file != NULL, err, sizeof(err), warn_property,
                    (void *)file))
    return 0;
  return usage_error("%s", err);
}

static int set(struct config *c, const char *key, const char *val)
{
  char *pair;
  int rc;

  if (!val) return 0;
  pair = xasprintf("%s=%s", key, val);
  rc = apply(c, pair, strlen(pair), 0, NULL); /* one pair, commas kept */
  free(pair);
  return rc;
}

static int read_properties(struct config *c, const char *path)
{
  char *data;
  size_t len;
  int err = read_file(AT_FDCWD, path, O_NONBLOCK, 1 << 20, &data, &len);

  if (err) {
    errno_msg(err, "cannot read '%s'", path);
    return 1;
  }
  if (memchr(data, 0, len)) { /* it would end the lines read there */
    error_msg("cannot read '%s': NUL byte (binary data?)", path);
    free(data);
    return 1;
  }
  err = apply(c, data, len, '\n', path);
  free(data);
  return err;
}

/* The agent's settings: --properties first, then the options. attach:
 * output.file names a path in the target, chosen here, not by the user. */
static int options(struct args *a, int attach, struct config *c)
{
  const char *strategy = a->val[OPT_strategy];
  int rc;

  config_defaults(c);
  if (a->val[OPT_properties] &&
      (rc = read_properties(c, a->val[OPT_properties])))
    return rc;
  if (!strategy && a->count[OPT_rate]) strategy = "allocationCount";
  if (!strategy && a->count[OPT_interval]) strategy = "time";
  if ((rc = set(c, "sample.strategy", strategy))) return rc;
  /* --interval is a time, as in every command; the agent counts ms */
  if (a->count[OPT_interval] && c->strategy != BY_TIME)
    return usage_error("--interval is the time strategy's: bytes between "
                       "samples are --bytes N");
  if (a->count[OPT_bytes] && c->strategy != BY_BYTES)
    return usage_error("--bytes is the bytes strategy's: time between "
                       "samples is --interval TIME");
  /* the agent counts whole seconds: 1.5s would be cut to 1 */
  if (a->count[OPT_delay] && a->num[OPT_delay] % 1000000000)
    return usage_error("--delay is in whole seconds (the agent's "
                       "resolution), not '%s'",
                       a->val[OPT_delay]);
  /* numbers opt_parse checked against the agent's own ranges */
  if (a->count[OPT_interval]) c->interval_ms = a->num[OPT_interval] / 1000000;
  if (a->count[OPT_delay]) c->delay_secs = a->num[OPT_delay] / 1000000000;
  if (a->count[OPT_bytes]) c->interval_bytes = a->num[OPT_bytes];
  if (a->count[OPT_rate]) c->rate = a->num[OPT_rate];
  if (a->count[OPT_depth]) c->depth = a->num[OPT_depth];
  if ((rc = set(c, "stack.trace.verbosity", a->val[OPT_verbosity])) ||
      (rc = set(c, "recorder", a->val[OPT_recorder])) ||
      (rc = set(c, "record.weight", a->val[OPT_weight])) ||
      (rc = set(c, "record.size", a->count[OPT_no_size] ? "false" : NULL)))
    return rc;
  if (attach) {
    struct config d;

    config_defaults(&d);
    memcpy(c->output, d.output, sizeof(c->output));
  }
  return 0;
}

/* c as the agent's option string; 0, or 2 when it cannot be one. */
static int option_string(const struct config *c, char *out, size_t n)
{
  if (config_format(c, out, n) < 0)
    return usage_error("'%s': no comma allowed, at most %d bytes", c->output,
                       CONFIG_PATH_MAX - 1);
  return 0;
}

/* ---- what the agent says ------------------------------------------------ */

static void explain(struct jvm *t, int rc)
{
  char version[64];

  switch (rc) {
  case AGENT_OPTIONS:
    error_msg("the agent rejected its options");
    break;
  case AGENT_OUTPUT:
    error_msg("pid %d: the JVM cannot create its samples file in /tmp", t->pid);
    break;
  case AGENT_OLD:
    target_java_version(t, version, sizeof(version));
    error_msg("pid %d: Java %s has no allocation sampling (JVMTI "
              "SampledObjectAlloc): JDK 11 or later is needed",
              t->pid, version);
    break;
  case AGENT_IDLE:
    error_msg("pid %d: no sampler is running", t->pid);
    break;
  case AGENT_TAKEN:
    error_msg("pid %d: another agent owns allocation sampling (JVMTI error "
              "98), e.g. a profiler or an APM agent",
              t->pid);
    break;
  default:
    error_msg("pid %d: the agent failed with code %d (see the JVM's stderr)",
              t->pid, rc);
  }
}

/* The mapped agent that says it is sampling: its index, or -1. */
static int running_agent(struct jvm *t, char agents[][AGENT_PATH_MAX], int n,
                         int timeout)
{
  int rc;

  for (int i = 0; i < n; i++)
    if (!target_load(t, agents[i], 1, AGENT_WORD_STATUS, &rc, timeout) &&
        rc == AGENT_OK)
      return i;
  return -1;
}

/* ---- the actions ---------------------------------------------------------- */

/* Copy the samples file to out (open), remove it, say how many. */
static int collect(struct jvm *t, const char *samples, struct wfile *out,
                   const char *name)
{
  struct samples s;
  int err;

  if (target_samples(t, samples, out, 1, &s)) {
    wfile_abort(out);
    return 1;
  }
  if ((err = wfile_commit(out))) {
    errno_msg(err, "cannot write '%s'", name);
    return 1;
  }
  if (!strcmp(name, "-")) return 0;
  if (s.complete && !s.lifetime)
    info_msg("%" PRIu64 " samples to '%s'", s.samples, name);
  else if (s.complete)
    info_msg("%" PRIu64 " samples to '%s' (lifetime recorder: %" PRIu64
             " of them listed as survivors in %" PRIu64 " GC sections)",
             s.samples, name, s.lines, s.gcs);
  else if (!s.lifetime)
    info_msg("%" PRIu64 " samples to '%s' (incomplete: the file has no end "
             "line)",
             s.lines, name);
  else
    info_msg("lifetime recorder: %" PRIu64 " survivors in %" PRIu64 " GC "
             "sections to '%s' (incomplete: the file has no end line, the "
             "number of samples is unknown)",
             s.lines, s.gcs, name);
  return 0;
}

static int stop_and_collect(struct jvm *t, struct wfile *out, const char *name,
                            int timeout)
{
  char agents[AGENT_MAX_LOADED][AGENT_PATH_MAX], samples[AGENT_PATH_MAX];
  int n = agent_mapped(t, agents, NULL, AGENT_MAX_LOADED), rc = AGENT_IDLE;
  int have = !target_open_samples(t, samples, sizeof(samples));

  if (!n) {
    error_msg("pid %d: no sampler is running (the agent is not loaded)",
              t->pid);
    wfile_abort(out);
    return 1;
  }
  for (int i = 0; i < n && rc == AGENT_IDLE; i++)
    if (target_load(t, agents[i], 1, AGENT_WORD_STOP, &rc, timeout)) {
      wfile_abort(out);
      return 1;
    }
  if (rc || !have) {
    explain(t, rc ? rc : AGENT_IDLE);
    wfile_abort(out);
    return 1;
  }
  return collect(t, samples, out, name);
}

static int status(struct jvm *t, int timeout)
{
  char agents[AGENT_MAX_LOADED][AGENT_PATH_MAX], samples[AGENT_PATH_MAX];
  int n = agent_mapped(t, agents, NULL, AGENT_MAX_LOADED);
  struct samples s = {0};

  if (running_agent(t, agents, n, timeout) < 0 ||
      target_open_samples(t, samples, sizeof(samples))) {
    printf("pid %d: not sampling\n", t->pid);
    return 1;
  }
  target_samples(t, samples, NULL, 0, &s);
  if (s.lifetime)
    printf("pid %d: sampling into %s (lifetime recorder: %" PRIu64
           " survivors listed in %" PRIu64 " GC sections so far)\n",
           t->pid, samples, s.lines, s.gcs);
  else
    printf("pid %d: sampling into %s (%" PRIu64 " samples so far)\n", t->pid,
           samples, s.lines);
  return 0;
}

/* Wait out the duration (or the JVM's end, or a stop signal: from the
 * load to the written samples, Ctrl-C or SIGTERM only ends the wait, and
 * what was sampled is still stopped, collected and written). */
static void wait_duration(struct jvm *t, long long ms)
{
  uint64_t end = now_ms() + (uint64_t)ms;

  while (!jt_stop_signal && now_ms() < end && jvm_alive(t))
    nanosleep(&(struct timespec){0, 50000000}, NULL);
}

/* Load a fresh copy of the sampler; with a duration, wait, stop it and
 * collect the samples into out. A running sampler is not restarted: that
 * would end its file, which nobody would collect. */
static int sample_for(struct jvm *t, struct config *c, long long ms,
                      struct wfile *out, const char *name, int timeout)
{
  char agents[AGENT_MAX_LOADED][AGENT_PATH_MAX], lib[AGENT_PATH_MAX];
  char opts[CONFIG_PATH_MAX + 512], why[512];
  int n = agent_mapped(t, agents, NULL, AGENT_MAX_LOADED), rc;
  int reused = 0;
  const unsigned char *image;
  size_t image_len;

  if (running_agent(t, agents, n, timeout) >= 0) {
    error_msg("pid %d: a sampler is already running; not restarted, so its "
              "samples are kept: 'jvmtool agent-install %d --stop -o FILE' "
              "stops it and collects them",
              t->pid, t->pid);
    return 1;
  }
  agent_samples_name(t, c->output, sizeof(c->output));
  if ((rc = option_string(c, opts, sizeof(opts)))) return rc;
  /* the copy the JVM maps, or a fresh one (removed when refused) */
  if (agent_image(&image, &image_len, why, sizeof(why)) ||
      agent_start(t, image, image_len, opts, timeout, lib, sizeof(lib), &reused,
                  &rc, why, sizeof(why))) {
    verbose_msg("pid %d: load %s failed%s", t->pid, lib,
                reused ? "" : ": the file is removed");
    error_msg("%s", why);
    return 1;
  }
  verbose_msg("pid %d: load %s=%s%s", t->pid, lib, opts,
              reused ? " (the copy it maps)" : "");
  if (rc) {
    explain(t, rc);
    return 1;
  }
  if (!ms) {
    info_msg("pid %d: sampling into %s; 'jvmtool agent-install %d --stop "
             "-o FILE' stops it and collects the samples",
             t->pid, c->output, t->pid);
    return 0;
  }
  wait_duration(t, ms);
  if (!jvm_alive(t)) {
    /* The agent completed the file at VM death; our fd on the target's
     * /tmp outlives the process. */
    info_msg("pid %d ended while sampling", t->pid);
    rc = collect(t, c->output, out, name);
    agent_drop(t, lib); /* nothing maps it any more */
    return rc;
  }
  if (target_load(t, lib, 1, AGENT_WORD_STOP, &rc, timeout) || rc) {
    if (rc) explain(t, rc);
    return 1;
  }
  return collect(t, c->output, out, name);
}

/* sample_for, with --duration under stop_signals: a run a signal ended
 * exits 128 + the signal (130 for Ctrl-C), as every command. */
static int sample(struct jvm *t, struct config *c, long long ms,
                  struct wfile *out, const char *name, int timeout)
{
  int rc;

  if (ms) stop_signals(1);
  rc = sample_for(t, c, ms, out, name, timeout);
  if (ms) stop_signals(0);
  return stop_status(rc);
}

/* Quote a word for a POSIX shell when it needs it. */
static void shell_word(struct buf *b, const char *s)
{
  if (*s && !s[strcspn(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~")]) {
    buf_adds(b, s);
    return;
  }
  buf_addc(b, '\'');
  for (const char *p = s; *p; p++)
    buf_adds(b, *p == '\'' ? "'\\''" : (char[]){*p, 0});
  buf_addc(b, '\'');
}

/* --extract: the agent as a file, and the java option that loads it. */
static int extract(const char *path, struct args *a)
{
  char opts[CONFIG_PATH_MAX + 512], *abs, cwd[PATH_MAX], why[256];
  struct buf line = {0}, q = {0};
  const unsigned char *image;
  size_t image_len;
  struct config c;
  struct wfile w;
  int rc, err;

  if ((rc = options(a, 0, &c))) return rc;
  if (a->val[OPT_output]) {
    const char *o = a->val[OPT_output];
    char *full = o[0] != '/' && getcwd(cwd, sizeof(cwd))
                     ? xasprintf("%s/%s", cwd, o)
                     : xstrdup(o);

    rc = set(&c, "output.file", full);
    free(full);
    if (rc) return rc;
  }
  if ((rc = option_string(&c, opts, sizeof(opts)))) return rc;
  if (agent_image(&image, &image_len, why, sizeof(why))) {
    error_msg("%s", why);
    return 1;
  }
  if ((err = wfile_open(&w, path)) ||
      (fwrite(image, 1, image_len, w.f), (err = wfile_commit(&w))) ||
      !(abs = realpath(path, NULL))) {
    errno_msg(err ? err : -errno, "cannot write '%s'", path);
    return 1;
  }
  buf_printf(&line, "-agentpath:%s%s%s", abs, *opts ? "=" : "", opts);
  shell_word(&q, line.p);
  printf("java %s\n", q.p);
  free(abs);
  buf_free(&line);
  buf_free(&q);
  return 0;
}

/* Everything after option parsing. */
static int install(struct args *a)
{
  struct jvm t;
  struct config c;
  struct wfile out = {.dirfd = -1};
  const char *name = a->val[OPT_output] ? a->val[OPT_output] : OUTPUT_DEFAULT;
  int timeout = (int)(a->num[OPT_timeout] / 1000000); /* ms */
  long long ms = a->num[OPT_duration] / 1000000;
  int rc, collects, err;

  jt_verbose |= a->count[OPT_verbose] > 0;
  if (a->val[OPT_extract]) {
    if (a->argc) return usage_error("--extract takes no pid");
    return extract(a->val[OPT_extract], a);
  }
  if (a->argc != 1) return usage_error("expected one pid");
  if (ms && (a->count[OPT_stop] || a->count[OPT_status] || a->val[OPT_agent]))
    return usage_error("--duration is how long the sampler it starts runs: "
                       "not with --stop, --status or --agent");
  if (!a->val[OPT_agent] && !a->count[OPT_stop] && !a->count[OPT_status] &&
      (rc = options(a, 1, &c)))
    return rc;
  /* -o only where samples come back; checked (its folder exists and is
   * writable, it is no folder) before anything is attached. */
  collects =
      a->count[OPT_stop] || (ms && !a->val[OPT_agent] && !a->count[OPT_status]);
  if (a->val[OPT_output] && !collects)
    return usage_error("-o goes with --duration or --stop (a started sampler "
                       "is collected by --stop -o FILE)");
  if (collects && (err = wfile_open(&out, name))) {
    errno_msg(err, "cannot write '%s'", name);
    return 1;
  }
  if (target_open(&t, a->argv[0])) {
    wfile_abort(&out);
    return 1;
  }
  if (a->val[OPT_agent])
    rc = target_load_other(&t, a->val[OPT_agent], a->val[OPT_agent_args],
                           timeout) != 0;
  else if (a->count[OPT_stop])
    rc = stop_and_collect(&t, &out, name, timeout);
  else if (a->count[OPT_status])
    rc = status(&t, timeout);
  else
    rc = sample(&t, &c, ms, &out, name, timeout);
  wfile_abort(&out);
  jvm_close(&t);
  return rc;
}

int agent_install_main(int argc, char **argv)
{
  struct args a;
  int rc = opt_parse(opt_rows, opt_usage, 0, argc, argv, &a);

  if (rc >= 0) return rc;
  return install(&a);
}
