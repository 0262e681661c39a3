/* lib.c - unit tests of core/lib, core/opt and core/out */
#include "core/jvmtool.h"
#include "check.h"

static void test_numbers(void)
{
  long long v = 0;
  int pid = 0;

  CHECK_INT(parse_long("42", 0, 100, &v), 0, "lib-1.1 parse_long 42");
  CHECK_INT(v, 42, "lib-1.2 value 42");
  CHECK_INT(parse_long("12abc", 0, 100, &v), -EINVAL, "lib-1.3 trailing junk");
  CHECK_INT(parse_long("", 0, 100, &v), -EINVAL, "lib-1.4 empty");
  CHECK_INT(parse_long(" 1", 0, 100, &v), -EINVAL, "lib-1.5 leading space");
  CHECK_INT(parse_long("101", 0, 100, &v), -ERANGE, "lib-1.6 above max");
  CHECK_INT(parse_long("99999999999999999999", 0, LLONG_MAX, &v), -ERANGE,
            "lib-1.7 overflow");
  CHECK_INT(parse_pid("-5", &pid), -EINVAL, "lib-1.8 negative pid");
  CHECK_INT(parse_pid("2147483648", &pid), -ERANGE, "lib-1.9 pid > INT_MAX");
  CHECK_INT(parse_pid("0123", &pid), 0, "lib-1.10 leading zero pid");
  CHECK_INT(pid, 123, "lib-1.11 leading zero value");
}

static void test_buf(void)
{
  struct buf b = {0};

  for (int i = 0; i < 1000; i++) buf_printf(&b, "%d,", i);
  CHECK(b.len == strlen(b.p), "lib-2.1 buf len matches");
  CHECK(!strncmp(b.p, "0,1,2,", 6), "lib-2.2 buf content");
  CHECK(!strcmp(b.p + b.len - 4, "999,"), "lib-2.3 buf tail");
  buf_free(&b);
}

static void test_json(void)
{
  char *s = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&s, &n);

  json_string(f, "a\"b\\c\n\x01\xff\xc3\xa9", 10);
  fclose(f);
  CHECK_STR(s, "\"a\\\"b\\\\c\\n\\u0001\xef\xbf\xbd\xc3\xa9\"",
            "lib-3.1 json escapes and replaces invalid UTF-8");
  free(s);
}

static void test_read_file(void)
{
  char *data;
  size_t len;
  FILE *f = fopen("lib-test-file", "w");

  for (int i = 0; i < 100000; i++) fputc('a' + i % 26, f);
  fclose(f);
  CHECK_INT(read_file(AT_FDCWD, "lib-test-file", 0, 1 << 20, &data, &len), 0,
            "lib-4.1 read_file");
  CHECK_INT(len, 100000, "lib-4.2 whole file read");
  free(data);
  CHECK_INT(read_file(AT_FDCWD, "lib-test-file", 0, 1000, &data, &len),
            -EFBIG, "lib-4.3 over max is EFBIG");
  CHECK_INT(read_file(AT_FDCWD, "no-such-file", 0, 1000, &data, &len), -ENOENT,
            "lib-4.4 missing file");
  unlink("lib-test-file");
}

int main(void)
{
  test_numbers();
  test_buf();
  test_json();
  test_read_file();
  return check_failures != 0;
}
