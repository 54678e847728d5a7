/* event_map: what each event class of a trace is for the analyses: which backend and
 * function, entry or exit (or the minimal `call` event, or a runtime event), and where
 * the fields the tally needs sit in its payload. Built once per trace, indexed by
 * ctf_event_class.index, read-only afterwards (shared by analysis threads). */
#ifndef TRACER_EVENT_MAP_H
#define TRACER_EVENT_MAP_H

#include "ctf.h"
#include "tracer_backend_desc.h"

enum event_role {
  EVENT_OTHER,          /* not the tracer's: ignored by the tally */
  EVENT_ENTRY,          /* F_entry or F_entry_full */
  EVENT_EXIT,           /* F_exit or F_exit_full */
  EVENT_CALL,           /* lttng_ust_<backend>:call (minimal mode) */
  EVENT_DEVICE_COMMAND, /* lttng_ust_tracer:device_command */
  EVENT_UNFINISHED,     /* lttng_ust_tracer:unfinished: a call that never returned */
  EVENT_REGION,         /* lttng_ust_tracer:region: a named region that closed */
  EVENT_PAUSED,         /* lttng_ust_tracer:paused: the recording was paused */
};

struct event_info {
  enum event_role role;
  bool full;                              /* an _entry_full / _exit_full event */
  int backend;                            /* index in tracer_backends[], -1 if none */
  const struct tracer_backend_desc *desc; /* NULL if none */
  int function;                           /* index in desc->functions, -1 if none */
  /* Payload field indices, -1 when absent. */
  int pid, tid; /* the event's own ids (else the vpid/vtid contexts, if any) */
  int record;   /* minimal mode's call event: its one array field, see event_map_call() */
  int start, status, function_field;
  int device_backend, device_kind, device_name, device_bytes, device_queue, device_end;
  int row; /* exit events of a function tallied per value of a param: that field */
};

struct event_map {
  struct event_info *infos; /* by ctf_event_class.index */
  size_t count;
  int vpid_key, vtid_key;   /* ctf_trace_context_key() of vpid and vtid, -1 if absent */
};

int event_map_build(const struct ctf_trace *trace, struct event_map *map);

/* Minimal mode's call event, unpacked from its record {start, pid << 32 | tid,
 * function << 32 | status (low 32 bits)}. */
struct event_call {
  uint64_t start; /* on the trace clock */
  int64_t pid, tid, function, status;
};

/* False when ev is not such an event or its record cannot be read. */
bool event_map_call(const struct event_info *info, const struct ctf_event *ev,
                    struct event_call *call);

/* The process and thread of an event: its pid/tid payload fields (or call record), else
 * LTTng's vpid and vtid contexts; false when it has neither. */
bool event_map_ids(const struct event_map *map, const struct event_info *info,
                   const struct ctf_event *ev, int64_t *pid, int64_t *tid);
void event_map_free(struct event_map *map);

#endif
