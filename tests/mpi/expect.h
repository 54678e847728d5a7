/* expect: the unit tests' check: a failed expectation is printed with its line and
 * counted, and the test goes on (main returns failures != 0). Header-only. */
#ifndef TEST_EXPECT_H
#define TEST_EXPECT_H

#include <stdio.h>

static int failures;

#define EXPECT(cond)                                                                      \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                 \
      failures++;                                                                         \
    }                                                                                     \
  } while (0)

#endif
