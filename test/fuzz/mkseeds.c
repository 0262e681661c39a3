/* mkseeds.c DIR - PerfData seed files from the test writer */
#include "core/jvmtool.h"
#include "pdwriter.h"

int main(int argc, char **argv)
{
  struct pdw w;
  char path[4096];

  for (int be = 0; be < 2; be++) {
    pdw_sample_jvm(&w, be);
    w.size = w.used + 64;  /* small seeds fuzz faster */
    snprintf(path, sizeof(path), "%s/writer-%s", argv[1], be ? "be" : "le");
    if (pdw_save(&w, path)) return 1;
    free(w.p);
  }
  return 0;
}
