/* heap.c - unit tests of core/heap: the allocation estimate from eden */
#include "core/jvmtool.h"
#include "core/heap.h"
#include "check.h"

int main(void)
{
  struct heap_eden a = {1, 10, 100, 5}, b = {1, 40, 100, 5};

  CHECK(heap_allocated(&a, &b) == 30,
        "heap-1.1 no young GC: what eden grew by");
  b.used = 20;
  b.young_gcs = 6;
  CHECK(heap_allocated(&a, &b) == 90 + 20,
        "heap-1.2 one GC: eden's rest before it, then its use now");
  b.young_gcs = 8;
  CHECK(heap_allocated(&a, &b) == 90 + 2 * 100 + 20,
        "heap-1.3 three GCs: two whole edens between");
  b.young_gcs = 4;
  CHECK(heap_allocated(&a, &b) < 0, "heap-1.4 counters that went back");
  b.young_gcs = 5;
  b.used = 5;
  CHECK(heap_allocated(&a, &b) < 0, "heap-1.5 eden shrank without a GC");
  b.ok = 0;
  CHECK(heap_allocated(&a, &b) < 0, "heap-1.6 no eden counters");
  return check_failures != 0;
}
