/* fuzz_attach.c - attach reply parsing: whatever a JVM (or anything that
 * listens on its socket) answers. Invariants: the body lies inside the
 * reply; a parsed status reads back as the first line's number. */
#include "core/jvmtool.h"
#include "core/attach.h"
#include "test/fuzz/check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *reply = xstrndup((const char *)data, size), line[32];
  const char *body;
  int status = attach_status(reply, &body), rc;

  INVARIANT(body >= reply && body <= reply + strlen(reply));
  if (status != INT_MIN) {
    snprintf(line, sizeof(line), "%d", status);
    INVARIANT(!strncmp(reply, line, strlen(line)) ||
              (reply[0] == '+' || reply[0] == '0' || reply[0] == '-' ||
               isspace((unsigned char)reply[0])));
  }
  if (!attach_load_code(reply, &rc)) INVARIANT(strchr(reply, '\n'));
  free(reply);
  return 0;
}
