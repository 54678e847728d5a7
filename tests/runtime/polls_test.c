/* The runtime's side of polls (runtime/tracer_runtime.h, "Polls"), as the generated
 * wrappers drive it, on one thread and known values:
 * - a sampled poll reads no clock unless it is timed (its first, then one in 32 to 95);
 *   every poll that finds nothing is counted in its entry, at once or with the pending
 *   ones (at the next timed poll, at another status, when the entries are written) and
 *   folded into the next record; it leaves the trace's call budget alone, while one to be
 *   recorded spends a call;
 * - a completing poll that was timed takes its start from its span; one that was not
 *   takes its function's last timed span before its end, but never starts before the
 *   thread's last recorded call ended nor before the call it is made in started, nor
 *   after the first call recorded inside it started;
 * - the requests an array-completing call keeps (runtime/tracer_requests.h): the inline
 *   copy of 8-byte handles (Open MPI's) and 4-byte ones (MPICH's, sign-extended when
 *   signed), the first call of a larger array through the growing path.
 */
#include <inttypes.h>
#include <stdio.h>

#include "tracer_requests.h"
#include "tracer_runtime.h"
#include "expect.h"

static const char backend[] = "unit";
enum { POLL = 7, STATUS = 0, OTHER_STATUS = 3 };

/* The function's state on this thread, as an interposer's <backend>_poll_<function>. */
static __thread struct tracer_poll_state state;

/* One poll that found nothing, as the wrapper with its full event on makes it; whether it
 * was timed. */
static bool poll_found_nothing(int64_t status) {
  tracer_inflight_push(backend, POLL);
  bool timed = tracer_poll_timed(&state, backend, POLL, false);
  uint64_t start = tracer_poll_start(true, timed);
  uint64_t ticks = timed ? tracer_count_since(start) : 0;
  tracer_inflight_pop();
  tracer_poll_found_nothing(&state, true, status, timed, ticks);
  return timed;
}

/* The calls the thread's entry holds for the function and status, and the pending ones. */
static uint64_t counted(struct tracer_thread_calls *t, int64_t status) {
  uint64_t pending = state.status == status ? state.pending : 0;
  return tracer_count_entry(t, backend, POLL, status, false)->calls + pending;
}

static void count_tests(struct tracer_thread_calls *t) {
  unsigned unspent = t->unspent;
  expect_u64("the first poll is timed", poll_found_nothing(STATUS), 1);
  expect_u64("its state is in the thread's record",
             state.registered && t->poll_count == 1 && t->polls[0] == &state, 1);
  uint64_t timed = 1;
  for (int i = 1; i < 1000; i++)
    timed += poll_found_nothing(STATUS);
  expect_u64("every poll counted", counted(t, STATUS), 1000);
  expect_u64("every poll folded", state.folded, 1000);
  expect_u64("one in 32 to 95 timed", timed >= 1000 / 95 && timed <= 1000 / 32 + 1, 1);
  expect_u64("the entry's timed calls", tracer_count_entry(t, backend, POLL, STATUS, false)->timed,
             timed);
  expect_u64("at most 94 pending", state.pending <= 94, 1);
  expect_u64("polls that found nothing spend no budget", t->unspent, unspent);
  /* Another status: the pending ones join their entry first. */
  poll_found_nothing(OTHER_STATUS);
  expect_u64("the first status's polls all in its entry",
             tracer_count_entry(t, backend, POLL, STATUS, false)->calls, 1000);
  expect_u64("the other status counted", counted(t, OTHER_STATUS), 1);
  for (int i = 0; i < 40; i++)
    poll_found_nothing(OTHER_STATUS);
  expect_u64("the record takes what it folded", tracer_poll_take(&state), 1041);
  expect_u64("and folding starts anew", state.folded, 0);
  /* Writing the thread's entries (its end, the process's exit) takes the pending polls. */
  tracer_counted_write_all(t);
  expect_u64("nothing pending once written", state.pending, 0);
  expect_u64("the entries emptied", counted(t, STATUS) + counted(t, OTHER_STATUS), 0);
  tracer_inflight_spend();
  expect_u64("a poll to be recorded spends one call", t->unspent,
             (unspent + 1) % TRACER_LIMIT_SPEND_BATCH);
}

/* A poll that was not timed, started now and ended at `end`: its estimated start. */
static uint64_t estimate(uint64_t end) {
  unsigned depth = tracer_inflight_push(backend, POLL);
  tracer_inflight_poll_started(depth);
  tracer_inflight_pop();
  return tracer_poll_estimated_start(backend, POLL, end);
}

static void start_tests(void) {
  struct tracer_thread_calls *t = tracer_thread_calls_register();
  expect_u64("the thread has a record", t != NULL, 1);
  if (!t)
    return;
  expect_u64("a counted poll not timed reads no clock", tracer_poll_start(true, false), 0);
  count_tests(t);
  /* A timed poll of 1000 ticks: the span an estimate takes. */
  tracer_poll_count(&state, STATUS, true, 1000);

  uint64_t span = tracer_count_ticks_to_trace(1000);
  uint64_t end = 50000000000u;
  /* Timed: its start is its end less its own span. */
  uint64_t start = 0;
  uint64_t ticks = 400;
  (void)tracer_poll_times(true, true, ticks, &start, backend, POLL);
  uint64_t now = tracer_now();
  expect_u64("a timed poll's span is kept whole",
             start <= now && now - start >= tracer_count_ticks_to_trace(ticks), 1);

  /* Not timed, the thread's last call long before: the last timed span. */
  tracer_call_ended(0, 0, end - 10 * span);
  expect_u64("estimated from the last timed span", estimate(end), end - span);
  /* The thread's last call ended within that span: the poll starts there, not before. */
  tracer_call_ended(0, 0, end - span / 2);
  expect_u64("just after the thread's last call ended", estimate(end), end - span / 2 + 1);
  /* Made inside a call that started later still: not before that call started. */
  tracer_call_ended(0, 0, end - 10 * span);
  unsigned outer = tracer_inflight_push("other", 1);
  tracer_inflight_started(outer, end - span / 4);
  expect_u64("just after the call it is made in started", estimate(end), end - span / 4 + 1);
  tracer_inflight_pop();
  /* Calls recorded inside it (a runtime's poll calling its driver's): it starts no later
   * than the first of them, around them. */
  tracer_call_ended(0, 0, end - 10 * span);
  unsigned poll = tracer_inflight_push(backend, POLL);
  tracer_inflight_poll_started(poll);
  for (uint64_t i = 3; i >= 2; i--) { /* two, starting 3 and 2 spans before the end */
    unsigned inner = tracer_inflight_push("driver", 2);
    tracer_inflight_started(inner, end - i * span);
    tracer_inflight_pop();
    tracer_call_ended(inner, end - i * span, end - i * span + span / 2);
  }
  tracer_inflight_pop();
  expect_u64("around the calls recorded inside it", tracer_poll_estimated_start(backend, POLL, end),
             end - 3 * span - 1);
  /* A last call that ended after the poll's end (another CPU's clock): no later than it. */
  tracer_call_ended(0, 0, end + 5);
  expect_u64("never after its end", estimate(end), end);
}

static void requests_tests(void) {
  /* Three 8-byte handles first: the kept arrays grow (the out-of-line path). */
  uint64_t wide[3] = {0x1000, 0x2000, UINT64_C(0xfffffffffffffff0)};
  tracer_requests_before(wide, sizeof *wide, false, 3);
  expect_u64("kept: count", (uint64_t)tracer_requests_kept.count, 3);
  expect_u64("kept: third", tracer_requests_kept.values[2], UINT64_C(0xfffffffffffffff0));
  /* One, inline, as MPI_Testany(1, ...) polls. */
  uint64_t one = 0x3000;
  tracer_requests_before(&one, sizeof one, false, 1);
  expect_u64("inline: count", (uint64_t)tracer_requests_kept.count, 1);
  expect_u64("inline: value", tracer_requests_kept.values[0], 0x3000);
  /* MPICH's int handles: signed ones sign-extended, as the records hold them. */
  int32_t narrow[2] = {-1, 0x2c000000};
  tracer_requests_before(narrow, sizeof *narrow, true, 2);
  expect_u64("signed: first", tracer_requests_kept.values[0], UINT64_MAX);
  expect_u64("signed: second", tracer_requests_kept.values[1], 0x2c000000);
  tracer_requests_before(narrow, sizeof *narrow, false, 2);
  expect_u64("unsigned: first", tracer_requests_kept.values[0], 0xffffffffu);
  /* None: nothing kept, so that the call's end completes nothing. */
  tracer_requests_before(NULL, 8, false, 2);
  expect_u64("no array", (uint64_t)tracer_requests_kept.count, 0);
  tracer_requests_before(wide, sizeof *wide, false, 0);
  expect_u64("an empty array", (uint64_t)tracer_requests_kept.count, 0);
}

int main(void) {
  start_tests();
  requests_tests();
  if (failures) {
    fprintf(stderr, "%d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("PASS: polls_unit (%d checks)\n", checks);
  return 0;
}
