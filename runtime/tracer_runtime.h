/* tracer_runtime: the backend-agnostic code the generated interposers and the backend
 * hooks use inside the traced application.
 *
 * Everything here is safe to call from any thread; nothing prints unless TRACER_DEBUG is
 * set in the environment. Symbols exported by the runtime start with tracer_.
 */
#ifndef TRACER_RUNTIME_H
#define TRACER_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "tracer_call_batch.h"
#include "tracer_device.h"
#include "tracer_limit.h"
#include "tracer_record.h"
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

/* Full mode records arrays and struct contents; these caps keep a wrong length or a huge
 * buffer from flooding the trace. */
#define TRACER_MAX_ELEMENTS ((size_t)4096)
#define TRACER_MAX_BYTES ((size_t)65536)

static inline size_t tracer_clamp(size_t n, size_t max) { return n < max ? n : max; }

/* Full mode's count of the chars of a `char` buffer of length n. A length negative as a
 * signed number counts no bytes: many C APIs take -1 for "up to the NUL" (sqlite's nByte,
 * ITT's metadata), so the string up to its NUL is taken, never TRACER_MAX_ELEMENTS bytes
 * of whatever follows it. */
static inline size_t tracer_buffer_count(const char *s, size_t n) {
  if (!s)
    return 0;
  if ((ptrdiff_t)n >= 0)
    return tracer_clamp(n, TRACER_MAX_ELEMENTS);
  const char *nul = memchr(s, 0, TRACER_MAX_ELEMENTS);
  return nul ? (size_t)(nul - s) : TRACER_MAX_ELEMENTS;
}

/* The length of a string of at most n chars (-1: no bound but the NUL): it ends at its
 * NUL or after n chars, which need not be followed by one. */
static inline size_t tracer_string_count(const char *s, size_t n) {
  if (!s)
    return 0;
  size_t max = (ptrdiff_t)n < 0 ? TRACER_MAX_BYTES : tracer_clamp(n, TRACER_MAX_BYTES);
  const char *nul = memchr(s, 0, max);
  return nul ? (size_t)(nul - s) : max;
}

/* The trace clock (tracer_clock.h): CLOCK_MONOTONIC in nanoseconds, LTTng-UST's default,
 * or the TSC when LTTng loaded the tracer's clock plugin; tracer_clock_is_tsc is set
 * before any interposer runs. A plain RDTSC, as LTTng's own reads through the plugin
 * (runtime/tracer_clock_plugin.c says why that is enough). */
extern bool tracer_clock_is_tsc;
static inline uint64_t tracer_now(void) {
#if defined(__x86_64__) || defined(__i386__)
  if (tracer_clock_is_tsc)
    return __rdtsc();
#endif
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The clock counted calls are timed on (tracer_count_call). A counted function is a getter
 * of some 10 ns that PyTorch calls about 570 times a training step, so the two reads
 * around it are nearly all that tracing it costs: where the trace clock is CLOCK_MONOTONIC
 * and the TSC could be the trace clock (tracer_clock_tsc_usable: invariant, the kernel's
 * clocksource), they are TSC reads, about 10 ns against 25 to 40 for clock_gettime on a
 * KVM guest. Only durations are taken on it; tracer_counted_write converts them to the
 * trace clock's units. Set before any interposer runs. */
extern bool tracer_count_on_tsc;
static inline uint64_t tracer_count_now(void) {
#if defined(__x86_64__) || defined(__i386__)
  if (tracer_count_on_tsc)
    return __rdtsc();
#endif
  return tracer_now();
}
/* Ticks of tracer_count_now() since start: none rather than a wrap-around, should the
 * thread have moved to a CPU whose counter lags. */
static inline uint64_t tracer_count_since(uint64_t start) {
  uint64_t end = tracer_count_now();
  return end > start ? end - start : 0;
}

/* The process and thread ids every event carries in its payload. LTTng's vpid and vtid
 * contexts cost about 30 ns an event here (a callback per field); these are cached reads.
 * The caches are reset in a fork child. */
extern int32_t tracer_cached_pid;
extern __thread int32_t tracer_cached_tid __attribute__((tls_model("initial-exec")));
int32_t tracer_pid_slow(void);
int32_t tracer_tid_slow(void);
static inline int32_t tracer_pid(void) {
  int32_t pid = tracer_cached_pid;
  return pid ? pid : tracer_pid_slow();
}
static inline int32_t tracer_tid(void) {
  int32_t tid = tracer_cached_tid;
  return tid ? tid : tracer_tid_slow();
}

/* The record of a call (tracer_record.h): its ids slot. */
static inline uint64_t tracer_record_ids(void) {
  return tracer_record_pack_ids(tracer_pid(), tracer_tid());
}

/* A value's bits in a slot: integers sign- or zero-extended as C converts them,
 * floating-point values by their bits. */
static inline uint64_t tracer_slot_float(float value) {
  uint32_t bits;
  __builtin_memcpy(&bits, &value, sizeof bits);
  return bits;
}
static inline uint64_t tracer_slot_double(double value) {
  uint64_t bits;
  __builtin_memcpy(&bits, &value, sizeof bits);
  return bits;
}

/* Converts a CLOCK_MONOTONIC_RAW time (what PoCL's device timestamps are) to the trace
 * clock, by sampling both clocks now (and, for the TSC, the rate since the runtime
 * started). */
uint64_t tracer_clock_raw_to_trace(uint64_t raw_ns);
/* A command's start and end, both by one sampling: each end converted alone carries its
 * own sampling's error (up to half a microsecond, more on a loaded machine), which would
 * change the command's duration. */
void tracer_clock_raw_span_to_trace(uint64_t *start, uint64_t *end);

/* Looks up symbol in library (a soname, opened without loading it twice) and stores it in
 * *slot. A symbol that cannot be found is fatal: the message names both, then abort(). */
void *tracer_resolve(const char *library, const char *symbol, void **slot);

/* The executable code of one loaded object (an ELF file mapped in the process). */
struct tracer_code {
  uintptr_t lo[4], hi[4];
  int count;
};

/* Fills code with the executable segments of the object that contains address; leaves
 * it empty when none does. */
void tracer_code_of(const void *address, struct tracer_code *code);

static inline bool tracer_code_contains(const struct tracer_code *code, const void *address) {
  uintptr_t a = (uintptr_t)address;
  for (int i = 0; i < code->count; i++)
    if (a >= code->lo[i] && a < code->hi[i])
      return true;
  return false;
}

/* The library when the process has already loaded it, else NULL; never loads it. Used to
 * resolve every function when the interposer loads, so no first call (from a signal
 * handler, say) has to call dlopen. */
void *tracer_loaded_library(const char *library);
/* dlsym(handle, symbol) stored in *slot; a missing symbol leaves *slot NULL (the first
 * call then reports it through tracer_resolve). */
void tracer_resolve_from(void *handle, const char *symbol, void **slot);

/* Calls in flight: their depth goes into every call's record, and when the process exits
 * or dies of a fatal signal, every thread's open calls are written as
 * lttng_ust_tracer:unfinished (they never reach their own event). A thread keeps its own
 * stack (no lock: only the owner writes it). */
struct tracer_inflight {
  const char *backend;
  uint16_t function;
  uint64_t start;
  uint64_t inner_start; /* a sampled poll's: the start of the first call recorded inside
                           it (0: none yet; tracer_inflight_poll_started) */
  uint64_t stack;       /* a submission's stack (runtime/stacks/tracer_stacks.h); 0: none */
};
enum { TRACER_INFLIGHT_DEPTH = 32 };
/* Calls of a function the spec marks `counted` (trace.counted: getters an app calls
 * hundreds of times a step, such as cudaGetDevice) are not one event each: the thread
 * adds each call to an entry per function and status, written as one
 * lttng_ust_tracer:counted event when the entry reaches TRACER_COUNTED_FLUSH calls, when
 * the thread ends, when the process exits or dies of a fatal signal (tracer_counted.c).
 * Every call is counted; about one in TRACER_COUNTED_PERIOD of a function's calls on a
 * thread, its first among them, is timed, since two clock reads would cost more than the
 * getter itself (tracer_count_timed). The entry's total is its timed calls' scaled to all
 * its calls. The calls are in the tallies, not in -t or the timeline. */
struct tracer_counted {
  const char *backend;
  uint16_t function;
  bool on_trace_clock; /* times on the trace clock: a poll's (tracer_count_poll) or a call
                        * counted past the trace's bound (tracer_count_span) */
  bool inside_other;   /* made inside a call of another backend (tracer_record.h) */
  int64_t status;
  uint64_t calls, timed;    /* calls, and how many of them were timed */
  uint64_t total, min, max; /* of the timed calls: ticks of tracer_count_now() */
};
enum {
  TRACER_COUNTED_SLOTS = 32,
  TRACER_COUNTED_FLUSH = 1 << 16,
  TRACER_COUNTED_PERIOD = 16,
  TRACER_POLL_PERIOD = 64, /* a poll's (tracer_poll_timed): at one in 16, its TSC reads
                              cost 2 ns a poll, an eighth of a 15 ns MPI_Test */
  TRACER_COUNTED_SAMPLERS = 64,
};
/* When a function's next call is timed, by function (hashed): calls left until then,
 * and the ticks of its last timed call, for an entry none of whose calls was timed. */
struct tracer_count_sampler {
  uint8_t countdown;
  uint64_t last_ticks;
};
/* A sampled poll's state on one thread, one per function: the interposer's initial-exec
 * TLS (<backend>_poll_<function>), so that a poll that found nothing looks nothing up and
 * touches one cache line. Its polls that found nothing join the thread's entry for the
 * function (tracer_counted) a batch at a time: at its next timed poll, 32 to 95 polls
 * later, at another status, and whenever the thread's entries are written
 * (tracer_counted_write_all), which the state's place in the thread's record allows. */
struct tracer_poll_state {
  const char *backend;
  uint16_t function;
  uint8_t countdown; /* polls until the next timed one (about TRACER_POLL_PERIOD apart) */
  bool registered;   /* in the thread's record (tracer_thread_calls.polls) */
  int64_t status;    /* the pending polls' */
  uint64_t pending;  /* polls that found nothing, not yet in the thread's entry */
  uint64_t folded;   /* polls since the thread's last record of the function, which that
                        record's `polls` slot takes (tracer_poll_take) */
};
enum { TRACER_POLL_STATES = 16 };
struct tracer_thread_calls {
  struct tracer_inflight calls[TRACER_INFLIGHT_DEPTH];
  volatile unsigned depth; /* may exceed the array: deeper calls are not kept */
  struct tracer_counted counted[TRACER_COUNTED_SLOTS]; /* owner-written; open addressing */
  struct tracer_count_sampler samplers[TRACER_COUNTED_SAMPLERS];
  uint32_t sample_draw; /* a linear congruential sequence: the intervals between timed calls */
  struct tracer_call_batch batches[TRACER_BATCH_BACKENDS]; /* minimal mode's, by backend */
  int tid;
  struct tracer_thread_calls *next; /* in the process-wide list; never removed */
  volatile int alive;
  unsigned unspent;  /* recorded calls not yet added to the trace's call budget */
  uint64_t last_end; /* the trace clock at the end of its last recorded call (tracer_call_ended) */
  struct tracer_poll_state *polls[TRACER_POLL_STATES]; /* its sampled polls' states */
  unsigned poll_count;
};
struct tracer_thread_calls *tracer_thread_calls_register(void);
/* Writes what every thread of the process has not written yet: its calls in flight (as
 * unfinished, after which the thread is at depth 0), its counted entries and minimal
 * mode's batches. For a process about to end: at exit, and from the handler of a signal
 * that ends it (tracer_signals.h); safe there (tracepoints are). */
void tracer_write_pending(void);
extern __thread struct tracer_thread_calls *tracer_thread_calls
    __attribute__((tls_model("initial-exec")));

/* Whether a call is made inside a traced call of another backend, by that call's library
 * for its own ends (hwloc's OpenCL probe inside MPI_Init, the CUDA runtime's driver calls):
 * the backends' names differ (the pointers first: a backend's calls share one string). */
static inline bool tracer_other_backend(const char *parent, const char *backend) {
  return parent && parent != backend && __builtin_strcmp(parent, backend) != 0;
}

/* Opens a call: returns the number of calls the thread was already in (its depth), with
 * TRACER_RECORD_INSIDE_OTHER when the call it is made in is another backend's
 * (tracer_record.h: the record says so, and the reports leave such calls out of the app's
 * own); every function that takes the depth masks the flag off. The start is filled in by
 * tracer_inflight_started() once read, right before the real call. These three are on the
 * path of every traced call, polls included: always inlined (GCC left them out of line
 * in the larger wrappers, MPI_Testany's among them). */
__attribute__((always_inline)) static inline unsigned tracer_inflight_push(const char *backend,
                                                                           uint16_t function) {
  struct tracer_thread_calls *t = tracer_thread_calls;
  if (!t && !(t = tracer_thread_calls_register()))
    return 0;
  unsigned d = t->depth;
  unsigned inside =
      d && d <= TRACER_INFLIGHT_DEPTH && tracer_other_backend(t->calls[d - 1].backend, backend)
          ? TRACER_RECORD_INSIDE_OTHER
          : 0;
  if (d < TRACER_INFLIGHT_DEPTH) {
    t->calls[d].backend = backend;
    t->calls[d].function = function;
    t->calls[d].start = 0;
    t->calls[d].stack = 0;
  }
  __atomic_signal_fence(__ATOMIC_SEQ_CST); /* a signal handler sees the entry complete */
  t->depth = d + 1;
  return d | inside;
}

/* Adds calls to the trace's call budget (tracer_limit.h); the last to spend it makes
 * every process count from then on. */
void tracer_limit_spend(unsigned calls);
/* Adds this process's clock read cost to the limit file's least (tracer_limit.h). */
void tracer_limit_note_clock_read(uint64_t cost);

/* A call to be recorded has started: its start is kept, and the call goes to the budget,
 * a batch at a time. */
__attribute__((always_inline)) static inline void tracer_inflight_started(unsigned depth,
                                                                          uint64_t start) {
  struct tracer_thread_calls *t = tracer_thread_calls;
  if (!t)
    return;
  depth &= TRACER_RECORD_DEPTH_MASK;
  if (depth < TRACER_INFLIGHT_DEPTH)
    t->calls[depth].start = start;
  if (++t->unspent >= TRACER_LIMIT_SPEND_BATCH) {
    t->unspent = 0;
    tracer_limit_spend(TRACER_LIMIT_SPEND_BATCH);
  }
}

/* A sampled poll found something and is to be recorded: it goes to the budget now (one
 * that found nothing never does: tracer_inflight_started is not on its path). */
__attribute__((always_inline)) static inline void tracer_inflight_spend(void) {
  tracer_inflight_started(TRACER_INFLIGHT_DEPTH, 0);
}

__attribute__((always_inline)) static inline void tracer_inflight_pop(void) {
  struct tracer_thread_calls *t = tracer_thread_calls;
  if (t && t->depth)
    t->depth--;
}

/* A sampled poll whose start is not read: its entry holds the end of the thread's last
 * recorded call, which its start does not precede, for tracer_poll_estimated_start and
 * for the polls made inside it (a crash inside it writes that as its start). */
__attribute__((always_inline)) static inline void tracer_inflight_poll_started(unsigned depth) {
  struct tracer_thread_calls *t = tracer_thread_calls;
  depth &= TRACER_RECORD_DEPTH_MASK;
  if (t && depth < TRACER_INFLIGHT_DEPTH) {
    t->calls[depth].start = t->last_end;
    t->calls[depth].inner_start = 0; /* only a poll's is read: other calls leave it be */
  }
}

/* A call to be recorded, made at `depth`, ran from `start` to `end` (the trace clock): its
 * end kept as the thread's last, which a sampled poll's estimated start does not precede,
 * and its start as the first inside the call it is made in, should that be such a poll
 * (tracer_poll_estimated_start). */
static inline void tracer_call_ended_on(struct tracer_thread_calls *t, unsigned depth,
                                        uint64_t start, uint64_t end) {
  depth &= TRACER_RECORD_DEPTH_MASK;
  t->last_end = end;
  if (depth > 0 && depth <= TRACER_INFLIGHT_DEPTH && !t->calls[depth - 1].inner_start)
    t->calls[depth - 1].inner_start = start;
}
static inline void tracer_call_ended(unsigned depth, uint64_t start, uint64_t end) {
  struct tracer_thread_calls *t = tracer_thread_calls;
  if (t)
    tracer_call_ended_on(t, depth, start, end);
}

/* Minimal mode: adds a finished call to the thread's batch of its backend (the index
 * tracer_batch_register() gave it), written as one event when full
 * (tracer_call_batch.h). Without a batch (an unregistered thread or backend), the call
 * is written at once, as a batch of one, through `write`. */
static inline void tracer_batch_call(int backend, tracer_batch_writer *write, uint64_t start,
                                     uint64_t end, uint64_t call) {
  struct tracer_thread_calls *t = tracer_thread_calls;
  if (!t)
    t = tracer_thread_calls_register();
  if (t && backend >= 0 && backend < TRACER_BATCH_BACKENDS) {
    struct tracer_call_batch *b = &t->batches[backend];
    unsigned n = b->count;
    if (n >= TRACER_BATCH_CALLS) { /* left full by a write that raced the exit path */
      tracer_batch_write(t, backend);
      n = b->count = 0;
    }
    uint64_t *record = &b->slots[1 + TRACER_BATCH_CALL_SLOTS * n];
    record[0] = start;
    record[1] = end;
    record[2] = call;
    tracer_call_ended_on(t, tracer_record_depth(call), start, end);
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* a signal handler sees the record whole */
    b->count = ++n;
    if (n == TRACER_BATCH_CALLS)
      tracer_batch_write(t, backend);
    return;
  }
  uint64_t one[1 + TRACER_BATCH_CALL_SLOTS] = {tracer_record_ids(), start, end, call};
  write(one, 1 + TRACER_BATCH_CALL_SLOTS);
}

/* Counting is on unless the tracer asked for an event per call (TRACER_EVERY_CALL=1,
 * `tracer --every-call`), read once when the runtime loads. */
extern bool tracer_counting;
void tracer_counted_write(struct tracer_thread_calls *t, struct tracer_counted *c);
void tracer_counted_write_all(struct tracer_thread_calls *t);

/* Chooses the counting clock and measures what its reads cost; trace_read_cost is one
 * trace clock read's (tracer_clock_read_cost). Called once, by the runtime's constructor,
 * after the trace clock is known. */
void tracer_counted_init(uint64_t trace_read_cost);
/* What a counted call costs on average, as the interposers make it (its entry, and two
 * clock reads for one call in TRACER_COUNTED_PERIOD), in picoseconds, measured when the
 * runtime starts: the clock_read event carries it, for the cost of tracing. */
uint64_t tracer_counted_call_ps(void);

static inline struct tracer_count_sampler *
tracer_count_sampler_of(struct tracer_thread_calls *t, const char *backend, uint16_t function) {
  unsigned h = ((unsigned)function * 2654435761u) ^ (unsigned)((uintptr_t)backend >> 4);
  return &t->samplers[h % TRACER_COUNTED_SAMPLERS];
}

/* Whether this call of a counted function is one to time: the first of its function on
 * the thread, then one every 8 to 23 calls (16 on average), the interval drawn anew each
 * time. By function, so that a fixed sequence of getters, as a training step makes,
 * cannot leave one of them never timed; drawn, so that a getter that always calls another
 * (cudaGetDevice, cuCtxGetDevice) is not timed in step with it, its times holding the
 * other's clock reads. */
static inline bool tracer_count_timed_on(struct tracer_thread_calls *t, const char *backend,
                                         uint16_t function) {
  struct tracer_count_sampler *s = tracer_count_sampler_of(t, backend, function);
  if (s->countdown) {
    s->countdown--;
    return false;
  }
  t->sample_draw = t->sample_draw * 1664525u + 1013904223u;
  s->countdown = (uint8_t)(TRACER_COUNTED_PERIOD / 2 - 1 + (t->sample_draw >> 28));
  return true;
}
static inline bool tracer_count_timed(const char *backend, uint16_t function) {
  struct tracer_thread_calls *t = tracer_thread_calls;
  if (!t && !(t = tracer_thread_calls_register()))
    return false;
  return tracer_count_timed_on(t, backend, function);
}

/* The thread's entry for a function, status and clock, opened if need be; every entry
 * written first when none is free. The clock is part of the key: a poll that found
 * nothing (counting clock) and a completing call counted past the trace's bound (trace
 * clock) may have the same status (MPI_Test's MPI_SUCCESS). */
static inline struct tracer_counted *tracer_count_entry(struct tracer_thread_calls *t,
                                                        const char *backend, uint16_t function,
                                                        int64_t status, bool on_trace_clock) {
  unsigned slot = ((unsigned)function * 2654435761u ^ (unsigned)status) % TRACER_COUNTED_SLOTS;
  /* Inside the call the thread is in (a poll's pending calls join later: they take the
   * place of the call that adds them). */
  unsigned d = t->depth;
  bool inside =
      d && d <= TRACER_INFLIGHT_DEPTH && tracer_other_backend(t->calls[d - 1].backend, backend);
  for (unsigned probe = 0;; probe++) {
    struct tracer_counted *c = &t->counted[(slot + probe) % TRACER_COUNTED_SLOTS];
    if (c->calls && (c->backend != backend || c->function != function || c->status != status ||
                     c->on_trace_clock != on_trace_clock || c->inside_other != inside)) {
      if (probe == TRACER_COUNTED_SLOTS - 1)
        tracer_counted_write_all(t); /* full: every entry written, then the loop goes on */
      continue;
    }
    if (!c->calls) {
      c->backend = backend, c->function = function, c->status = status;
      c->on_trace_clock = on_trace_clock;
      c->inside_other = inside;
      c->timed = 0, c->total = 0, c->min = UINT64_MAX, c->max = 0;
    }
    return c;
  }
}

/* Adds one call to an entry: timed (`ticks` long), or only counted; the entry is written
 * when full. */
static inline void tracer_count_add(struct tracer_thread_calls *t, struct tracer_counted *c,
                                    bool timed, uint64_t ticks) {
  if (timed) {
    c->timed++;
    c->total += ticks;
    c->min = ticks < c->min ? ticks : c->min;
    c->max = ticks > c->max ? ticks : c->max;
  }
  __atomic_signal_fence(__ATOMIC_SEQ_CST); /* a signal handler sees the times first */
  if (++c->calls == TRACER_COUNTED_FLUSH)
    tracer_counted_write(t, c);
}

/* Adds one call of a counted function to its entry: timed, of `ticks` of
 * tracer_count_now(), or only counted. */
static inline void tracer_count_call_on(struct tracer_thread_calls *t, const char *backend,
                                        uint16_t function, int64_t status, bool timed,
                                        uint64_t ticks) {
  struct tracer_counted *c = tracer_count_entry(t, backend, function, status, false);
  if (timed)
    tracer_count_sampler_of(t, backend, function)->last_ticks = ticks;
  tracer_count_add(t, c, timed, ticks);
}
static inline void tracer_count_call(const char *backend, uint16_t function, int64_t status,
                                     bool timed, uint64_t ticks) {
  struct tracer_thread_calls *t = tracer_thread_calls;
  if (!t && !(t = tracer_thread_calls_register()))
    return;
  tracer_count_call_on(t, backend, function, status, timed, ticks);
}

/* Adds one call, of `ns` on the trace clock, to its thread's entry for its function and
 * status: a poll that found nothing, or a call made past the trace's bound. */
static inline void tracer_count_on_trace_clock(const char *backend, uint16_t function,
                                               int64_t status, uint64_t ns) {
  struct tracer_thread_calls *t = tracer_thread_calls;
  if (!t && !(t = tracer_thread_calls_register()))
    return;
  tracer_count_add(t, tracer_count_entry(t, backend, function, status, true), true, ns);
}

/* Polls (trace.polls, status.not_ready): a call that answered "not ready" is counted, not
 * recorded: added to its thread's entry for its function and status, and folded into the
 * thread's next record of the function, whose `polls` slot says how many it folded. The
 * call that completes is recorded in full.
 *
 * A poll that a spec names (trace.polls, or a status rule of its function's own) is a
 * query whose usual answer is "not yet", made millions of times (hpcc's RandomAccess
 * loop: MPI_Testany calls of some 15 ns, which a TSC read and an entry's lookup made
 * twice as dear). It is timed as a counted call is, more sparsely: its first call, then
 * one in 32 to 95 (TRACER_POLL_PERIOD on average, drawn anew each time;
 * tracer_poll_timed: every call with --every-call or its full event on) has its start
 * and end read on the counting clock (tracer_count_now: the TSC where it can be); the
 * others read no clock and only add one to their function's tracer_poll_state
 * (tracer_poll_found_nothing). A call to be recorded reads its end on the trace clock,
 * and tracer_poll_times gives its start: its end less its span when it was timed, else
 * estimated (tracer_poll_estimated_start). Any other function with not-ready values
 * (NCCL's, whose calls rarely answer so) is timed on the trace clock every call:
 * tracer_count_poll, `ns` its record's end less its start, *folded its thread's counter. */
/* The poll's state registered in its thread's record (when there is room), and the
 * interval to its next timed poll drawn: for a poll whose countdown ran out. True. */
bool tracer_poll_draw(struct tracer_poll_state *p, const char *backend, uint16_t function);
static inline bool tracer_poll_timed(struct tracer_poll_state *p, const char *backend,
                                     uint16_t function, bool every_call) {
  if (every_call || !tracer_counting)
    return true;
  if (p->countdown) {
    p->countdown--;
    return false;
  }
  return tracer_poll_draw(p, backend, function);
}
/* Adds a poll that found nothing to the thread's entry, with the pending ones first
 * (tracer_counted.c): when it is timed, of another status, or its state not registered. */
void tracer_poll_count(struct tracer_poll_state *p, int64_t status, bool timed, uint64_t ticks);
/* A sampled poll that found nothing, `ticks` long when timed; folded into the thread's
 * next record of the function when `fold` (its full event is on). */
static inline void tracer_poll_found_nothing(struct tracer_poll_state *p, bool fold, int64_t status,
                                             bool timed, uint64_t ticks) {
  if (fold)
    p->folded++;
  if (!timed && p->registered && status == p->status) {
    p->pending++;
    return;
  }
  tracer_poll_count(p, status, timed, ticks);
}
/* The polls the thread's record of the function folded, counted anew from here. */
static inline uint64_t tracer_poll_take(struct tracer_poll_state *p) {
  uint64_t n = p->folded;
  p->folded = 0;
  return n;
}
/* A poll timed on the trace clock that found nothing: counted, folded into *folded (NULL:
 * none kept), and the budget its start took given back (it writes no event). */
static inline void tracer_count_poll(const char *backend, uint16_t function, int64_t status,
                                     uint64_t ns, uint64_t *folded) {
  if (folded)
    ++*folded;
  struct tracer_thread_calls *t = tracer_thread_calls;
  if (!t && !(t = tracer_thread_calls_register()))
    return;
  if (t->unspent)
    t->unspent--;
  tracer_count_add(t, tracer_count_entry(t, backend, function, status, true), true, ns);
}
/* Ticks of tracer_count_now() as trace clock units (tracer_counted.c). */
uint64_t tracer_count_ticks_to_trace(uint64_t ticks);
/* A sampled poll's start: when its call is counted should it find nothing (counted), read
 * on the counting clock if it is timed, else not read (0); else (--every-call, its full
 * event on: recorded in any case) read on the trace clock. */
static inline uint64_t tracer_poll_start(bool counted, bool timed) {
  if (!counted)
    return tracer_now();
  return timed ? tracer_count_now() : 0;
}
/* The start of a sampled poll to be recorded, ended at `end`, whose start was not read:
 * its end less the span of its function's last timed call on the thread, but not before
 * the end of the thread's last recorded call before it nor the start of the call it is
 * made in; and when calls were recorded inside it (a runtime's poll calling its
 * driver's), no later than the first of them started (tracer_counted.c). */
uint64_t tracer_poll_estimated_start(const char *backend, uint16_t function, uint64_t end);
/* A sampled poll to be recorded, started at *start (tracer_poll_start(counted, timed)),
 * `ticks` long on the counting clock when counted and timed: returns its end, read on
 * the trace clock now, and puts *start on the trace clock. */
static inline uint64_t tracer_poll_times(bool counted, bool timed, uint64_t ticks, uint64_t *start,
                                         const char *backend, uint16_t function) {
  uint64_t end = tracer_now();
  if (!counted) { /* *start is on the trace clock already */
    *start = *start < end ? *start : end;
  } else if (timed) {
    uint64_t span = tracer_count_ticks_to_trace(ticks);
    *start = span < end ? end - span : 0;
  } else {
    *start = tracer_poll_estimated_start(backend, function, end);
  }
  return end;
}

static inline uint64_t tracer_polls_take(uint64_t *folded) {
  uint64_t n = *folded;
  *folded = 0;
  return n;
}

/* A call made once the trace reached its bound (tracer_recording_counting): instead of
 * its event, it is added to its thread's entry, timed in full by the trace clock reads
 * (start, end) the wrapper made anyway: counts and times stay complete in the tallies. */
static inline void tracer_count_span(const char *backend, uint16_t function, int64_t status,
                                     uint64_t start, uint64_t end) {
  tracer_count_on_trace_clock(backend, function, status, end > start ? end - start : 0);
}

/* Debug log, on when TRACER_DEBUG is set: one line on stderr with pid and tid, written
 * with a single write(2) so it is safe in signal handlers and under re-entry. */
void tracer_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
