/* agent_opts.c - the agent's option parser, linked into jvmtool
 *
 * agent-install checks options with the agent's own code and messages
 * (agent/config.h): nothing about the options' ranges is written twice.
 */
#include "agent/config.c"
