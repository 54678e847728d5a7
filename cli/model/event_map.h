/* event_map: what each event class of a trace is for the analyses: which backend and
 * function, entry or exit (or the minimal `call` event, or a runtime event), and where
 * the fields the tally needs sit in its payload. Built once per trace, indexed by
 * ctf_event_class.index, read-only afterwards (shared by analysis threads). */
#ifndef TRACER_EVENT_MAP_H
#define TRACER_EVENT_MAP_H

#include "ctf.h"
#include "tracer_backend_desc.h"
#include "tracer_record.h"

enum event_role {
  EVENT_OTHER,          /* not the tracer's: ignored by the tally */
  EVENT_CALL,           /* one call: lttng_ust_<backend>:call, :F or :F__full */
  EVENT_DEVICE_COMMAND, /* lttng_ust_tracer:device_command */
  EVENT_UNFINISHED,     /* lttng_ust_tracer:unfinished: a call that never returned */
  EVENT_CLOCK_READ,     /* lttng_ust_tracer:clock_read: the cost of one clock read */
  EVENT_CALIBRATION,    /* lttng_ust_tracer:calibration: the cost of one event */
  EVENT_CALIBRATION_SAMPLE, /* the calibration's own events: skipped */
  EVENT_REGION,         /* lttng_ust_tracer:region: a named region that closed */
  EVENT_PAUSED,         /* lttng_ust_tracer:paused: the recording was paused */
  EVENT_COUNTED,        /* lttng_ust_tracer:counted: calls of a counted function */
  EVENT_NOTICE,         /* lttng_ust_tracer:notice: a sentence for the report */
  EVENT_RANK,           /* lttng_ust_tracer:rank: the process's rank in a job */
  EVENT_SAMPLE,         /* lttng_ust_sampler:sample: a device counter's value */
  EVENT_SAMPLER_UNAVAILABLE, /* lttng_ust_sampler:unavailable: a library it cannot use */
  EVENT_STACK,          /* lttng_ust_tracer:stack: a submission's stack, once per process */
  EVENT_OBJECT,         /* lttng_ust_tracer:object: a loaded object the stacks lie in */
  EVENT_PC_SAMPLE,      /* lttng_ust_tracer:pc_sample: the GPU's samples of an instruction */
};

struct event_info {
  enum event_role role;
  bool full;                              /* an F__full event */
  bool batch;                             /* minimal mode's `call`: a batch of calls */
  bool unknown_backend;                   /* lttng_ust_<b>:* of a backend not known here */
  int backend;                            /* index in tracer_backends[], -1 if none */
  const struct tracer_backend_desc *desc; /* NULL if none */
  int function;                           /* index in desc->functions, -1 if none (and
                                             for `call`, whose record says it) */
  /* Payload field indices, -1 when absent. */
  int pid, tid; /* the event's own ids (else the vpid/vtid contexts, if any) */
  int record;   /* a call event's record array (event_map_call()), or a batch's `calls`
                   sequence (event_map_batch()) */
  int start, status, function_field;
  int device_backend, device_kind, device_name, device_bytes, device_queue, device_end;
  int cost, counted_ps, event_ps, byte_ps, call_ps; /* clock_read and calibration events */
  int calls, total, min, max;   /* counted events */
  int rank, size, local_rank, local_size; /* rank events (and device_backend: launcher) */
  /* sample events (backend in device_backend); unavailable: why in sample_unit */
  int sample_device, sample_device_name, sample_counter, sample_unit, sample_value;
  /* stack events; object events (path in device_name, start and end in start and
   * device_end) */
  int stack_id, stack_python, stack_native, stack_flags, object_build_id, object_base;
  int pc_offset, pc_stall, pc_samples; /* pc_sample events (function in device_name) */
  int row; /* calls of a function tallied per value of a param: that param's index in
              the function's slots (tracer_function_desc.slots), -1 if none */
  bool record_fixed;                /* the record is read in place (ctf_event_u64s()) */
  struct ctf_fixed_u64s record_at;
};

struct event_map {
  struct event_info *infos; /* by ctf_event_class.index */
  size_t count;
  int vpid_key, vtid_key;   /* ctf_trace_context_key() of vpid and vtid, -1 if absent */
  /* Backends whose events the trace has but the tracer does not know (neither built in
   * nor on TRACER_BACKEND_PATH), comma-separated: their calls cannot be decoded. */
  char unknown_backends[256];
};

int event_map_build(const struct ctf_trace *trace, struct event_map *map);

/* A call event's record head: runtime/tracer_record.h. */
enum { EVENT_RECORD_HEAD = TRACER_RECORD_HEAD };
struct event_call {
  uint64_t start, end; /* on the trace clock, read right around the real call */
  int64_t pid, tid, function, status;
  unsigned depth;      /* traced calls the thread was already in */
  bool inside_other;   /* made inside a call of another backend (tracer_record.h) */
};

/* False when ev is not a call event or its record cannot be read. For a batch, the
 * first of its calls. */
bool event_map_call(const struct event_info *info, const struct ctf_event *ev,
                    struct event_call *call);

/* A call from the first n slots of its record (event_map_record()); false when n is
 * shorter than the head. */
bool event_map_call_unpack(const uint64_t *head, size_t n, struct event_call *call);
/* The record head a call's own event would have: a batched call's, for the readers of
 * records (its status slot gives a status result). */
void event_map_call_pack(const struct event_call *call, uint64_t head[EVENT_RECORD_HEAD]);

/* Minimal mode's `call` event holds a batch of one thread's calls (runtime/
 * tracer_record.h): its `calls` sequence is the ids, then per call its start, end and
 * call slots. */
enum {
  EVENT_BATCH_CALL_SLOTS = TRACER_BATCH_CALL_SLOTS,
  EVENT_BATCH_MAX = 1024 /* the runtime writes 32 */
};
/* The calls of a batch event into calls (up to max); returns how many (0 when ev is not
 * a batch or cannot be read). */
size_t event_map_batch(const struct event_info *info, const struct ctf_event *ev,
                       struct event_call *calls, size_t max);

/* Up to max slots of a call event's record into slots; returns how many (0 when it has
 * none or cannot be read). */
size_t event_map_record(const struct event_info *info, const struct ctf_event *ev,
                        uint64_t *slots, size_t max);

/* Whether a call of function f (of backend b) with this status failed: the function's own
 * success and "not ready" values when its spec gives them, then its ranges (error ranges:
 * only those are errors; success ranges: those are not), else the backend's success
 * value. Records keep a status's low 32 bits: compared as such. */
static inline bool event_map_call_failed(const struct tracer_backend_desc *b,
                                         const struct tracer_function_desc *f,
                                         int64_t status) {
  if (f->status == TRACER_STATUS_NONE)
    return false;
  if (!f->ok_status_count && !f->status_range_count)
    return (int32_t)status != (int32_t)b->success;
  for (uint32_t i = 0; i < f->ok_status_count; i++)
    if ((int32_t)status == (int32_t)f->ok_statuses[i])
      return false;
  int64_t value = (int32_t)status;
  bool error_ranges = false;
  for (uint32_t i = 0; i < f->status_range_count; i++) {
    const struct tracer_status_range *r = &f->status_ranges[i];
    if (value >= r->low && value <= r->high)
      return r->error;
    error_ranges |= r->error;
  }
  return !error_ranges;
}

/* An integer payload field (its index in the event's class), false when absent (-1) or
 * not an integer. */
bool event_map_field_int(const struct ctf_event *ev, int field, int64_t *out);

/* A slot's value as its param's type had it (tracer_slot): its low `size` bytes,
 * sign-extended for signed types. */
static inline int64_t event_map_slot_value(const struct tracer_slot *slot, uint64_t raw) {
  if (slot->size >= 8)
    return (int64_t)raw;
  raw &= (UINT64_C(1) << (8 * slot->size)) - 1;
  if (slot->kind == TRACER_SLOT_SIGNED && (raw >> (8 * slot->size - 1)) & 1)
    raw |= ~UINT64_C(0) << (8 * slot->size);
  return (int64_t)raw;
}

/* The process and thread of an event: its pid/tid payload fields (or call record), else
 * LTTng's vpid and vtid contexts; false when it has neither. */
bool event_map_ids(const struct event_map *map, const struct event_info *info,
                   const struct ctf_event *ev, int64_t *pid, int64_t *tid);
void event_map_free(struct event_map *map);

#endif
