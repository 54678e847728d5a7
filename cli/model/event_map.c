/* event_map: event class name -> backend, function and role. */
#include "event_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"

static bool ends_with(const char *s, size_t len, const char *suffix, size_t *stem) {
  size_t n = strlen(suffix);
  if (len < n || strncmp(s + len - n, suffix, n) != 0)
    return false;
  *stem = len - n;
  return true;
}

static int backend_index(const struct tracer_backend_desc *desc) {
  for (int i = 0; tracer_backends[i]; i++)
    if (tracer_backends[i] == desc)
      return i;
  return -1;
}

static void map_class(const struct ctf_event_class *c, struct event_info *info) {
  memset(info, 0, sizeof *info);
  info->role = EVENT_OTHER;
  info->backend = info->function = -1;
  info->start = info->status = info->function_field = info->record = -1;
  info->pid = ctf_event_class_field_index(c, "pid");
  info->tid = ctf_event_class_field_index(c, "tid");
  info->device_backend = info->device_kind = info->device_name = -1;
  info->device_bytes = info->device_queue = info->device_end = -1;
  info->cost = info->event_ps = info->byte_ps = info->call_ps = -1;
  info->calls = info->total = info->min = info->max = -1;
  info->rank = info->size = info->local_rank = info->local_size = -1;
  info->row = -1;
  info->stack_id = info->stack_python = info->stack_native = info->stack_flags = -1;
  info->object_build_id = info->object_base = -1;
  info->pc_offset = info->pc_stall = info->pc_samples = -1;
  info->sample_device = info->sample_device_name = info->sample_counter = -1;
  info->sample_unit = info->sample_value = -1;
  const char *colon = strchr(c->name, ':');
  if (!colon)
    return;
  if (strncmp(c->name, "lttng_ust_sampler:", 18) == 0) {
    /* The sampler's events (cli/sampler/sampler_tracepoints.h). */
    info->device_backend = ctf_event_class_field_index(c, "backend");
    if (strcmp(colon + 1, "sample") == 0) {
      info->role = EVENT_SAMPLE;
      info->sample_device = ctf_event_class_field_index(c, "device");
      info->sample_device_name = ctf_event_class_field_index(c, "device_name");
      info->sample_counter = ctf_event_class_field_index(c, "counter");
      info->sample_unit = ctf_event_class_field_index(c, "unit");
      info->sample_value = ctf_event_class_field_index(c, "value");
    } else if (strcmp(colon + 1, "unavailable") == 0) {
      info->role = EVENT_SAMPLER_UNAVAILABLE;
      info->sample_unit = ctf_event_class_field_index(c, "why");
    }
    return;
  }
  const char *event = colon + 1;
  size_t event_len = strlen(event);
  if (strncmp(c->name, "lttng_ust_tracer:", 17) == 0) {
    if (strcmp(event, "device_command") == 0) {
      info->role = EVENT_DEVICE_COMMAND;
      info->device_backend = ctf_event_class_field_index(c, "backend");
      info->device_kind = ctf_event_class_field_index(c, "kind");
      info->device_name = ctf_event_class_field_index(c, "name");
      info->device_bytes = ctf_event_class_field_index(c, "bytes");
      info->device_queue = ctf_event_class_field_index(c, "queue");
      info->start = ctf_event_class_field_index(c, "start");
      info->device_end = ctf_event_class_field_index(c, "end");
    } else if (strcmp(event, "clock_read") == 0) {
      info->role = EVENT_CLOCK_READ;
      info->cost = ctf_event_class_field_index(c, "cost");
      info->counted_ps = ctf_event_class_field_index(c, "counted_ps"); /* -1 before 2026-11 */
    } else if (strcmp(event, "calibration") == 0) {
      info->role = EVENT_CALIBRATION;
      info->event_ps = ctf_event_class_field_index(c, "event_ps");
      info->byte_ps = ctf_event_class_field_index(c, "byte_ps");
      info->call_ps = ctf_event_class_field_index(c, "call_ps");
    } else if (strcmp(event, "calibration_sample") == 0) {
      info->role = EVENT_CALIBRATION_SAMPLE;
    } else if (strcmp(event, "region") == 0 || strcmp(event, "paused") == 0) {
      /* backend, name, start and end sit where a device command's do. */
      info->role = event[0] == 'r' ? EVENT_REGION : EVENT_PAUSED;
      info->device_backend = ctf_event_class_field_index(c, "backend");
      info->device_name = ctf_event_class_field_index(c, "name");
      info->start = ctf_event_class_field_index(c, "start");
      info->device_end = ctf_event_class_field_index(c, "end");
    } else if (strcmp(event, "counted") == 0) {
      info->role = EVENT_COUNTED;
      info->device_backend = ctf_event_class_field_index(c, "backend");
      info->function_field = ctf_event_class_field_index(c, "function");
      info->status = ctf_event_class_field_index(c, "status");
      info->calls = ctf_event_class_field_index(c, "calls");
      info->total = ctf_event_class_field_index(c, "total");
      info->min = ctf_event_class_field_index(c, "min");
      info->max = ctf_event_class_field_index(c, "max");
    } else if (strcmp(event, "notice") == 0) {
      info->role = EVENT_NOTICE; /* its text sits where a device command's name does */
      info->device_backend = ctf_event_class_field_index(c, "backend");
      info->device_name = ctf_event_class_field_index(c, "text");
    } else if (strcmp(event, "rank") == 0) {
      info->role = EVENT_RANK;
      info->device_backend = ctf_event_class_field_index(c, "launcher");
      info->rank = ctf_event_class_field_index(c, "rank");
      info->size = ctf_event_class_field_index(c, "size");
      info->local_rank = ctf_event_class_field_index(c, "local_rank");
      info->local_size = ctf_event_class_field_index(c, "local_size");
    } else if (strcmp(event, "stack") == 0) {
      info->role = EVENT_STACK;
      info->stack_id = ctf_event_class_field_index(c, "id");
      info->stack_python = ctf_event_class_field_index(c, "python");
      info->stack_native = ctf_event_class_field_index(c, "native");
      info->stack_flags = ctf_event_class_field_index(c, "flags");
    } else if (strcmp(event, "object") == 0) {
      info->role = EVENT_OBJECT;
      info->device_name = ctf_event_class_field_index(c, "path");
      info->object_build_id = ctf_event_class_field_index(c, "build_id");
      info->object_base = ctf_event_class_field_index(c, "base");
      info->start = ctf_event_class_field_index(c, "start");
      info->device_end = ctf_event_class_field_index(c, "end");
    } else if (strcmp(event, "pc_sample") == 0) {
      info->role = EVENT_PC_SAMPLE;
      info->device_name = ctf_event_class_field_index(c, "function");
      info->pc_offset = ctf_event_class_field_index(c, "pc_offset");
      info->pc_stall = ctf_event_class_field_index(c, "stall");
      info->pc_samples = ctf_event_class_field_index(c, "samples");
    } else if (strcmp(event, "unfinished") == 0) {
      info->role = EVENT_UNFINISHED;
      info->device_backend = ctf_event_class_field_index(c, "backend");
      info->function_field = ctf_event_class_field_index(c, "function");
      info->start = ctf_event_class_field_index(c, "start");
    }
    return;
  }
  const struct tracer_backend_desc *desc =
      backends_find_provider(c->name, (size_t)(colon - c->name));
  if (!desc) {
    /* A backend's events carry its records (`record`, or minimal mode's `calls`);
     * LTTng's own providers (lttng_ust_statedump, lttng_ust_libc, ...) do not. */
    info->unknown_backend = strncmp(c->name, "lttng_ust_", 10) == 0 &&
                            (ctf_event_class_field_index(c, "record") >= 0 ||
                             ctf_event_class_field_index(c, "calls") >= 0);
    return;
  }
  info->desc = desc;
  info->backend = backend_index(desc);
  /* One event per call: `call` (minimal mode), `F` (default) or `F__full` (two
   * underscores: a library may have functions F and F_full). */
  info->record = ctf_event_class_field_index(c, "record"); /* see event_map_call() */
  info->record_fixed =
      info->record >= 0 && ctf_event_class_fixed_u64s(c, (size_t)info->record, &info->record_at);
  if (strcmp(event, "call") == 0) {
    info->record_fixed = false;
    info->role = EVENT_CALL;
    info->batch = true;
    info->record = ctf_event_class_field_index(c, "calls");
    return;
  }
  int function = backends_function_index(desc, event, event_len);
  size_t stem;
  if (function < 0 && ends_with(event, event_len, "__full", &stem)) {
    function = backends_function_index(desc, event, stem);
    info->full = function >= 0;
  }
  if (function < 0)
    return;
  info->function = function;
  info->role = EVENT_CALL;
  /* A function tallied per value of a param (trace.rows): the param's record slot, which
   * minimal mode's records lack. */
  const struct tracer_function_desc *f = &desc->functions[function];
  for (uint32_t k = 0; f->row_field && k < f->slot_count; k++)
    if (f->slots[k].name && strcmp(f->slots[k].name, f->row_field) == 0)
      info->row = (int)k;
}

int event_map_build(const struct ctf_trace *trace, struct event_map *map) {
  map->count = ctf_trace_event_class_count(trace);
  map->infos = calloc(map->count ? map->count : 1, sizeof *map->infos);
  if (!map->infos)
    return -1;
  for (size_t i = 0; i < map->count; i++) {
    const struct ctf_event_class *c = ctf_trace_event_class(trace, i);
    map_class(c, &map->infos[c->index]);
    /* An interposer's provider is lttng_ust_<backend>: name each unknown one once. */
    if (map->infos[c->index].unknown_backend) {
      const char *name = c->name + 10, *colon = strchr(name, ':');
      int len = (int)(colon ? (size_t)(colon - name) : strlen(name));
      char item[80];
      snprintf(item, sizeof item, "%.*s", len, name);
      size_t used = strlen(map->unknown_backends);
      bool seen = false;
      for (const char *s = map->unknown_backends; (s = strstr(s, item)) && !seen; s++)
        seen = (s == map->unknown_backends || s[-1] == ',') &&
               (s[strlen(item)] == ',' || s[strlen(item)] == '\0');
      if (!seen && used + strlen(item) + 2 < sizeof map->unknown_backends)
        snprintf(map->unknown_backends + used, sizeof map->unknown_backends - used, "%s%s",
                 used ? "," : "", item);
    }
  }
  map->vpid_key = ctf_trace_context_key(trace, "vpid");
  map->vtid_key = ctf_trace_context_key(trace, "vtid");
  return 0;
}

void event_map_free(struct event_map *map) {
  free(map->infos);
  map->infos = NULL;
  map->count = 0;
}

bool event_map_field_int(const struct ctf_event *ev, int field, int64_t *out) {
  struct ctf_value v;
  if (field < 0 || ctf_event_decode_field(ev, (size_t)field, &v, NULL) != CTF_OK ||
      (v.kind != CTF_VALUE_SIGNED && v.kind != CTF_VALUE_UNSIGNED))
    return false;
  *out = v.kind == CTF_VALUE_SIGNED ? v.u.s : (int64_t)v.u.u;
  return true;
}

size_t event_map_record(const struct event_info *info, const struct ctf_event *ev,
                        uint64_t *slots, size_t max) {
  if (info->record_fixed) {
    size_t n = ctf_event_u64s(ev, &info->record_at, slots, max);
    if (n || !info->record_at.count || !max)
      return n;
  }
  struct ctf_value record;
  if (info->record < 0 ||
      ctf_event_decode_field(ev, (size_t)info->record, &record, NULL) != CTF_OK ||
      record.kind != CTF_VALUE_ARRAY)
    return 0;
  return ctf_value_u64s(&record, slots, max);
}

bool event_map_call(const struct event_info *info, const struct ctf_event *ev,
                    struct event_call *call) {
  if (info->batch)
    return event_map_batch(info, ev, call, 1) == 1;
  uint64_t head[EVENT_RECORD_HEAD];
  return info->role == EVENT_CALL &&
         event_map_call_unpack(head, event_map_record(info, ev, head, EVENT_RECORD_HEAD), call);
}

size_t event_map_batch(const struct event_info *info, const struct ctf_event *ev,
                       struct event_call *calls, size_t max) {
  uint64_t slots[1 + EVENT_BATCH_CALL_SLOTS * EVENT_BATCH_MAX];
  if (!info->batch || info->role != EVENT_CALL)
    return 0;
  size_t n = event_map_record(info, ev, slots, sizeof slots / sizeof *slots);
  if (n < 1 + EVENT_BATCH_CALL_SLOTS)
    return 0;
  size_t count = (n - 1) / EVENT_BATCH_CALL_SLOTS;
  if (count > max)
    count = max;
  for (size_t i = 0; i < count; i++) {
    const uint64_t *r = &slots[1 + EVENT_BATCH_CALL_SLOTS * i];
    uint64_t head[EVENT_RECORD_HEAD] = {r[0], r[1], slots[0], r[2]};
    event_map_call_unpack(head, EVENT_RECORD_HEAD, &calls[i]);
  }
  return count;
}

void event_map_call_pack(const struct event_call *call, uint64_t head[EVENT_RECORD_HEAD]) {
  head[TRACER_RECORD_START] = call->start;
  head[TRACER_RECORD_END] = call->end;
  head[TRACER_RECORD_IDS] = tracer_record_pack_ids(call->pid, call->tid);
  head[TRACER_RECORD_CALL] =
      tracer_record_call((unsigned)call->function,
                         (call->depth & TRACER_RECORD_DEPTH_MASK) |
                             (call->inside_other ? TRACER_RECORD_INSIDE_OTHER : 0),
                         call->status);
}

bool event_map_call_unpack(const uint64_t *head, size_t n, struct event_call *call) {
  if (n < EVENT_RECORD_HEAD)
    return false;
  call->start = head[TRACER_RECORD_START];
  call->end = head[TRACER_RECORD_END];
  call->pid = tracer_record_pid(head[TRACER_RECORD_IDS]);
  call->tid = tracer_record_tid(head[TRACER_RECORD_IDS]);
  call->function = tracer_record_function(head[TRACER_RECORD_CALL]);
  call->depth = tracer_record_depth(head[TRACER_RECORD_CALL]);
  call->inside_other = tracer_record_inside_other(head[TRACER_RECORD_CALL]);
  call->status = tracer_record_status(head[TRACER_RECORD_CALL]);
  return true;
}

bool event_map_ids(const struct event_map *map, const struct event_info *info,
                   const struct ctf_event *ev, int64_t *pid, int64_t *tid) {
  struct event_call call;
  if (event_map_call(info, ev, &call)) {
    *pid = call.pid;
    *tid = call.tid;
    return true;
  }
  if (event_map_field_int(ev, info->pid, pid) && event_map_field_int(ev, info->tid, tid))
    return true;
  return ctf_event_context_int(ev, map->vpid_key, pid) &&
         ctf_event_context_int(ev, map->vtid_key, tid);
}
