/* attach.c - unit tests of core/attach's reply parsing */
#include "core/jvmtool.h"
#include "core/attach.h"
#include "check.h"

int main(void)
{
  const char *body;
  int rc = 12345;

  CHECK_INT(attach_status("0\nOpenJDK\n", &body), 0, "att-1.1 status 0");
  CHECK_STR(body, "OpenJDK\n", "att-1.2 body after the status line");
  CHECK_INT(attach_status("-1\nOperation foo not recognized!", &body), -1,
            "att-1.3 status -1 without a final newline");
  CHECK_STR(body, "Operation foo not recognized!", "att-1.4 its message");
  CHECK_INT(attach_status("101\n", &body), 101, "att-1.5 protocol error 101");
  CHECK_INT(attach_status("", &body), INT_MIN, "att-1.6 empty reply");
  CHECK_INT(attach_status("x\n", &body), INT_MIN, "att-1.7 not a number");
  CHECK_INT(attach_status("99999999999\n", &body), INT_MIN, "att-1.8 overflow");
  CHECK_INT(attach_load_code("0\nreturn code: 0\n", &rc), 0,
            "att-2.1 JDK 21+ load, success");
  CHECK_INT(rc, 0, "att-2.2 its code");
  CHECK_INT(attach_load_code("0\nreturn code: 98\n", &rc), 0,
            "att-2.3 JDK 21+ load, agent failed");
  CHECK_INT(rc, 98, "att-2.4 code 98 (status was 0)");
  CHECK_INT(attach_load_code("-1\nreturn code: 2\n", &rc), 0,
            "att-2.5 JDK 9-20 failure keeps the code");
  CHECK_INT(rc, 2, "att-2.6 code 2");
  CHECK_INT(attach_load_code("0\n4\n", &rc), 0, "att-2.7 JDK 8 bare number");
  CHECK_INT(rc, 4, "att-2.8 code 4");
  CHECK_INT(attach_load_code("-1\nCould not load library x.so\n", &rc), -1,
            "att-2.9 dlopen failure has no code");
  CHECK_INT(attach_load_code("0\nreturn code: 12abc\n", &rc), -1,
            "att-2.10 junk after the code is no code");
  return check_failures != 0;
}
