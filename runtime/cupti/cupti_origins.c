/* cupti_origins: each CUPTI record's submitting call (cupti_source.h).
 *
 * A command timed by CUPTI (a launch, a copy, a memset) pushes an external correlation id
 * of its own (a sequence number, of kind CUSTOM2: PyTorch's profiler, Kineto, pushes
 * CUSTOM0 and CUSTOM1) around the real call; CUPTI then writes an external correlation
 * record joining it to its correlation id, which the command's record carries. Two maps, kept under origins_lock:
 * external id -> the call (made at the launch), then correlation id -> the call (made when
 * the external correlation record is read). A command record read before its external
 * correlation record waits (held) until it comes, or until the last flush: at most
 * HELD_MAX wait, and a graph's kernels after its first (one correlation id for the
 * graph's launch) wait until then and name no call.
 */
#include "cupti_source.h"

#ifdef TRACER_CUPTI
#include <pthread.h>
#include <stdlib.h>

#include "cupti_collector.h"
#include "tracer_map.h"

enum { ORIGINS_MAX = 1 << 21, HELD_MAX = 1 << 16 };
static struct tracer_map by_external = TRACER_MAP_INIT(struct tracer_call_id, ORIGINS_MAX);
static struct tracer_map by_correlation = TRACER_MAP_INIT(struct tracer_call_id, ORIGINS_MAX);
static pthread_mutex_t origins_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t external_sequence;
/* The external correlation id pushed around this thread's launch; 0: none. */
static __thread uint64_t pushed;

static struct cupti_command *held;
static size_t held_count, held_capacity;
static struct tracer_map held_at = TRACER_MAP_INIT(size_t, HELD_MAX); /* correlation -> index */
static uint64_t joins; /* external correlation records joined to their launch */

/* A join read before its launch returned (CUPTI may complete a buffer on its own thread
 * meanwhile) waits in by_external as this marker: no thread has tid -1. */
enum { JOIN_FIRST = -1 };

/* Room for one more held record, within HELD_MAX. Called with origins_lock held. */
static bool held_room(void) {
  if (held_count < held_capacity)
    return true;
  size_t capacity = held_capacity ? 2 * held_capacity : 64;
  struct cupti_command *grown =
      capacity <= HELD_MAX ? realloc(held, capacity * sizeof *held) : NULL;
  if (!grown)
    return false;
  held = grown, held_capacity = capacity;
  return true;
}

static void emit(const struct cupti_command *c, const struct tracer_call_id *call) {
  tracer_device_command_on(call, "cuda", c->device, c->kind, c->name, c->bytes, c->stream, c->start,
                           c->end);
}

void cupti_command_record(const struct cupti_command *c) {
  struct tracer_call_id call = {0, 0, 0};
  bool known = false;
  if (__atomic_load_n(&cupti_correlates, __ATOMIC_ACQUIRE) && c->correlation) {
    pthread_mutex_lock(&origins_lock);
    known = tracer_map_take(&by_correlation, c->correlation, &call);
    if (!known && held_room() && tracer_map_put(&held_at, c->correlation, &held_count)) {
      held[held_count++] = *c;
      pthread_mutex_unlock(&origins_lock);
      return;
    }
    /* HELD_MAX records waited and no join ever came: this CUPTI writes no external
     * correlation records for the launches. Stop waiting; the readers match by order. */
    bool never = !known && !joins;
    pthread_mutex_unlock(&origins_lock);
    if (never) {
      __atomic_store_n(&cupti_correlates, false, __ATOMIC_RELEASE);
      cupti_held_release();
    }
  }
  emit(c, known ? &call : NULL);
}

/* A launch's call joined to its correlation id: the command held for it, if any, is
 * handed back to be recorded (true), else the call waits for it. Called with
 * origins_lock held. */
static bool joined(uint32_t correlation, struct tracer_call_id call, struct cupti_command *out) {
  size_t i;
  joins++;
  if (tracer_map_take(&held_at, correlation, &i)) {
    *out = held[i], held[i] = held[--held_count];
    if (i < held_count) /* the last record moved to i */
      tracer_map_put(&held_at, held[i].correlation, &i);
    return true;
  }
  tracer_map_put(&by_correlation, correlation, &call);
  return false;
}

void cupti_correlation_record(const CUpti_ActivityExternalCorrelation *r) {
  if (r->externalKind != CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2)
    return;
  struct tracer_call_id call;
  struct cupti_command c;
  bool release = false;
  pthread_mutex_lock(&origins_lock);
  if (tracer_map_take(&by_external, r->externalId, &call))
    release = joined(r->correlationId, call, &c);
  else
    tracer_map_put(&by_external, r->externalId,
                   &(struct tracer_call_id){JOIN_FIRST, r->correlationId, 0});
  pthread_mutex_unlock(&origins_lock);
  if (release)
    emit(&c, &call);
}

void cupti_held_release(void) {
  pthread_mutex_lock(&origins_lock);
  struct cupti_command *commands = held;
  size_t count = held_count;
  held = NULL, held_count = held_capacity = 0;
  tracer_map_clear(&held_at);
  pthread_mutex_unlock(&origins_lock);
  for (size_t i = 0; i < count; i++)
    emit(&commands[i], NULL);
  free(commands);
}

/* Every command: a launch, a copy, a memset; its API's records on first (cupti_api_records:
 * the external correlation record comes only before one). */
void cupti_launch_begin(const struct tracer_command *command) {
  pushed = 0;
  cupti_pc_sampling_command();
  if (!__atomic_load_n(&cupti_correlates, __ATOMIC_ACQUIRE) || cupti_app_has_cupti() ||
      !cupti_api_records(command->name))
    return;
  uint64_t id = __atomic_add_fetch(&external_sequence, 1, __ATOMIC_RELAXED);
  if (cupti.push_external(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, id) == CUPTI_SUCCESS)
    pushed = id;
}

void cupti_launch_end(int64_t status) {
  uint64_t id = pushed;
  if (!id)
    return;
  pushed = 0;
  cupti.pop_external(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, NULL);
  if (status != CUDA_SUCCESS)
    return;
  struct tracer_call_id call = tracer_call_returned(), early;
  struct cupti_command c;
  bool release = false;
  pthread_mutex_lock(&origins_lock);
  if (tracer_map_take(&by_external, id, &early) && early.tid == JOIN_FIRST)
    release = joined((uint32_t)early.start, call, &c);
  else
    tracer_map_put(&by_external, id, &call);
  pthread_mutex_unlock(&origins_lock);
  if (release)
    emit(&c, &call);
}
#endif
