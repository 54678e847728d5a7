/* event_map: event class name -> backend, function and role. */
#include "event_map.h"

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
  info->row = -1;
  const char *colon = strchr(c->name, ':');
  if (!colon)
    return;
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
    } else if (strcmp(event, "region") == 0 || strcmp(event, "paused") == 0) {
      /* backend, name, start and end sit where a device command's do. */
      info->role = event[0] == 'r' ? EVENT_REGION : EVENT_PAUSED;
      info->device_backend = ctf_event_class_field_index(c, "backend");
      info->device_name = ctf_event_class_field_index(c, "name");
      info->start = ctf_event_class_field_index(c, "start");
      info->device_end = ctf_event_class_field_index(c, "end");
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
  if (!desc)
    return;
  info->desc = desc;
  info->backend = backend_index(desc);
  if (strcmp(event, "call") == 0) {
    info->role = EVENT_CALL;
    info->record = ctf_event_class_field_index(c, "record"); /* see event_map_call() */
    return;
  }
  size_t stem;
  enum event_role role = EVENT_OTHER;
  if (ends_with(event, event_len, "_entry_full", &stem)) {
    role = EVENT_ENTRY;
    info->full = true;
  } else if (ends_with(event, event_len, "_exit_full", &stem)) {
    role = EVENT_EXIT;
    info->full = true;
  } else if (ends_with(event, event_len, "_entry", &stem)) {
    role = EVENT_ENTRY;
  } else if (ends_with(event, event_len, "_exit", &stem)) {
    role = EVENT_EXIT;
  } else {
    return;
  }
  info->function = backends_function_index(desc, event, stem);
  if (info->function < 0)
    return;
  info->role = role;
  if (role == EVENT_EXIT) {
    info->start = ctf_event_class_field_index(c, "start");
    switch (desc->functions[info->function].status) {
    case TRACER_STATUS_RESULT: info->status = ctf_event_class_field_index(c, "result"); break;
    case TRACER_STATUS_FIELD: info->status = ctf_event_class_field_index(c, "status"); break;
    case TRACER_STATUS_NONE: break;
    }
    if (desc->functions[info->function].row_field)
      info->row = ctf_event_class_field_index(c, desc->functions[info->function].row_field);
  }
}

int event_map_build(const struct ctf_trace *trace, struct event_map *map) {
  map->count = ctf_trace_event_class_count(trace);
  map->infos = calloc(map->count ? map->count : 1, sizeof *map->infos);
  if (!map->infos)
    return -1;
  for (size_t i = 0; i < map->count; i++) {
    const struct ctf_event_class *c = ctf_trace_event_class(trace, i);
    map_class(c, &map->infos[c->index]);
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

static bool payload_int(const struct ctf_event *ev, int field, int64_t *out) {
  struct ctf_value v;
  if (field < 0 || ctf_event_decode_field(ev, (size_t)field, &v, NULL) != CTF_OK ||
      (v.kind != CTF_VALUE_SIGNED && v.kind != CTF_VALUE_UNSIGNED))
    return false;
  *out = v.kind == CTF_VALUE_SIGNED ? v.u.s : (int64_t)v.u.u;
  return true;
}

bool event_map_call(const struct event_info *info, const struct ctf_event *ev,
                    struct event_call *call) {
  struct ctf_value record, element;
  uint64_t values[3];
  if (info->record < 0 ||
      ctf_event_decode_field(ev, (size_t)info->record, &record, NULL) != CTF_OK ||
      record.kind != CTF_VALUE_ARRAY || record.u.array.count != 3)
    return false;
  for (uint64_t i = 0; i < 3; i++) {
    if (ctf_value_element(&record, i, &element) != CTF_OK ||
        (element.kind != CTF_VALUE_SIGNED && element.kind != CTF_VALUE_UNSIGNED))
      return false;
    values[i] = element.kind == CTF_VALUE_SIGNED ? (uint64_t)element.u.s : element.u.u;
  }
  call->start = values[0];
  call->pid = (int64_t)(values[1] >> 32);
  call->tid = (int64_t)(uint32_t)values[1];
  call->function = (int64_t)(values[2] >> 32);
  call->status = (int32_t)(uint32_t)values[2];
  return true;
}

bool event_map_ids(const struct event_map *map, const struct event_info *info,
                   const struct ctf_event *ev, int64_t *pid, int64_t *tid) {
  struct event_call call;
  if (info->record >= 0 && event_map_call(info, ev, &call)) {
    *pid = call.pid;
    *tid = call.tid;
    return true;
  }
  if (payload_int(ev, info->pid, pid) && payload_int(ev, info->tid, tid))
    return true;
  return ctf_event_context_int(ev, map->vpid_key, pid) &&
         ctf_event_context_int(ev, map->vtid_key, tid);
}
