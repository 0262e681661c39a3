/* sample.c - one sample of the allocation sampler, as a line
 *
 * On the allocating thread, inside SampledObjectAlloc, while every class
 * on its stack is alive: the allocated type, the number the line carries
 * (agent/config.h's strategy and weight) and the stack, root first, as one
 * complete line of the original's stacks.txt format, handed to the
 * samples file (rt.c) or the lifetime recorder (life.c).
 */
#include <jvmti.h>
#include "agent/agent.h"
#include "agent/config.h"
#include "agent/life.h"
#include "agent/rt.h"
#include "agent/sample.h"
#include "agent/sys.h"

/* The allocated type as the original wrote it: internal name of a class
 * ("java/lang/String"), the element type of a one-dimensional array
 * ("char", "java/lang/String"), a multi-dimensional primitive array as its
 * descriptor ("[[I"), the element class of other arrays. */
static void put_type(struct text *t, const char *sig)
{
  static const char *const prim[] = {"Bbyte", "Cchar", "Ddouble", "Ffloat",
                                     "Iint",  "Jlong", "Sshort",  "Zboolean"};
  size_t dims = 0, n = str_len(sig), i;

  while (sig[dims] == '[') dims++;
  if (sig[dims] == 'L' && n > dims + 1 && sig[n - 1] == ';') {
    put(t, sig + dims + 1, n - dims - 2);
    return;
  }
  if (dims == 1 && n == 2)
    for (i = 0; i < sizeof(prim) / sizeof(prim[0]); i++)
      if (prim[i][0] == sig[1]) {
        puts_(t, prim[i] + 1);
        return;
      }
  puts_(t, sig);
}

/* "Ljava/lang/Thread;" -> "java.lang.Thread"; a hidden class's
 * "LFoo$$Lambda$1.0x0800;" -> "Foo$$Lambda$1/0x0800", as Class.getName and
 * StackTraceElement spell it. */
static void put_class(struct text *t, const char *sig)
{
  size_t n = str_len(sig), i;

  if (n >= 2 && sig[0] == 'L' && sig[n - 1] == ';') {
    sig++;
    n -= 2;
  }
  for (i = 0; i < n; i++)
    put(t, sig[i] == '/' ? "." : sig[i] == '.' ? "/" : sig + i, 1);
}

/* StackTraceElement's line: -2 native, -1 unknown. */
static int line_of(jvmtiEnv *j, jmethodID m, jlocation at)
{
  jvmtiLineNumberEntry *tab = 0;
  jint n = 0, i, line = -1;
  jlocation best = -1;

  if (at < 0) return -2;
  if ((*j)->GetLineNumberTable(j, m, &n, &tab) != JVMTI_ERROR_NONE) return -1;
  for (i = 0; i < n; i++)
    if (tab[i].start_location <= at && tab[i].start_location >= best) {
      best = tab[i].start_location;
      line = tab[i].line_number;
    }
  (*j)->Deallocate(j, (unsigned char *)tab);
  return line;
}

static void put_frame(const struct config *c, jvmtiEnv *j, JNIEnv *jni,
                      struct text *t, const jvmtiFrameInfo *f)
{
  char *name = 0, *sig = 0;
  jclass cls = 0;

  if (c->verbosity != V_METHOD &&
      (*j)->GetMethodDeclaringClass(j, f->method, &cls) == JVMTI_ERROR_NONE) {
    if ((*j)->GetClassSignature(j, cls, &sig, 0) == JVMTI_ERROR_NONE) {
      put_class(t, sig);
      (*j)->Deallocate(j, (unsigned char *)sig);
    }
    (*jni)->DeleteLocalRef(jni, cls);
    puts_(t, ".");
  }
  if ((*j)->GetMethodName(j, f->method, &name, 0, 0) == JVMTI_ERROR_NONE) {
    puts_(t, name);
    (*j)->Deallocate(j, (unsigned char *)name);
  } else {
    puts_(t, "unknown");
  }
  if (c->verbosity == V_LINE) {
    puts_(t, ":");
    put_num(t, line_of(j, f->method, f->location));
  }
}

/* The number a sample line carries (the header's "values="). strategy
 * bytes: HotSpot samples an object of s bytes with probability
 * 1 - e^(-s/I) (exponentially spaced sample points, mean I), so it stands
 * for s / (1 - e^(-s/I)) bytes: that sum estimates the bytes allocated at
 * each stack without bias, for small and large objects alike. */
static int64_t value_of(const struct config *c, jlong size)
{
  double q;

  if (!c->record_size) return 1;
  if (c->strategy != BY_BYTES || c->weight != W_ESTIMATE ||
      c->interval_bytes <= 0 || size <= 0)
    return size;
  q = one_minus_exp_neg((double)size / (double)c->interval_bytes);
  return (int64_t)((double)size / q + 0.5);
}

void sample(struct agent *a, jvmtiEnv *j, JNIEnv *jni, jobject obj,
            jclass klass, jlong size)
{
  char line[LINE_CAP], piece[1024], *sig = 0;
  jvmtiFrameInfo small[STACK_FRAMES], *frames = small;
  struct text t = {piece, 0, sizeof(piece) - 1};
  size_t at = LINE_CAP;
  jint n = 0, i;

  if ((*j)->GetClassSignature(j, klass, &sig, 0) != JVMTI_ERROR_NONE) return;
  put_type(&t, sig);
  (*j)->Deallocate(j, (unsigned char *)sig);
  puts_(&t, " ");
  put_num(&t, value_of(&a->cfg, size));
  puts_(&t, "\n");
  at -= t.len;
  memcpy(line + at, piece, t.len);
  if (a->cfg.depth > STACK_FRAMES &&
      (*j)->Allocate(j, (jlong)sizeof(*frames) * a->cfg.depth,
                     (unsigned char **)&frames))
    return;
  if ((*j)->GetStackTrace(j, 0, 0, (jint)a->cfg.depth, frames, &n)) n = 0;
  /* Leaf first, each frame put in front: root first in the line; a stack
   * too long for the line loses its outermost frames, like max.stack.depth. */
  for (i = 0; i < n; i++) {
    t.len = 0;
    put_frame(&a->cfg, j, jni, &t, &frames[i]);
    if (t.len + 1 > at) break;
    line[--at] = ';';
    at -= t.len;
    memcpy(line + at, piece, t.len);
  }
  if (frames != small) (*j)->Deallocate(j, (unsigned char *)frames);
  if (a->cfg.lifetime) {
    life_keep(a, j, jni, obj, line + at, LINE_CAP - at);
  } else {
    out_append(a, line + at, LINE_CAP - at, 1);
  }
}
