/* cpu.h - what this CPU can do beyond the build's baseline (x86-64's
 * baseline has neither AVX2 nor popcnt; elsewhere both answer 0). Each is
 * asked of the CPU once per process. */
#ifndef CPU_H
#define CPU_H

/* 1 when the CPU has AVX2 and the kernel keeps its registers (the YMM
 * state enabled in XCR0), else 0. */
int cpu_avx2(void);
/* 1 when the CPU has the popcnt instruction, else 0. */
int cpu_popcnt(void);

#endif
