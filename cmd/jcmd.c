/* jcmd.c - placeholder until the command lands (see its issue) */
#include "core/jvmtool.h"

int jcmd_main(int argc, char **argv)
{
  error_msg("not available in this build yet");
  return 1;
}
