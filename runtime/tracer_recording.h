/* tracer_recording: what the app itself says about the recording, for every backend at
 * once: pause and resume (an API's own calls for it, or TRACER_START_PAUSED=1 set by
 * `tracer --start-paused`), and named regions that nest per thread.
 *
 * A generated wrapper asks tracer_recording_paused() before recording a call; while it
 * is true the call goes straight to the library. Each pause is written, when it ends, as
 * one lttng_ust_tracer:paused event; each region, when it closes, as one
 * lttng_ust_tracer:region event. Safe from any thread.
 */
#ifndef TRACER_RECORDING_H
#define TRACER_RECORDING_H

#include <stdbool.h>
#include <stdint.h>

extern volatile int tracer_paused; /* written by the functions below only */

/* The trace's bound (tracer --max-size, or the file system of the trace filling up):
 * the tracer writes a non-zero word into the file that TRACER_LIMIT_FILE names, which
 * every traced process maps read-only when its runtime loads (a word of zeros until
 * then). From then on calls are counted, with their times, as lttng_ust_tracer:counted
 * events, and nothing else is recorded: the trace stops growing, the tallies stay
 * complete. */
extern const volatile int *tracer_limit;

/* Whether a call is not to be recorded as an event: the app paused the recording, or
 * the trace reached its bound. */
static inline bool tracer_recording_paused(void) {
  return __atomic_load_n(&tracer_paused, __ATOMIC_RELAXED) != 0 ||
         __atomic_load_n(tracer_limit, __ATOMIC_RELAXED) != 0;
}

/* Whether the trace reached its bound. */
static inline bool tracer_recording_limited(void) {
  return __atomic_load_n(tracer_limit, __ATOMIC_RELAXED) != 0;
}

/* Whether calls are to be counted instead of recorded: the bound was reached and the app
 * has not paused the recording (calls made while paused are not counted). */
static inline bool tracer_recording_counting(void) {
  return tracer_recording_limited() && __atomic_load_n(&tracer_paused, __ATOMIC_RELAXED) == 0;
}

/* Pauses the recording; a pause while paused changes nothing. */
void tracer_recording_pause(void);
/* Resumes it and writes the pause that ends; nothing when not paused. */
void tracer_recording_resume(void);

/* Opens a region on the calling thread, inside the innermost one still open. name may
 * be NULL (shown as "(unnamed)"); it is copied. start is on the trace clock. */
void tracer_region_open(const char *backend, const char *name, uint64_t start);
/* Closes the calling thread's innermost region and writes it, unless the recording was
 * paused when it opened or is paused now. A close with no region open is ignored. */
void tracer_region_close(const char *backend, uint64_t end);

/* A mark: a region of no length, at `at`. */
void tracer_region_mark(const char *backend, const char *name, uint64_t at);

/* Ranges that start and end by id, maybe on different threads (NVTX's nvtxRangeStart and
 * nvtxRangeEnd): the id of a range that starts (name copied; never 0), and its end, which
 * writes it as a region of the ending thread, at that thread's depth. Up to
 * TRACER_RANGES are open at once: a range past that is not kept, and its end writes
 * nothing. */
enum { TRACER_RANGES = 4096 };
uint64_t tracer_range_start(const char *backend, const char *name, uint64_t start);
void tracer_range_end(const char *backend, uint64_t id, uint64_t end);

#endif
