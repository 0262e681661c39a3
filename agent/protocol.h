/* protocol.h - the contract between jvmtool and its agent (agent/agent.c)
 *
 * Included by the agent (no libc), by cmd/agent_install*.c and by the
 * agentopts fuzz target: the return codes Agent_OnAttach gives "load", the
 * words that ask a running agent something, and the names of the files the
 * two sides share in the target's /tmp. Data only: no code, no libc.
 */
#ifndef AGENT_PROTOCOL_H
#define AGENT_PROTOCOL_H

/* What Agent_OnAttach / Agent_OnLoad return (the JVM shows it to the
 * attacher as "return code: N"). */
enum agent_rc {
  AGENT_OK = 0,      /* started, stopped, or (status) running */
  AGENT_OPTIONS = 2, /* an option was bad; the agent said which */
  AGENT_OUTPUT = 3,  /* the samples file could not be created */
  AGENT_OLD = 4,     /* JVM before JDK 11: no SampledObjectAlloc */
  AGENT_JVMTI = 5,   /* a JVMTI call failed */
  AGENT_IDLE = 6,    /* stop/status: no sampler runs */
  AGENT_TAKEN = 98   /* JVMTI_ERROR_NOT_AVAILABLE: another agent
                            holds can_generate_sampled_object_alloc_events */
};

/* The whole option string of a load that asks instead of starting. */
#define AGENT_WORD_STOP "stop"     /* stop, complete the samples file */
#define AGENT_WORD_STATUS "status" /* AGENT_OK when running, else IDLE */

/* Files in the target's /tmp. agent-install writes the agent as
 * AGENT_SO_PREFIX<16 random hex digits>.so (O_EXCL: never a file it did
 * not just write) and names the samples file
 * AGENT_SAMPLES_PREFIX<nspid>-<16 random hex digits>.txt in output.file;
 * the agent creates that file O_EXCL|O_NOFOLLOW|O_NONBLOCK, so it never
 * writes through a link or into a planted FIFO. */
#define AGENT_SO_PREFIX "jvmtool-agent-"
#define AGENT_SAMPLES_PREFIX "jvmtool-alloc-"

/* The samples file: a header line starting with AGENT_HEADER, one line
 * per sample ("frame;frame;...;Type value"), "#GC <n>" section lines from
 * the lifetime recorder, and a last line starting with AGENT_TRAILER
 * ("# end samples=N dropped=N stop=...") once the file is complete. */
#define AGENT_HEADER "# jvmtool-agent "
#define AGENT_TRAILER "# end samples="

#endif
