/* check.h - the tiny assert library of the C unit tests
 *
 *   CHECK(cond, "name", ...)   PASS/FAIL line with a printf-style name
 *   CHECK_STR(got, want, "name", ...)  string equality, shows both on failure
 *   CHECK_INT(got, want, "name", ...)
 * The runner counts PASS:/FAIL: lines; main returns check_failures != 0.
 */
#ifndef CHECK_H
#define CHECK_H
#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    int ok_ = !!(cond);                                                        \
    printf("%s: ", ok_ ? "PASS" : "FAIL");                                     \
    printf(__VA_ARGS__);                                                       \
    printf(ok_ ? "\n" : " (%s:%d: %s)\n", __FILE__, __LINE__, #cond);          \
    check_failures += !ok_;                                                    \
  } while (0)

#define CHECK_STR(got, want, ...)                                              \
  do {                                                                         \
    const char *g_ = (got), *w_ = (want);                                      \
    int ok_ = g_ && w_ && !strcmp(g_, w_);                                     \
    printf("%s: ", ok_ ? "PASS" : "FAIL");                                     \
    printf(__VA_ARGS__);                                                       \
    if (ok_)                                                                   \
      printf("\n");                                                            \
    else                                                                       \
      printf(" (%s:%d: got '%s', want '%s')\n", __FILE__, __LINE__,            \
             g_ ? g_ : "(null)", w_ ? w_ : "(null)");                          \
    check_failures += !ok_;                                                    \
  } while (0)

#define CHECK_INT(got, want, ...)                                              \
  do {                                                                         \
    long long g_ = (long long)(got), w_ = (long long)(want);                   \
    printf("%s: ", g_ == w_ ? "PASS" : "FAIL");                                \
    printf(__VA_ARGS__);                                                       \
    if (g_ == w_)                                                              \
      printf("\n");                                                            \
    else                                                                       \
      printf(" (%s:%d: got %lld, want %lld)\n", __FILE__, __LINE__, g_, w_);   \
    check_failures += g_ != w_;                                                \
  } while (0)

#endif
