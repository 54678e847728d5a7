/* The checks of the runtime's unit tests: each counts, and a failed one says what it got
 * and wanted on stderr; main reports `failures` of `checks`. */
#ifndef TESTS_RUNTIME_EXPECT_H
#define TESTS_RUNTIME_EXPECT_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

static int failures, checks;

static inline void expect_u64(const char *what, uint64_t got, uint64_t want) {
  checks++;
  if (got != want) {
    fprintf(stderr, "FAIL: %s: got %" PRIu64 ", want %" PRIu64 "\n", what, got, want);
    failures++;
  }
}

#endif
