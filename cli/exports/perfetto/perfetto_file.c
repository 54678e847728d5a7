/* perfetto_file: the .pftrace files: buffered writes, the sequence's head packet,
 * interned names and track descriptors. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfetto_internal.h"
#include "perfetto_proto.h"

enum { INTERN_MAX = 1 << 16 };

int perfetto_fail(struct perfetto *pf, const char *fmt, ...) {
  if (!pf->error[0]) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pf->error, sizeof pf->error, fmt, ap);
    va_end(ap);
  }
  return -1;
}

int pf_file_open(struct perfetto *pf, struct pf_file *file, const char *path, bool interning) {
  memset(file, 0, sizeof *file);
  file->owner = pf;
  file->sequence_id = pf->options.sequence_id ? pf->options.sequence_id : 1;
  file->fd = -1;
  file->interning = interning;
  file->path = strdup(path);
  if (!file->path)
    return perfetto_fail(pf, "Cannot write the timeline: out of memory");
  file->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (file->fd < 0)
    return perfetto_fail(pf, "Cannot create the timeline: file=%s, %s", path, strerror(errno));
  /* The first packet clears the sequence's incremental state (interned names). */
  struct pb *p = &pf->packet;
  pb_reset(p);
  pb_varint(p, PACKET_SEQUENCE_ID, file->sequence_id);
  pb_varint(p, PACKET_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
  return pf_file_packet(pf, file, p);
}

int pf_file_flush(struct perfetto *pf, struct pf_file *file) {
  if (file->out.failed)
    return perfetto_fail(pf, "Cannot write the timeline: out of memory");
  size_t done = 0;
  while (done < file->out.len) {
    ssize_t n = write(file->fd, file->out.data + done, file->out.len - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return perfetto_fail(pf, "Cannot write the timeline: file=%s, %s", file->path,
                           n < 0 ? strerror(errno) : "nothing written");
    done += (size_t)n;
  }
  pb_reset(&file->out);
  return 0;
}

int pf_file_close(struct perfetto *pf, struct pf_file *file) {
  int rc = 0;
  if (file->fd >= 0) {
    rc = pf_file_flush(pf, file);
    if (close(file->fd) != 0 && rc == 0)
      rc = perfetto_fail(pf, "Cannot write the timeline: file=%s, %s", file->path,
                         strerror(errno));
  }
  file->fd = -1;
  pb_free(&file->out);
  intern_free(&file->names);
  intern_free(&file->arg_names);
  free(file->path);
  file->path = NULL;
  return rc;
}

int pf_file_packet(struct perfetto *pf, struct pf_file *file, const struct pb *packet) {
  size_t before = file->out.len;
  pb_bytes(&file->out, TRACE_PACKET, packet->data, packet->len);
  file->bytes += file->out.len - before;
  if (packet->failed)
    file->out.failed = true;
  return file->out.len >= PF_FLUSH_BYTES || file->out.failed ? pf_file_flush(pf, file) : 0;
}

static uint64_t hash_name(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h ? h : 1;
}

static bool intern_grow(struct intern *in) {
  size_t cap = in->cap ? in->cap * 2 : 256;
  struct intern_entry *slots = calloc(cap, sizeof *slots);
  if (!slots)
    return false;
  for (size_t i = 0; i < in->cap; i++) {
    if (!in->slots[i].hash)
      continue;
    size_t at = in->slots[i].hash & (cap - 1);
    while (slots[at].hash)
      at = (at + 1) & (cap - 1);
    slots[at] = in->slots[i];
  }
  free(in->slots);
  in->slots = slots;
  in->cap = cap;
  return true;
}

static uint64_t pf_file_intern_text(struct pf_file *file, struct intern *in, const char *name,
                                 bool arg, struct pb *packet, size_t *data) {
  (void)file;
  uint64_t h = hash_name(name);
  if (in->cap) {
    for (size_t at = h & (in->cap - 1); in->slots[at].hash; at = (at + 1) & (in->cap - 1))
      if (in->slots[at].hash == h && strcmp(in->slots[at].name, name) == 0)
        return in->slots[at].iid;
  }
  /* Bounded: past INTERN_MAX distinct names, the rest are written inline. */
  if (in->count >= INTERN_MAX || ((in->count + 1) * 2 > in->cap && !intern_grow(in)))
    return 0;
  char *copy = strdup(name);
  if (!copy)
    return 0;
  size_t at = h & (in->cap - 1);
  while (in->slots[at].hash)
    at = (at + 1) & (in->cap - 1);
  in->slots[at] = (struct intern_entry){h, (uint32_t)++in->count, copy};
  if (!*data)
    *data = pb_begin(packet, PACKET_INTERNED_DATA);
  size_t entry = pb_begin(packet, arg ? INTERNED_ANNOTATION_NAMES : INTERNED_EVENT_NAMES);
  pb_varint(packet, EVENT_NAME_IID, in->count);
  pb_string(packet, EVENT_NAME_NAME, name);
  pb_end(packet, entry);
  return in->count;
}

uint64_t pf_file_intern_slow(struct pf_file *file, const char *name, bool arg, bool stable,
                             struct pb *packet, size_t *data) {
  struct intern *in = arg ? &file->arg_names : &file->names;
  uint64_t iid = pf_file_intern_text(file, in, name, arg, packet, data);
  if (stable && iid) {
    size_t slot = pf_intern_slot(name);
    in->by_address[slot].address = name;
    in->by_address[slot].iid = (uint32_t)iid;
  }
  return iid;
}

void intern_free(struct intern *in) {
  for (size_t i = 0; i < in->cap; i++)
    free(in->slots[i].name);
  free(in->slots);
  memset(in, 0, sizeof *in);
}

void pf_file_track_descriptor(struct pf_file *file, struct pb *p, const struct pf_track *t) {
  pb_reset(p);
  pb_varint(p, PACKET_SEQUENCE_ID, file->sequence_id);
  if (t->machine)
    pb_varint(p, PACKET_MACHINE_ID, t->machine);
  size_t d = pb_begin(p, PACKET_TRACK_DESCRIPTOR);
  pb_varint(p, TRACK_UUID, t->written);
  if (t->parent)
    pb_varint(p, TRACK_PARENT_UUID, pf_file_uuid(file, t->parent));
  pb_string(p, TRACK_NAME, t->name);
  if (t->kind == TIMELINE_TRACK_PROCESS) {
    size_t m = pb_begin(p, TRACK_PROCESS);
    pb_sint(p, PROCESS_PID, t->pid);
    pb_string(p, PROCESS_NAME, t->name);
    pb_end(p, m);
  } else if (t->kind == TIMELINE_TRACK_THREAD) {
    size_t m = pb_begin(p, TRACK_THREAD);
    pb_sint(p, THREAD_PID, t->pid);
    pb_sint(p, THREAD_TID, t->id);
    pb_string(p, THREAD_NAME, t->name);
    pb_end(p, m);
  } else if (t->kind == TIMELINE_TRACK_COUNTER) {
    size_t m = pb_begin(p, TRACK_COUNTER);
    static const int units[] = {[TIMELINE_UNIT_COUNT] = 2, [TIMELINE_UNIT_BYTES] = 3,
                                [TIMELINE_UNIT_NS] = 1};
    pb_varint(p, COUNTER_UNIT, (uint64_t)units[t->unit]);
    pb_end(p, m);
  }
  pb_end(p, d);
}
