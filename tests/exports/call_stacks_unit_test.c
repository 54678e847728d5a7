/* call_stacks (cli/exports/stacks/call_stacks.h) fed as the reader feeds it: calls when
 * they return (children first), regions when they close, minimal mode's batches late,
 * and what it hands out compared with the enters and leaves each case should give, in
 * order, per thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_stacks.h"
#include "tracer_backend_desc.h"

static const struct tracer_function_desc functions[] = {
    {.name = "P"}, {.name = "C1"}, {.name = "C2"}, {.name = "Q"}, {.name = "T"},
};
static const struct tracer_backend_desc desc = {.name = "test", .functions = functions,
                                                .function_count = 5};

static char log_text[4096];
static int failures;

static void note(const char *what, const struct stack_thread *t, const struct stack_frame *f,
                 uint64_t at) {
  size_t used = strlen(log_text);
  snprintf(log_text + used, sizeof log_text - used, "%s%ld:%s %s %llu", used ? ", " : "",
           (long)t->tid, what, f->name, (unsigned long long)at);
}

static int on_enter(void *context, struct stack_thread *t, const struct stack_frame *f,
                    const struct stack_frame *const *stack, size_t depth) {
  (void)context;
  (void)stack;
  (void)depth;
  note("E", t, f, f->start);
  return 0;
}

static int on_leave(void *context, struct stack_thread *t, const struct stack_frame *f,
                    const struct stack_frame *const *stack, size_t depth) {
  (void)context;
  (void)stack;
  (void)depth;
  note("L", t, f, f->end);
  return 0;
}

static struct trace_call call(int function, int64_t tid, uint64_t start, uint64_t end,
                              unsigned depth, bool batched) {
  return (struct trace_call){.from.host_name = "host", .desc = &desc, .function = function,
                             .pid = 1, .tid = tid, .depth = depth, .batched = batched,
                             .start_clock = start, .end_clock = end, .start = start,
                             .end = end, .duration_ns = end - start};
}

static struct trace_region region(const char *name, int64_t tid, uint64_t start, uint64_t end) {
  return (struct trace_region){.from.host_name = "host", .pid = 1, .tid = tid, .has_ids = true,
                               .backend = "itt", .name = name, .backend_len = 3,
                               .name_len = strlen(name), .start = start, .end = end,
                               .duration_ns = end - start};
}

/* One record of a case: a call, a region, or a horizon. */
struct record {
  char kind; /* 'c', 'r', 'h' */
  struct trace_call call;
  struct trace_region region;
  uint64_t horizon;
};

static void expect(const char *name, const char *want, const struct stack_counts *counts,
                   uint64_t cut, uint64_t orphans) {
  if (strcmp(log_text, want) != 0) {
    printf("FAIL %s:\n  got  %s\n  want %s\n", name, log_text, want);
    failures++;
  } else if (counts->cut != cut || counts->orphans != orphans || counts->late) {
    printf("FAIL %s: cut %llu (want %llu), orphans %llu (want %llu), late %llu\n", name,
           (unsigned long long)counts->cut, (unsigned long long)cut,
           (unsigned long long)counts->orphans, (unsigned long long)orphans,
           (unsigned long long)counts->late);
    failures++;
  } else {
    printf("ok %s\n", name);
  }
}

/* Feeds the records as a read would, again while call_stacks asks for another pass. */
static void run(const char *name, const struct record *records, size_t n, const char *want,
                uint64_t cut, uint64_t orphans, int passes_wanted) {
  struct stack_sink sink = {NULL, on_enter, on_leave, NULL};
  struct call_stacks *cs = call_stacks_open(&sink);
  int passes = 0, rc;
  do {
    log_text[0] = '\0';
    passes++;
    for (size_t i = 0; i < n; i++) {
      if (records[i].kind == 'c')
        rc = call_stacks_call(cs, &records[i].call, NULL);
      else if (records[i].kind == 'r')
        rc = call_stacks_region(cs, &records[i].region);
      else
        rc = call_stacks_horizon(cs, records[i].horizon);
      if (rc == 1)
        log_text[0] = '\0'; /* start over, as a consumer does */
    }
  } while ((rc = call_stacks_finish(cs)) == TRACE_READ_AGAIN && passes < 3);
  if (passes != passes_wanted) {
    printf("FAIL %s: %d passes, want %d\n", name, passes, passes_wanted);
    failures++;
  }
  expect(name, want, call_stacks_counts(cs), cut, orphans);
  call_stacks_close(cs);
}

#define C(...) {.kind = 'c', .call = call(__VA_ARGS__)}
#define R(...) {.kind = 'r', .region = region(__VA_ARGS__)}
#define H(at) {.kind = 'h', .horizon = (at)}

int main(void) {
  /* Children come before their parent; two threads interleave. */
  const struct record nesting[] = {
      C(1, 7, 10, 20, 1, false), C(3, 8, 12, 14, 0, false), C(2, 7, 30, 40, 1, false),
      C(0, 7, 5, 50, 0, false),  C(3, 7, 60, 70, 0, false),
  };
  run("nesting", nesting, 5,
      "8:E Q 12, 7:E P 5, 7:E C1 10, 7:L C1 20, 7:E C2 30, 7:L C2 40, 7:L P 50, 7:E Q 60, "
      "7:L Q 70, 8:L Q 14",
      0, 0, 1);

  /* A region closes after the calls inside it: a second pass hands them out inside it. */
  const struct record regions[] = {
      C(1, 7, 10, 20, 0, false), R("Step", 7, 5, 30), C(2, 7, 40, 50, 0, false),
  };
  run("regions", regions, 3, "7:E Step 5, 7:E C1 10, 7:L C1 20, 7:L Step 30, 7:E C2 40, 7:L C2 50",
      0, 0, 2);

  /* A scope recorded at its end around calls of its own depth (an OMPT target region). */
  const struct record scope[] = {
      C(1, 7, 10, 20, 0, false), C(2, 7, 30, 40, 0, false), C(4, 7, 5, 50, 0, false),
      C(3, 7, 60, 70, 0, false),
  };
  run("scope", scope, 4,
      "7:E T 5, 7:E C1 10, 7:L C1 20, 7:E C2 30, 7:L C2 40, 7:L T 50, 7:E Q 60, 7:L Q 70", 0, 0,
      2);

  /* Minimal mode: one backend's batch comes before an earlier call of another's; the
   * horizon holds the later call back. */
  const struct record batches[] = {
      C(2, 7, 30, 40, 0, true), H(25), C(1, 7, 10, 20, 0, true), H(60),
  };
  run("batches", batches, 4, "7:E C1 10, 7:L C1 20, 7:E C2 30, 7:L C2 40", 0, 0, 1);

  /* An NVTX start/end range ends inside the call that closes it: it ends where the call
   * begins. A region that outlives the call it opened in is cut at the call's end. */
  const struct record ranges[] = {
      R("range", 7, 5, 25), C(1, 7, 20, 30, 0, false), C(2, 7, 40, 60, 0, false),
      R("late", 7, 45, 70),
  };
  run("ranges", ranges, 4,
      "7:E range 5, 7:L range 20, 7:E C1 20, 7:L C1 30, 7:E C2 40, 7:E late 45, 7:L late 60, "
      "7:L C2 60",
      2, 0, 2);

  /* A call whose parent never comes goes at the end, as if it had none. */
  const struct record orphan[] = {C(1, 7, 10, 20, 1, false)};
  run("orphan", orphan, 1, "7:E C1 10, 7:L C1 20", 0, 1, 1);

  return failures ? 1 : 0;
}
