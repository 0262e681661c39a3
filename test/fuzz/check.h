/* check.h - invariant checks inside fuzz targets: a broken invariant aborts,
 * which libFuzzer (and the replay driver under ASan) reports as a crash. */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H
#include <stdio.h>
#include <stdlib.h>

#define INVARIANT(cond)                                                        \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "invariant failed: %s (%s:%d)\n", #cond, __FILE__,       \
              __LINE__);                                                       \
      abort();                                                                 \
    }                                                                          \
  } while (0)

#endif
