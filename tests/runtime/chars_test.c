/* How many chars full mode records of a `char` buffer and of a string with a length
 * (runtime/tracer_runtime.h): a length that is negative as a signed number (-1: "up to the
 * NUL") stops at the NUL, never reading what follows it; a length stops a string that does
 * not end in NUL; each is read from the last bytes of a page whose next page cannot be read,
 * so a read past them faults. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "expect.h"
#include "tracer_runtime.h"

int main(void) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  char *pages = mmap(NULL, page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pages == MAP_FAILED || mprotect(pages + page, page, PROT_NONE) != 0) {
    perror("chars_unit: mmap");
    return 1;
  }
  char *nul_ended = pages + page - 6, *unended = pages + page - 7;
  memcpy(nul_ended, "hello", 6);
  expect_u64("buffer, length -1", tracer_buffer_count(nul_ended, (size_t)-1), 5);
  expect_u64("buffer, int length -1", tracer_buffer_count(nul_ended, (size_t)(int)-1), 5);
  expect_u64("buffer, its length", tracer_buffer_count(nul_ended, 6), 6);
  expect_u64("buffer, 0", tracer_buffer_count(nul_ended, 0), 0);
  expect_u64("buffer, NULL", tracer_buffer_count(NULL, 9), 0);
  expect_u64("buffer, over the cap", tracer_buffer_count(pages, page * 2), TRACER_MAX_ELEMENTS);
  expect_u64("string, -1", tracer_string_count(nul_ended, (size_t)-1), 5);
  expect_u64("string, fewer chars", tracer_string_count(nul_ended, 3), 3);
  expect_u64("string, more room than chars", tracer_string_count(nul_ended, 6), 5);
  expect_u64("string, NULL", tracer_string_count(NULL, (size_t)-1), 0);
  memcpy(unended, "pageend", 7);
  expect_u64("string without NUL, its length", tracer_string_count(unended, 7), 7);
  expect_u64("buffer without NUL, its length", tracer_buffer_count(unended, 7), 7);
  if (failures) {
    fprintf(stderr, "chars_unit: %d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("PASS: chars_unit: %d checks\n", checks);
  return 0;
}
