/* life.c - the lifetime recorder (agent/life.h) */
#include "agent/agent.h"
#include "agent/life.h"
#include "agent/rt.h"

/* Keep a lifetime sample until the next GC section: copy its line, hold
 * the object by a JNI weak reference. (Tags and GetObjectsWithTags were
 * used before: JDK 17 matches every tag map entry against every asked tag
 * under the tag map lock, seconds for tens of thousands of samples, while
 * allocating threads waited in SetTag: the cause of stops that ran out
 * their 10 s bound.) */
void life_keep(struct agent *a, jvmtiEnv *j, JNIEnv *jni, jobject obj,
               const char *line, size_t n)
{
  char *copy;
  uint64_t seq;
  struct life *e;
  jweak ref = (*jni)->NewWeakGlobalRef(jni, obj);

  if (!ref) return;
  if ((*j)->Allocate(j, (jlong)n, (unsigned char **)&copy)) {
    (*jni)->DeleteWeakGlobalRef(jni, ref);
    return;
  }
  memcpy(copy, line, n);
  lock(a, a->lock);
  seq = a->life_seq++;
  e = &a->life[seq % LIFE_CAP];
  if (a->state != RUNNING || e->line) {
    a->dropped += a->state == RUNNING;
    unlock(a, a->lock);
    (*j)->Deallocate(j, (unsigned char *)copy);
    (*jni)->DeleteWeakGlobalRef(jni, ref);
    return;
  }
  e->ref = ref;
  e->seq = seq;
  e->line = copy;
  e->len = (int)n;
  e->gen = __atomic_load_n(&a->gc_count, __ATOMIC_ACQUIRE);
  a->samples++;
  unlock(a, a->lock);
}

/* "#GC <x>" and the samples taken before GC x+1 that are still alive (their
 * weak reference not cleared): they leave the table either way, so each
 * object is reported at most once, in the first section after it was
 * sampled (the original's LifetimePrinter). */
void life_section(struct agent *a, JNIEnv *jni, int x, jweak *refs,
                  char **lines, int *lens)
{
  char head[40];
  struct text t = {head, 0, sizeof(head)};
  uint64_t seq, first;
  struct life *e;
  jint n = 0, i;

  lock(a, a->lock);
  first = a->life_seq > LIFE_CAP ? a->life_seq - LIFE_CAP : 0;
  for (seq = first; seq < a->life_seq; seq++) {
    e = &a->life[seq % LIFE_CAP];
    if (e->line && e->seq == seq && e->gen <= x) {
      refs[n] = e->ref;
      lines[n] = e->line;
      lens[n++] = e->len;
      e->line = 0;
      e->ref = 0;
    }
  }
  unlock(a, a->lock);
  puts_(&t, "#GC ");
  put_num(&t, x);
  puts_(&t, "\n");
  out_append(a, head, t.len, 0);
  for (i = 0; i < n; i++) {
    if (!(*jni)->IsSameObject(jni, refs[i], 0))
      out_append(a, lines[i], lens[i], 0);
    (*jni)->DeleteWeakGlobalRef(jni, refs[i]);
    (*a->jvmti)->Deallocate(a->jvmti, (unsigned char *)lines[i]);
  }
}

/* Forget every waiting lifetime sample (at stop). */
void life_clear(struct agent *a)
{
  JNIEnv *jni = 0;
  jweak ref;
  char *line;
  int i;

  if (!a->life) return;
  /* Called on a Java thread (attach listener, VMInit): it has a JNIEnv. */
  if ((*a->vm)->GetEnv(a->vm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK)
    jni = 0;
  for (i = 0; i < LIFE_CAP; i++) {
    lock(a, a->lock);
    line = a->life[i].line;
    ref = a->life[i].ref;
    a->life[i].line = 0;
    a->life[i].ref = 0;
    unlock(a, a->lock);
    if (line) (*a->jvmti)->Deallocate(a->jvmti, (unsigned char *)line);
    if (ref && jni) (*jni)->DeleteWeakGlobalRef(jni, ref);
  }
}

int life_alloc(struct agent *a, jvmtiEnv *j)
{
  if (a->life) return 0;
  if ((*j)->Allocate(j, sizeof(*a->life) * LIFE_CAP,
                     (unsigned char **)&a->life))
    return -1;
  memset(a->life, 0, sizeof(*a->life) * LIFE_CAP);
  return 0;
}
