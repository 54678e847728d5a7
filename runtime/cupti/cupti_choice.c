/* cupti_choice: which source times the CUDA backend's device work (cupti_source.h), and
 * CUPTI handed over to the app's own CUPTI client (torch.profiler, Nsight's injection).
 *
 * CUPTI takes one set of buffer callbacks and one timestamp callback per process: a
 * second registration replaces the first, and the buffers the first client asked for are
 * then completed to the second (PyTorch: "bufferCompleted called with unknown buffer"),
 * so both lose their records. The app's profiler must keep working, so CUPTI becomes the
 * app's alone: the first call the app makes that sets CUPTI's activity state (buffer or
 * timestamp callbacks, enabling or disabling a kind) first hands CUPTI over. The tracer
 * flushes its own records, disables its kinds, puts back CUPTI's default clock, and times
 * the device work that follows with CUDA events, saying so in a notice. The app then sees
 * exactly what it would see without the tracer. (Sharing one registration, copying records
 * into the app's buffers, would rely on the layout of CUPTI's buffers, which is CUPTI's
 * own, and on both sides agreeing on one clock: docs/cuda.md.)
 *
 * One lock serializes the choice and the hand-over, so that a choice made later sees the
 * app's CUPTI. A launch on another thread during the hand-over may be timed both ways.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_source.h"
#include "tracer_runtime.h"

#ifdef TRACER_CUPTI
#include "cupti_collector.h"
#include "tracer_notice.h"
#include "tracer_wrappers.h"
#else
static bool cupti_records_start(void) { return false; } /* no CUPTI at build time */
#endif

static enum cuda_timing timing;
static bool app_has_cupti;
static pthread_mutex_t choice_lock = PTHREAD_MUTEX_INITIALIZER;

/* TRACER_CUDA_TIMING, or CUPTI where it loads (on the H100 it cost 2.2 us a launch against
 * 4.7 us for a pair of CUDA events, with the same accuracy: docs/cuda.md). */
static enum cuda_timing wanted(void) {
  const char *wanted = getenv("TRACER_CUDA_TIMING");
  if (wanted && strcmp(wanted, "none") == 0)
    return CUDA_TIMING_NONE;
  if (wanted && strcmp(wanted, "events") == 0)
    return CUDA_TIMING_EVENTS;
  return CUDA_TIMING_CUPTI;
}

enum cuda_timing cuda_timing(void) { return __atomic_load_n(&timing, __ATOMIC_ACQUIRE); }

enum cuda_timing cuda_timing_choose(void) {
  enum cuda_timing chosen = cuda_timing();
  if (chosen != CUDA_TIMING_UNSET)
    return chosen;
  pthread_mutex_lock(&choice_lock);
  if ((chosen = timing) == CUDA_TIMING_UNSET) {
    chosen = wanted();
    if (chosen == CUDA_TIMING_CUPTI && app_has_cupti)
      chosen = CUDA_TIMING_EVENTS; /* the app's own CUPTI client came first (hand_over) */
    if (chosen == CUDA_TIMING_CUPTI && !cupti_records_start()) {
      tracer_debug("CUPTI is not available: device times from CUDA events");
      chosen = CUDA_TIMING_EVENTS;
    }
    __atomic_store_n(&timing, chosen, __ATOMIC_RELEASE);
#ifdef TRACER_CUPTI
    const char *pc_sampling = getenv("TRACER_PC_SAMPLING");
    if (chosen != CUDA_TIMING_CUPTI && pc_sampling && *pc_sampling && strcmp(pc_sampling, "0"))
      tracer_notice("cuda", "--pc-sampling: no PC samples: they come from CUPTI, which times no "
                            "device work here (%s)",
                    app_has_cupti                     ? "the app runs its own CUPTI client"
                    : wanted() != CUDA_TIMING_CUPTI ? "TRACER_CUDA_TIMING says so"
                                                      : "libcupti cannot be loaded");
#endif
  }
  pthread_mutex_unlock(&choice_lock);
  return chosen;
}

#ifdef TRACER_CUPTI
bool cupti_app_has_cupti(void) { return __atomic_load_n(&app_has_cupti, __ATOMIC_ACQUIRE); }

static void hand_over(void) {
  if (cupti_app_has_cupti())
    return;
  pthread_mutex_lock(&choice_lock);
  if (!app_has_cupti) {
    bool had = timing == CUDA_TIMING_CUPTI;
    bool would_have = timing == CUDA_TIMING_UNSET && wanted() == CUDA_TIMING_CUPTI;
    if (had)
      __atomic_store_n(&timing, CUDA_TIMING_EVENTS, __ATOMIC_RELEASE);
    __atomic_store_n(&app_has_cupti, true, __ATOMIC_RELEASE);
    if (had) { /* the records CUPTI holds are the tracer's: read them first */
      cupti_pc_sampling_stop("the app runs its own CUPTI client, which gets CUPTI to itself");
      cupti_records_hand_over();
    }
    if (had || would_have)
      tracer_notice("cuda",
                    "the app runs its own CUPTI activity client (torch.profiler or another "
                    "profiler): the tracer leaves CUPTI to it and times device work with CUDA "
                    "events%s",
                    had ? " from then on" : "");
  }
  pthread_mutex_unlock(&choice_lock);
}

/* The real CUPTI function the app asked for: the next definition after the interposer's
 * (the libcupti the app links), else the one the tracer's own dlopen finds. */
static void *cupti_real(const char *name, const void *wrapper) {
  void *real = tracer_find_elsewhere(name, wrapper);
  void *library = real ? NULL : cupti_library();
  return library ? tracer_real_dlsym(library, name) : real;
}

/* One wrapper per CUPTI function that sets the activity state (the spec's trace.exports):
 * hand over, then call. */
#define CUPTI_APP_CALL(function, params, args)                                                     \
  CUptiResult CUPTIAPI function params {                                                           \
    static CUptiResult(CUPTIAPI *real) params;                                                     \
    if (!real)                                                                                     \
      real = (CUptiResult(CUPTIAPI *) params)cupti_real(#function, (const void *)function);        \
    if (!real)                                                                                     \
      return CUPTI_ERROR_NOT_INITIALIZED;                                                          \
    hand_over();                                                                                   \
    return real args;                                                                              \
  }
CUPTI_APP_CALL(cuptiActivityRegisterCallbacks,
               (CUpti_BuffersCallbackRequestFunc requested,
                CUpti_BuffersCallbackCompleteFunc completed),
               (requested, completed))
CUPTI_APP_CALL(cuptiActivityRegisterTimestampCallback, (CUpti_TimestampCallbackFunc stamp), (stamp))
CUPTI_APP_CALL(cuptiActivityEnable, (CUpti_ActivityKind kind), (kind))
CUPTI_APP_CALL(cuptiActivityEnableAndDump, (CUpti_ActivityKind kind), (kind))
CUPTI_APP_CALL(cuptiActivityDisable, (CUpti_ActivityKind kind), (kind))
CUPTI_APP_CALL(cuptiActivityEnableContext, (CUcontext context, CUpti_ActivityKind kind),
               (context, kind))
CUPTI_APP_CALL(cuptiActivityDisableContext, (CUcontext context, CUpti_ActivityKind kind),
               (context, kind))
#undef CUPTI_APP_CALL
#endif
