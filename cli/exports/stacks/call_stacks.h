/* call_stacks: each thread's calls and named regions as a stack, in time order, for the
 * exports that need what was open around each call: OTF2's enter and leave records, the
 * folded stacks of flame graphs.
 *
 * The reader hands out a call when it returns, after the calls made inside it, and a
 * region (an ITT task, an NVTX range) when it closes, after everything inside it;
 * minimal mode's batches come later still. call_stacks keeps a thread's calls until what
 * encloses them is known, and hands each thread's calls and regions to the sink as enter
 * and leave, properly nested and in time order:
 *  - a call made inside another (depth > 0) waits for its parent's record;
 *  - in a trace with batches, a call waits for the reader's horizon (nothing still to
 *    come starts before it, trace_consumer.h);
 *  - what encloses calls without their depth saying so must be known beforehand: regions,
 *    and calls that enclose calls that came before them at their own depth (an OMPT
 *    target region, recorded at its end around its data operations). The first such
 *    frame of a read turns it into a first pass that only collects them
 *    (call_stacks_collecting() becomes true, and call_stacks_region() or
 *    call_stacks_call() return 1: start over), and call_stacks_finish() asks for a
 *    second pass, in which every call is handed out among those frames. A trace without
 *    them is read once.
 * Frames that overlap without nesting are made to nest: a region that ends inside a call
 * ends where that call begins (an NVTX start/end range, closed from inside the call that
 * ends it, as a region that a call closes does); any other frame that would end after
 * the frame it starts inside is cut at that frame's end (a region that closes after the
 * call it opened in, a range across another). Both are counted (stack_counts.cut). A call whose parent never comes (recorded while the recording was
 * paused, or lost) waits until its thread has MAX_WAITING calls waiting, then goes as if
 * it had none.
 *
 * Times are wall-clock ns (TRACE_NEEDS_TIMES). Frames handed to the sink are borrowed for
 * the callback.
 */
#ifndef TRACER_CALL_STACKS_H
#define TRACER_CALL_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_consumer.h"

enum stack_kind { STACK_CALL, STACK_REGION };
enum { STACK_PAYLOAD = 9 };

struct stack_frame {
  uint8_t kind;                 /* enum stack_kind */
  bool failed;                  /* calls: a status other than success */
  bool batched;                 /* calls: from minimal mode's batch (its head alone) */
  uint16_t depth;               /* calls: traced calls the thread was already in */
  int backend, function;        /* calls: function is the tally's row (tally_call_row) */
  const struct tracer_backend_desc *desc; /* calls */
  const char *name;             /* the function's (row's) name, or the region's */
  const char *region_backend;   /* regions: "itt", "nvtx", ... */
  uint64_t start, end;          /* wall-clock ns; end may be cut (above) */
  uint64_t duration_ns;         /* as recorded: the tally's figure */
  uint64_t child_ns;            /* at leave: the recorded time of the calls right inside */
  uint64_t child_calls;         /* at leave: how many calls those were */
  uint64_t start_clock;         /* calls: trace clock, for the horizon */
  uint64_t payload[STACK_PAYLOAD]; /* calls: the consumer's own, given with the call */
};

/* A thread as call_stacks knows it. `user` is the sink's (its per-thread state). */
struct stack_thread {
  int host;
  const char *host_name;        /* the trace's */
  int64_t pid, tid;
  void *user;
};

struct stack_sink {
  void *context;
  /* A frame begins; stack[0, depth) are the frames open around it, outermost first. */
  int (*enter)(void *context, struct stack_thread *thread, const struct stack_frame *frame,
               const struct stack_frame *const *stack, size_t depth);
  /* A frame ends (at frame->end); stack as for enter. */
  int (*leave)(void *context, struct stack_thread *thread, const struct stack_frame *frame,
               const struct stack_frame *const *stack, size_t depth);
  /* Frees the sink's `user` of a thread (NULL: nothing to free). */
  void (*forget)(void *context, struct stack_thread *thread);
};

struct stack_counts {
  uint64_t calls, regions;      /* handed out */
  uint64_t cut;                 /* frames cut at the end of the frame around them */
  uint64_t orphans;             /* calls handed out without the parent they waited for */
  uint64_t late;                /* calls that came after later ones were handed out (moved) */
};

struct call_stacks;

/* Returns NULL when out of memory. sink is copied. */
struct call_stacks *call_stacks_open(const struct stack_sink *sink);
void call_stacks_close(struct call_stacks *cs);

/* Whether this read is the first of two and only collects regions. */
bool call_stacks_collecting(const struct call_stacks *cs);
/* A finished call, with the consumer's payload (NULL: zeros); give every call, also
 * while collecting. Returns 0; 1 the first time a read meets a frame it did not know
 * (as call_stacks_region()); -1 when out of memory or the sink failed. */
int call_stacks_call(struct call_stacks *cs, const struct trace_call *call,
                     const uint64_t payload[STACK_PAYLOAD]);
/* A closed region. Returns 1 the first time a read meets a frame it did not know: what
 * the sink had from this read must be dropped (a second read hands it out again);
 * else 0, or -1 when out of memory. */
int call_stacks_region(struct call_stacks *cs, const struct trace_region *region);
/* The reader's horizon (trace clock). */
int call_stacks_horizon(struct call_stacks *cs, uint64_t until_clock);
/* The regions that were open at `time` on thread (host, pid, tid), outermost first, at
 * most max into out: in the second pass of a trace with regions (the regions are known
 * beforehand), else none. For work that a thread without regions of its own submitted
 * on behalf of another (a helper thread: PyTorch's autograd threads, a data loader's),
 * which flame graphs put under that other thread's regions. Returns how many. */
size_t call_stacks_regions_at(const struct call_stacks *cs, int host, int64_t pid, int64_t tid,
                              uint64_t time, const struct stack_frame **out, size_t max);
/* At the end of a read: TRACE_READ_AGAIN when a second read must hand the calls out
 * among their regions (the threads are then forgotten, sink's forget() called), else
 * every thread's frames handed out and left: 0, or the sink's error. */
int call_stacks_finish(struct call_stacks *cs);
const struct stack_counts *call_stacks_counts(const struct call_stacks *cs);

#endif
