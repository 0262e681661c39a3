/* config.h - the agent's options: flame.properties lines or "k=v,k=v"
 *
 * Keys and values are the allocation-instrumenter's (sample.strategy,
 * sample.interval.bytes, ...) plus record.weight. agent/config.c is one
 * unit linked into the agent (no libc: it brings memcpy and memset) and
 * into jvmtool (build.d/flags.sh's SOURCES), so agent-install checks
 * options with exactly the agent's code and messages.
 */
#ifndef AGENT_CONFIG_H
#define AGENT_CONFIG_H

#include <stddef.h>
#include <stdint.h>

enum strategy { BY_BYTES, BY_TIME, BY_COUNT };
enum verbosity { V_METHOD, V_CLASS, V_LINE };
/* What a sample's value is with strategy bytes: the bytes it stands for
 * (an object of size s, sampled with probability 1 - e^(-s/I), weighs
 * s / (1 - e^(-s/I))), or the sampled object's own size. */
enum weight { W_ESTIMATE, W_SIZE };
enum { CONFIG_PATH_MAX = 1024 };

struct config { /* numbers all int64_t: config.c's table */
  int64_t strategy, verbosity, lifetime, record_size, weight, depth;
  int64_t interval_bytes, interval_ms, rate, delay_secs;
  char output[CONFIG_PATH_MAX];
};

/* Called for each unknown key of a properties file (skipped, not fatal). */
typedef void config_warn_fn(const char *msg, void *arg);

/* Fill c with the defaults (HotSpot's 512 KiB interval, stacks.txt, ...). */
void config_defaults(struct config *c);

/* Apply the pairs of s[0..n), one per sep-separated piece ("k=v", "k: v"
 * or "k v"; '#'/'!' comments). from_file: unknown keys are passed to warn
 * (may be NULL) and skipped; otherwise they are errors. Stops at the first
 * bad pair: returns 0, or 2 (AGENT_OPTIONS) with a one-line message in
 * err ("bad value for option 'sample.rate': 'x'"). */
int config_apply(struct config *c, const char *s, size_t n, char sep,
                 int from_file, char *err, size_t errlen, config_warn_fn *warn,
                 void *arg);

/* c as "k=v,k=v" pairs (only settings that differ from the defaults,
 * output.file last) into out[0..n). Returns the length, or -1 when it does
 * not fit or output.file holds a comma (it would split the pair). */
int config_format(const struct config *c, char *out, size_t n);

#endif
