/* skipped.c - what a node-wide command did not look at, said once
 *
 * core/vm's walks never open a /tmp that a process serves (a container's
 * FUSE mount: a request there may never be answered). Each command that
 * walks the node says so on stderr, once per pid for its whole run (serve
 * and top walk again and again), with the container's text escaped.
 */
#include "core/jvmtool.h"
#include "core/vm.h"
#include "cmd/cmd.h"

void say_skipped(void)
{
  struct vm_skip *s;
  size_t n;

  s = vm_skipped(&n);
  for (size_t i = 0; i < n; i++) {
    if (s[i].said) continue;
    s[i].said = 1;
    if (!s[i].pid)
      error_msg("%s: not looked at", s[i].why);
    else
      error_msg("pid %d: %s: %s", s[i].pid, s[i].why,
                s[i].jvm ? "a JVM there was not looked at" : "not looked at");
  }
}
