/* replay.c - feed files to a fuzz target without libFuzzer
 *
 * Linked with one fuzz_<name>.c by test/fuzz.test, so that every seed and
 * every input that once crashed runs in the normal suite (under ASan+UBSan
 * when clang is there).
 */
#include "core/jvmtool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
  int failed = 0;

  for (int i = 1; i < argc; i++) {
    char *data;
    size_t len;

    if (read_file(AT_FDCWD, argv[i], 0, 64 << 20, &data, &len)) {
      fprintf(stderr, "replay: cannot read '%s'\n", argv[i]);
      failed = 1;
      continue;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)data, len);
    free(data);
  }
  return failed;
}
