/* top_view.c - top's two views for another command (serve's page), as
 * cmd/cmd.h declares them: made, filtered and let go here, read and
 * written as JSON by top's own code (top_node.c, top_jvm.c), so the page's
 * JSON is top --json's, from the one writer. */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "cmd/top.h"

struct top_node *top_node_new(void)
{
  return xzalloc(sizeof(struct top_node));
}

void top_node_only(struct top_node *node, const int *only, size_t n)
{
  node->only = only;
  node->nonly = n;
}

int top_node_lists_next(const struct top_node *node)
{
  return !node->listed_ns || top_now_ns() - node->listed_ns >= TOP_RELIST_NS;
}

void top_node_delete(struct top_node *node)
{
  if (!node) return;
  top_node_free(node);
  free(node);
}

struct top_jvm *top_jvm_new(int pid, int stacks, int dump_every_s, char *err,
                            size_t n)
{
  struct top_jvm *j = xzalloc(sizeof(*j));

  if (top_jvm_open(j, pid, NULL, err,
                   n)) { /* verified once, read by its folder */
    free(j);
    return NULL;
  }
  j->stacks = stacks;
  j->no_dump = 1;
  j->dump_every_ns = (uint64_t)dump_every_s * 1000000000u;
  return j;
}

int top_jvm_dump_now(const struct top_jvm *j)
{
  return top_jvm_dump_due(j, top_now_ns());
}

const struct jvm *top_jvm_target(const struct top_jvm *j)
{
  return j->opened ? &j->jvm : NULL;
}

void top_jvm_no_dump(struct top_jvm *j, const char *why)
{
  snprintf(j->why, sizeof(j->why), "no thread dump: %s", why);
}

int top_jvm_found(const struct top_jvm *j)
{
  return j->one.n > 0;
}

const struct perfdata *top_jvm_perfdata(const struct top_jvm *j)
{
  return j->one.n && j->one.vm[0].pd_ok ? j->one.vm[0].jvm->pd : NULL;
}

void top_jvm_delete(struct top_jvm *j)
{
  if (!j) return;
  top_jvm_free(j);
  free(j);
}
