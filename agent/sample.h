/* sample.h - one sample of the allocation sampler (agent/sample.c) */
#ifndef AGENT_SAMPLE_H
#define AGENT_SAMPLE_H

#include <jvmti.h>

struct agent;

/* On the allocating thread: write the sample of obj (of class klass, size
 * bytes) as one line, "frame;frame;...;Type value\n" root first, to a's
 * samples file, or keep it for the lifetime recorder (a->cfg.lifetime).
 * A line that cannot be made (no class signature, no memory for a deep
 * stack) is left out. */
void sample(struct agent *a, jvmtiEnv *j, JNIEnv *jni, jobject obj,
            jclass klass, jlong size);

#endif
