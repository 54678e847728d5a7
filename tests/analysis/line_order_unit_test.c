/* line_order: `tracer -t` lines come out in start order per thread, nested calls between
 * their caller's entry and exit, whatever order the one-per-call events arrive in (the
 * order in which the calls returned). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "line_order.h"

static int failures;

static char *line(const char *text) {
  char *s;
  if (asprintf(&s, "%s\n", text) < 0)
    abort();
  return s;
}

static void expect(const char *what, const char *got, const char *want) {
  if (strcmp(got, want) != 0) {
    fprintf(stderr, "FAIL: %s\n--- got:\n%s--- want:\n%s", what, got, want);
    failures++;
  } else {
    printf("ok: %s\n", what);
  }
}

int main(void) {
  char *text = NULL;
  size_t len = 0;

  /* Thread 1: outer [10, 100] with nested [20, 30]; thread 2: [40, 50]; a runtime event
   * at 60. Events arrive as the calls return: nested (31), thread 2 (51), the runtime
   * event, outer (101). */
  FILE *out = open_memstream(&text, &len);
  struct line_order *o = line_order_new(out);
  line_order_add_call(o, 1, 1, 20, line("t1 nested entry"), 31, line("t1 nested exit"));
  line_order_flush(o, 31);
  line_order_add_call(o, 2, 0, 40, line("t2 call entry"), 51, line("t2 call exit"));
  line_order_flush(o, 51);
  line_order_add(o, 60, line("t2 device command"));
  line_order_flush(o, 60);
  line_order_add_call(o, 1, 0, 10, line("t1 outer entry"), 101, line("t1 outer exit"));
  line_order_flush(o, 101);
  line_order_finish(o);
  fclose(out);
  expect("nested calls inside their caller, threads in time order", text,
         "t1 outer entry\nt1 nested entry\nt1 nested exit\nt2 call entry\nt2 call exit\n"
         "t2 device command\nt1 outer exit\n");
  free(text);

  /* Lines wait only as long as needed: with nothing in flight, a call's lines are out as
   * soon as the trace has passed them. */
  out = open_memstream(&text, &len);
  o = line_order_new(out);
  line_order_add_call(o, 1, 0, 5, line("a entry"), 7, line("a exit"));
  line_order_flush(o, 7);
  fflush(out);
  expect("lines printed as soon as nothing can precede them", text, "a entry\na exit\n");
  /* A nested call whose caller never returned (the process died in it) still prints. */
  line_order_add_call(o, 1, 1, 8, line("b entry"), 9, line("b exit"));
  line_order_flush(o, 9);
  fflush(out);
  expect("a nested call waits for its caller", text, "a entry\na exit\n");
  line_order_finish(o);
  fclose(out);
  expect("a nested call whose caller never returned is printed at the end", text,
         "a entry\na exit\nb entry\nb exit\n");
  free(text);
  return failures ? 1 : 0;
}
