/* agent_keys.h - the sampler's sizes, counts and times, each with its
 * range and default, in one place: the agent reads them from properties
 * and option strings (agent/config.c: its table and config_defaults), and
 * agent-install takes them as typed options (specs/agent_install.opts:
 * the same range and default, stated by --help and checked before
 * anything is attached). One row per field of struct config:
 *   AGENT_KEY_<field>  NUM(lo, hi, def)   a count or a size
 *                      MS(lo, hi, def)    milliseconds (an option: a time)
 *                      SECS(lo, hi, def)  seconds (an option: a time)
 * Whoever expands a row defines NUM, MS and SECS first. */
#ifndef AGENT_KEYS_H
#define AGENT_KEYS_H

/* bytes between samples: JVMTI's int; HotSpot's own default, 512 KiB */
#define AGENT_KEY_interval_bytes NUM(0, 2147483647, 524288)
#define AGENT_KEY_interval_ms MS(1, 86400000, 10)
#define AGENT_KEY_rate NUM(1, 1000000000, 100)
#define AGENT_KEY_delay_secs SECS(0, 31536000, 0)
#define AGENT_KEY_depth NUM(1, 1024, 128)

#endif
