/* Counted functions (tracer_runtime.h: struct tracer_counted): writing a thread's entries
 * as lttng_ust_tracer:counted events. The entries live in the thread's record of calls in
 * flight, so they are written on the same occasions as its unfinished calls: when the
 * thread ends, when the process exits, when it dies of a fatal signal (tracer_runtime.c). */
#include <stdlib.h>
#include <string.h>

#include "tracer_clock.h"
#include "tracer_runtime.h"
#include "tracer_tracepoints.h"

bool tracer_counting = true;
bool tracer_count_on_tsc;

/* Counting on the TSC while the trace clock is CLOCK_MONOTONIC: a (TSC, raw ns) pair read
 * when counting began, with a pair read at each write, gives the TSC's rate; what one
 * read of either clock costs (ns), for the conversion below. */
static uint64_t start_tsc, start_raw_ns;
static double tsc_read_ns, trace_read_ns;
/* What a counted call costs on average, in ps (the clock_read event's). */
static uint64_t counted_call_ps;

static uint64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One read of the counting clock, in ns: the time of 1,024 reads in a row, the least of
 * 8 tries. */
static double measure_count_read_ns(void) {
  double best = 1e9;
  for (int attempt = 0; attempt < 8; attempt++) {
    volatile uint64_t sink = 0;
    uint64_t before = monotonic_ns();
    for (int i = 0; i < 1024; i++)
      sink += tracer_count_now();
    double each = (double)(monotonic_ns() - before) / 1024;
    best = each < best ? each : best;
  }
  return best;
}

static void __attribute__((noinline)) empty_getter(void) { __asm__ volatile(""); }
static void (*volatile getter)(void) = empty_getter;

/* A counted call's cost, in ns: 4,096 calls of an empty function as the interposers count
 * them, on a thread record of its own (so nothing is written), less the same calls bare;
 * the least of 8 tries. */
static double measure_counted_call_ns(void) {
  static struct tracer_thread_calls scratch;
  double best = 1e9;
  for (int attempt = 0; attempt < 8; attempt++) {
    memset(&scratch, 0, sizeof scratch);
    uint64_t t0 = monotonic_ns();
    for (int i = 0; i < 4096; i++)
      getter();
    uint64_t t1 = monotonic_ns();
    for (int i = 0; i < 4096; i++) {
      bool timed = tracer_count_timed_on(&scratch, "calibration", 0);
      uint64_t start = timed ? tracer_count_now() : 0;
      getter();
      uint64_t ticks = timed ? tracer_count_since(start) : 0;
      tracer_count_call_on(&scratch, "calibration", 0, 0, timed, ticks);
    }
    uint64_t t2 = monotonic_ns();
    double each = ((double)(t2 - t1) - (double)(t1 - t0)) / 4096;
    best = each < best ? each : best;
  }
  return best > 0 ? best : 0;
}

void tracer_counted_init(uint64_t trace_read_cost) {
  const char *every = getenv("TRACER_EVERY_CALL");
  tracer_counting = !(every && *every && strcmp(every, "0") != 0);
  tracer_count_on_tsc = !tracer_clock_is_tsc && tracer_clock_tsc_usable(NULL);
  if (tracer_count_on_tsc)
    tracer_clock_tsc_pair(&start_tsc, &start_raw_ns);
  counted_call_ps = (uint64_t)(measure_counted_call_ns() * 1000 + 0.5);
  if (!tracer_count_on_tsc)
    return;
  tsc_read_ns = measure_count_read_ns();
  trace_read_ns = (double)trace_read_cost; /* the trace clock is in ns here */
  tracer_debug("counted calls timed on the TSC: %.1f ns a read, against %.1f ns", tsc_read_ns,
               trace_read_ns);
}

uint64_t tracer_counted_call_ps(void) { return counted_call_ps; }

/* Entry times in TSC ticks to ns, the trace clock's unit. The analyses take one trace
 * clock read off every call (tally.c: take_off_clock_reads), while these spans hold one
 * TSC read: each call gets the difference, so that what remains is the call's own time. */
static double ns_per_tick_now(void) {
  uint64_t tsc, raw_ns;
  tracer_clock_tsc_pair(&tsc, &raw_ns);
  /* Two pairs, each to ~20 ns: after a millisecond of counting, the rate to 1 part in
   * 10^4 or better, plenty for durations of nanoseconds. */
  return tsc > start_tsc && raw_ns > start_raw_ns
             ? (double)(raw_ns - start_raw_ns) / (double)(tsc - start_tsc)
             : 1.0;
}

static void tsc_to_trace_clock(uint64_t calls, double *total, uint64_t *min, uint64_t *max) {
  double ns_per_tick = ns_per_tick_now();
  double extra = trace_read_ns > tsc_read_ns ? trace_read_ns - tsc_read_ns : 0;
  *total = *total * ns_per_tick + (double)calls * extra;
  *min = (uint64_t)((double)*min * ns_per_tick + extra + 0.5);
  *max = (uint64_t)((double)*max * ns_per_tick + extra + 0.5);
}

/* The rate is taken again at most every 2^24 ticks (some 7 ms): a pair of reads costs
 * about a microsecond, and a loop of polls may complete thousands of times a second.
 * Threads that race both store a good rate. */
enum { RATE_TICKS = 1 << 24 };
static uint64_t rate_bits, rate_tsc; /* the double's bits; the TSC it was taken at */

uint64_t tracer_count_ticks_to_trace(uint64_t ticks) {
  if (!tracer_count_on_tsc)
    return ticks;
  uint64_t now = tracer_count_now(); /* the TSC here */
  uint64_t bits = __atomic_load_n(&rate_bits, __ATOMIC_RELAXED);
  double ns_per_tick;
  if (!bits || now - __atomic_load_n(&rate_tsc, __ATOMIC_RELAXED) > RATE_TICKS) {
    ns_per_tick = ns_per_tick_now();
    memcpy(&bits, &ns_per_tick, sizeof bits);
    __atomic_store_n(&rate_bits, bits, __ATOMIC_RELAXED);
    __atomic_store_n(&rate_tsc, now, __ATOMIC_RELAXED);
  } else {
    memcpy(&ns_per_tick, &bits, sizeof bits);
  }
  return (uint64_t)((double)ticks * ns_per_tick + 0.5);
}

/* Safe in a signal handler: tracepoints and the clock reads are. The entry is emptied
 * first, so that a second writer (the exit path racing the thread's own end) finds
 * nothing to write. The event's total is for all the entry's calls: its timed calls'
 * total, scaled. An entry none of whose calls was timed (a status its function rarely
 * returns) takes its function's last timed call on the thread for each of its calls. */
void tracer_counted_write(struct tracer_thread_calls *t, struct tracer_counted *c) {
  uint64_t calls = c->calls;
  if (!calls)
    return;
  c->calls = 0;
  uint64_t timed = c->timed, min = c->min, max = c->max;
  double total = (double)c->total;
  if (!timed) {
    uint64_t last = tracer_count_sampler_of(t, c->backend, c->function)->last_ticks;
    timed = 1, total = (double)last, min = max = last;
  }
  if (tracer_count_on_tsc && !c->on_trace_clock)
    tsc_to_trace_clock(timed, &total, &min, &max);
  total = total * (double)calls / (double)timed;
  /* The function's index, with the depth's flag for calls made inside another backend's
   * (docs/trace-format.md). */
  uint16_t function = (uint16_t)(c->function | (c->inside_other ? TRACER_RECORD_INSIDE_OTHER : 0));
  lttng_ust_tracepoint(lttng_ust_tracer, counted, tracer_pid(), t->tid, c->backend, function,
                       c->status, calls, (uint64_t)(total + 0.5), min, max);
}

/* The state's pending polls, added to the thread's entry for their function and status
 * as calls not timed. */
static void add_pending(struct tracer_thread_calls *t, struct tracer_poll_state *p) {
  uint64_t n = p->pending;
  if (!n)
    return;
  p->pending = 0;
  struct tracer_counted *c = tracer_count_entry(t, p->backend, p->function, p->status, false);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  c->calls += n;
  if (c->calls >= TRACER_COUNTED_FLUSH)
    tracer_counted_write(t, c);
}

bool tracer_poll_draw(struct tracer_poll_state *p, const char *backend, uint16_t function) {
  struct tracer_thread_calls *t = tracer_thread_calls;
  if (!t && !(t = tracer_thread_calls_register()))
    return true;
  if (!p->registered) {
    p->backend = backend, p->function = function;
    if (t->poll_count < TRACER_POLL_STATES) {
      t->polls[t->poll_count] = p;
      __atomic_signal_fence(__ATOMIC_SEQ_CST); /* a signal handler sees the state whole */
      t->poll_count++;
      p->registered = true;
    }
  }
  t->sample_draw = t->sample_draw * 1664525u + 1013904223u;
  p->countdown = (uint8_t)(TRACER_POLL_PERIOD / 2 - 1 + (t->sample_draw >> 26));
  return true;
}

void tracer_poll_count(struct tracer_poll_state *p, int64_t status, bool timed, uint64_t ticks) {
  struct tracer_thread_calls *t = tracer_thread_calls;
  if (!t && !(t = tracer_thread_calls_register()))
    return;
  add_pending(t, p);
  p->status = status;
  tracer_count_call_on(t, p->backend, p->function, status, timed, ticks);
}

void tracer_counted_write_all(struct tracer_thread_calls *t) {
  for (unsigned i = 0; i < t->poll_count && i < TRACER_POLL_STATES; i++)
    add_pending(t, t->polls[i]);
  for (unsigned i = 0; i < TRACER_COUNTED_SLOTS; i++)
    tracer_counted_write(t, &t->counted[i]);
}

/* A completing poll whose start no clock read: the end less its function's last timed
 * span on the thread (the polls' span, which a completing call exceeds by what completing
 * costs); then clamped, so that the record keeps the thread's order and nesting: after
 * the thread's last recorded call before it (its inflight entry's start,
 * tracer_inflight_poll_started), inside the call it is made in, and around the calls
 * recorded inside it: no later than the first of them started. */
uint64_t tracer_poll_estimated_start(const char *backend, uint16_t function, uint64_t end) {
  struct tracer_thread_calls *t = tracer_thread_calls;
  if (!t)
    return end;
  unsigned depth = t->depth; /* the poll's own call was popped: depth is its */
  if (depth >= TRACER_INFLIGHT_DEPTH)
    return end;
  uint64_t earliest = t->calls[depth].start;
  uint64_t inner = t->calls[depth].inner_start; /* 0: no call recorded inside it */
  if (depth > 0 && t->calls[depth - 1].start > earliest)
    earliest = t->calls[depth - 1].start;
  uint64_t span =
      tracer_count_ticks_to_trace(tracer_count_sampler_of(t, backend, function)->last_ticks);
  uint64_t start = span < end ? end - span : 0;
  if (inner && start >= inner) /* before it, not at it */
    start = inner - 1;
  if (start <= earliest && earliest) /* after it, not at it: ties break readers' order */
    start = earliest + 1;
  return start < end ? start : end;
}
