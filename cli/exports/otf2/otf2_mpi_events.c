/* otf2_mpi_events: see otf2_mpi_events.h. */
#include "otf2_mpi_events.h"

#include <stdlib.h>
#include <string.h>

#include "ctf.h"
#include "event_map.h"

static int type_of(const struct ctf_event *ev) {
  const char *name = ev ? ev->event_class->name : NULL;
  if (!name || strncmp(name, "lttng_ust_tracer:", 17) != 0)
    return 0;
  if (strcmp(name + 17, "group") == 0)
    return OTF2_MPI_EVENT_GROUP;
  if (strcmp(name + 17, "completed") == 0)
    return OTF2_MPI_EVENT_COMPLETED;
  return 0;
}

bool otf2_mpi_event_is(const struct ctf_event *ev) { return type_of(ev) != 0; }

static int64_t field(const struct ctf_event *ev, const char *name) {
  int64_t v = 0;
  event_map_field_int(ev, ctf_event_class_field_index(ev->event_class, name), &v);
  return v;
}

/* The header and the sequence value of ev; false when unreadable. */
static bool decode(const struct ctf_event *ev, struct otf2_mpi_event *e, struct ctf_value *seq) {
  memset(e, 0, sizeof *e);
  e->type = (uint8_t)type_of(ev);
  if (!e->type)
    return false;
  e->pid = field(ev, "pid");
  e->tid = field(ev, "tid");
  e->call_start = (uint64_t)field(ev, "call_start");
  const char *values = "requests";
  if (e->type == OTF2_MPI_EVENT_GROUP) {
    e->kind = (uint8_t)field(ev, "kind");
    e->handle = (uint64_t)field(ev, "handle");
    e->from = (uint64_t)field(ev, "from");
    e->size = (int32_t)field(ev, "size");
    values = "members";
  }
  int index = ctf_event_class_field_index(ev->event_class, values);
  if (index < 0 || ctf_event_decode_field(ev, (size_t)index, seq, NULL) != CTF_OK ||
      seq->kind != CTF_VALUE_ARRAY || seq->u.array.count > UINT32_MAX)
    return false;
  e->count = (uint32_t)seq->u.array.count;
  return true;
}

/* The sequence name of ev into out when it has count values (one per request). */
static void statuses_of(const struct ctf_event *ev, const char *name, uint64_t *out,
                        uint32_t count) {
  struct ctf_value seq;
  int index = ctf_event_class_field_index(ev->event_class, name);
  if (index >= 0 && ctf_event_decode_field(ev, (size_t)index, &seq, NULL) == CTF_OK &&
      seq.kind == CTF_VALUE_ARRAY && seq.u.array.count == count)
    ctf_value_u64s(&seq, out, count);
}

int otf2_mpi_event_read(const struct ctf_event *ev, void **buffer, size_t *cap) {
  struct otf2_mpi_event e;
  struct ctf_value seq;
  if (!decode(ev, &e, &seq))
    return 1;
  size_t need = sizeof e + otf2_mpi_event_values(&e) * sizeof(uint64_t);
  if (need > *cap) {
    void *grown = realloc(*buffer, need);
    if (!grown)
      return -1;
    *buffer = grown;
    *cap = need;
  }
  uint64_t *values = (uint64_t *)((char *)*buffer + sizeof e);
  uint32_t count = e.count;
  e.count = (uint32_t)ctf_value_u64s(&seq, values, count);
  if (e.type == OTF2_MPI_EVENT_COMPLETED) {
    /* What the statuses say, when the call gave them (the sequences are empty when it
     * ignored them, and absent from older traces). */
    uint64_t *sources = values + e.count, *received = sources + e.count;
    for (uint32_t i = 0; i < e.count; i++)
      sources[i] = (uint64_t)-1, received[i] = 0;
    statuses_of(ev, "sources", sources, e.count);
    statuses_of(ev, "received", received, e.count);
  }
  memcpy(*buffer, &e, sizeof e);
  return 0;
}

int otf2_mpi_event_prepare(const struct ctf_event *ev, struct trace_bytes *out) {
  void *buffer = NULL;
  size_t cap = 0;
  int rc = otf2_mpi_event_read(ev, &buffer, &cap);
  if (rc == 0) {
    const struct otf2_mpi_event *e = buffer;
    rc = trace_bytes_put(out, buffer, sizeof *e + otf2_mpi_event_values(e) * sizeof(uint64_t));
  }
  free(buffer);
  return rc < 0 ? -1 : 0;
}
