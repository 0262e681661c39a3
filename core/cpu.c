/* cpu.c - what this CPU can do beyond the build's baseline (cpu.h) */
#include "core/cpu.h"
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>

static int avx2(void)
{
  unsigned a, b, c, d, lo, hi;

  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX))
    return 0;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 6) != 6) return 0; /* XMM and YMM state */
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX2);
}

static int popcnt(void)
{
  unsigned a, b, c, d;

  return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_POPCNT);
}
#else
static int avx2(void)
{
  return 0;
}

static int popcnt(void)
{
  return 0;
}
#endif

/* -1: not asked yet */
static int has_avx2 = -1, has_popcnt = -1;

int cpu_avx2(void)
{
  if (has_avx2 < 0) has_avx2 = avx2();
  return has_avx2;
}

int cpu_popcnt(void)
{
  if (has_popcnt < 0) has_popcnt = popcnt();
  return has_popcnt;
}
