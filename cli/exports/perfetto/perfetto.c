/* perfetto: the timeline as Perfetto protobuf; see perfetto.h. */
#include "perfetto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfetto_internal.h"
#include "perfetto_proto.h"

int perfetto_part_path(const char *path, unsigned part, char *out, size_t out_size) {
  if (part == 1)
    return snprintf(out, out_size, "%s", path) < (int)out_size ? 0 : -1;
  size_t len = strlen(path);
  const char *suffix = ".pftrace";
  size_t stem = len >= 8 && strcmp(path + len - 8, suffix) == 0 ? len - 8 : len;
  int n = part == 0 ? snprintf(out, out_size, "%.*s.summary.pftrace", (int)stem, path)
                    : snprintf(out, out_size, "%.*s.part%u.pftrace", (int)stem, path, part);
  return n > 0 && (size_t)n < out_size ? 0 : -1;
}

/* ---- Tracks -------------------------------------------------------------------------- */

static struct pf_track *track_of(struct perfetto *pf, timeline_track uuid) {
  return uuid && uuid <= pf->track_count ? &pf->tracks[uuid - 1] : NULL;
}

/* The bytes the track's slices repeat (pf_track.bytes), as pf_file_packet_head,
 * pf_file_machine, event_body and end_body write them. */
static void track_bytes(const struct perfetto *pf, struct pf_track *t) {
  struct pf_track_bytes *b = &t->bytes;
  b->sequence_id = pf->options.sequence_id ? pf->options.sequence_id : 1; /* pf_file_open's */
  struct pb p = {0};
  pb_varint(&p, PACKET_SEQUENCE_ID, b->sequence_id);
  pb_varint(&p, PACKET_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
  if (t->machine)
    pb_varint(&p, PACKET_MACHINE_ID, t->machine);
  size_t head = p.len;
  pb_varint(&p, EVENT_TYPE, TYPE_SLICE_BEGIN);
  pb_varint(&p, EVENT_TRACK_UUID, t->written);
  size_t begin = p.len;
  size_t e = pb_begin(&p, PACKET_TRACK_EVENT);
  pb_varint(&p, EVENT_TYPE, TYPE_SLICE_END);
  pb_varint(&p, EVENT_TRACK_UUID, t->written);
  pb_end(&p, e);
  if (!p.failed && head <= sizeof b->head && begin - head <= sizeof b->begin &&
      p.len - begin <= sizeof b->end) {
    memcpy(b->head, p.data, head);
    memcpy(b->begin, p.data + head, begin - head);
    memcpy(b->end, p.data + begin, p.len - begin);
    b->head_len = (uint8_t)head;
    b->begin_len = (uint8_t)(begin - head);
    b->end_len = (uint8_t)(p.len - begin);
  } else {
    b->sequence_id = 0; /* no sequence has it: its slices go the general way */
  }
  pb_free(&p);
}

/* A track made by the writer: its descriptor in the part and in the summary. Tracks come
 * numbered from 1 in order. */
static int on_track(void *state, const struct timeline_track_info *info) {
  struct perfetto *pf = state;
  if (pf->track_count == pf->track_cap) {
    size_t cap = pf->track_cap ? pf->track_cap * 2 : 64;
    struct pf_track *grown = realloc(pf->tracks, cap * sizeof *grown);
    if (!grown)
      return perfetto_fail(pf, "Cannot write the timeline: out of memory");
    pf->tracks = grown;
    pf->track_cap = cap;
  }
  struct pf_track *t = &pf->tracks[pf->track_count];
  *t = (struct pf_track){.uuid = info->uuid, .parent = info->parent, .kind = info->kind,
                         .id = info->id, .pid = info->pid, .unit = info->unit};
  if (!(t->name = strdup(info->name ? info->name : "")))
    return perfetto_fail(pf, "Cannot write the timeline: out of memory");
  pf->track_count++;
  t->written = t->uuid + pf->options.uuid_base;
  const struct pf_track *parent = track_of(pf, t->parent);
  t->machine = parent ? parent->machine : 0;
  if (t->kind == TIMELINE_TRACK_HOST) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a of the host name */
    for (const char *c = t->name; *c; c++)
      h = (h ^ (uint8_t)*c) * 1099511628211ull;
    if (pf->options.uuid_base)
      t->written = h | 1ull << 63; /* top bit set */
    /* Pids repeat across nodes: each host's tracks are of a machine of its own
     * (Perfetto's TracePacket.machine_id), so that processes of the same pid on two
     * nodes stay apart. A job's ranks, written apart, name every host's machine by the
     * same hash, so that the ranks of one node share it; one timeline leaves its first
     * host on the default machine. */
    if (pf->options.uuid_base || pf->hosts_seen++)
      t->machine = (uint32_t)(h ^ h >> 32) | 1;
  }
  track_bytes(pf, t);
  pf_file_track_descriptor(&pf->part, &pf->packet, t);
  if (pf_file_packet(pf, &pf->part, &pf->packet) || pf_file_packet(pf, &pf->summary, &pf->packet))
    return -1;
  return 0;
}

/* ---- Parts --------------------------------------------------------------------------- */

static int next_part(struct perfetto *pf) {
  if (pf_file_close(pf, &pf->part))
    return -1;
  char name[4096];
  if (perfetto_part_path(pf->path, ++pf->part_number, name, sizeof name))
    return perfetto_fail(pf, "Cannot name the timeline's part %u: path=%s", pf->part_number,
                         pf->path);
  if (pf_file_open(pf, &pf->part, name, true))
    return -1;
  for (size_t i = 0; i < pf->track_count; i++) {
    pf_file_track_descriptor(&pf->part, &pf->packet, &pf->tracks[i]);
    if (pf_file_packet(pf, &pf->part, &pf->packet))
      return -1;
  }
  return 0;
}

/* ---- Events -------------------------------------------------------------------------- */

static void put_args(struct pb *p, const struct trace_arg *args, size_t count,
                     const uint64_t *name_iids) {
  for (size_t i = 0; i < count; i++) {
    const struct trace_arg *a = &args[i];
    size_t m = pb_begin(p, EVENT_DEBUG_ANNOTATIONS);
    if (name_iids[i])
      pb_varint(p, ANNOTATION_NAME_IID, name_iids[i]);
    else
      pb_string(p, ANNOTATION_NAME, a->name);
    switch (a->kind) {
    case TRACE_ARG_INT: pb_sint(p, ANNOTATION_INT, a->v.i); break;
    case TRACE_ARG_UINT: pb_varint(p, ANNOTATION_UINT, a->v.u); break;
    case TRACE_ARG_DOUBLE: pb_double(p, ANNOTATION_DOUBLE, a->v.d); break;
    case TRACE_ARG_STRING: pb_string(p, ANNOTATION_STRING, a->v.s); break;
    case TRACE_ARG_POINTER: pb_varint(p, ANNOTATION_POINTER, a->v.u); break;
    }
    pb_end(p, m);
  }
}

enum { MAX_INTERNED_ARGS = 64 };

/* A begin or instant event's packet, appended to p: names first interned (in the
 * packet's interned data), then the event. */
static inline void event_body(struct pf_file *file, struct pb *p, uint64_t ts, int type,
                              timeline_track track, const char *name, const char *category,
                              const struct trace_arg *args, size_t arg_count,
                              uint64_t flow_out, uint64_t flow_in, bool stable) {
  pf_file_packet_head(file, p, ts, true);
  pf_file_machine(file, p, track);
  size_t data = 0;
  uint64_t iid = pf_file_intern(file, name, false, stable, p, &data);
  uint64_t arg_iids[MAX_INTERNED_ARGS];
  if (arg_count > MAX_INTERNED_ARGS)
    arg_count = MAX_INTERNED_ARGS;
  for (size_t i = 0; i < arg_count; i++)
    arg_iids[i] = pf_file_intern(file, args[i].name, true, stable, p, &data);
  if (data)
    pb_end(p, data);
  size_t e = pb_begin(p, PACKET_TRACK_EVENT);
  pb_varint(p, EVENT_TYPE, (uint64_t)type);
  pb_varint(p, EVENT_TRACK_UUID, pf_file_uuid(file, track));
  if (iid)
    pb_varint(p, EVENT_NAME_IID_FIELD, iid);
  else
    pb_string(p, EVENT_NAME_FIELD, name);
  if (category)
    pb_string(p, EVENT_CATEGORIES, category);
  put_args(p, args, arg_count, arg_iids);
  if (flow_out)
    pb_fixed64(p, EVENT_FLOW_IDS, flow_out);
  if (flow_in)
    pb_fixed64(p, EVENT_TERMINATING_FLOW_IDS, flow_in);
  pb_end(p, e);
}

static void event_packet(struct pf_file *file, struct pb *p, uint64_t ts, int type,
                         timeline_track track, const char *name, const char *category,
                         const struct trace_arg *args, size_t arg_count, uint64_t flow_out,
                         uint64_t flow_in, bool stable) {
  pb_reset(p);
  event_body(file, p, ts, type, track, name, category, args, arg_count, flow_out, flow_in,
             stable);
}

static inline void end_body(struct pf_file *file, struct pb *p, uint64_t ts,
                            timeline_track track) {
  pf_file_packet_head(file, p, ts, true);
  pf_file_machine(file, p, track);
  size_t e = pb_begin(p, PACKET_TRACK_EVENT);
  pb_varint(p, EVENT_TYPE, TYPE_SLICE_END);
  pb_varint(p, EVENT_TRACK_UUID, pf_file_uuid(file, track));
  pb_end(p, e);
}

/* ---- The common slice, fast ------------------------------------------------------- */

/* Writers through a local cursor: the compiler keeps it in a register, where stores of
 * bytes through pb->data made it reload the buffer's fields after every byte. The room
 * is reserved first, for the whole slice, with PUT_SLACK bytes beyond: a varint of more
 * than two bytes is written as 8 bytes at once (and a ninth and tenth), its 7-bit
 * groups spread out by shifts and masks, which a byte at a time made the most of a
 * slice's cost (times and addresses take 6 to 9 bytes). */
enum { PUT_SLACK = 8 };

__attribute__((always_inline)) static inline uint8_t *put_varint_long(uint8_t *w, uint64_t v) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  static const uint8_t bytes_for_bits[65] = {
      1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5,
      5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 10};
  unsigned n = bytes_for_bits[64 - __builtin_clzll(v)]; /* 3 to 10 bytes here */
  /* The low 56 bits, 7 to a byte: 28-bit halves, 14-bit quarters, 7-bit eighths. */
  uint64_t x = v & UINT64_C(0x00FFFFFFFFFFFFFF);
  x = (x & UINT64_C(0x000000000FFFFFFF)) | (x & UINT64_C(0x00FFFFFFF0000000)) << 4;
  x = (x & UINT64_C(0x00003FFF00003FFF)) | (x & UINT64_C(0x0FFFC0000FFFC000)) << 2;
  x = (x & UINT64_C(0x007F007F007F007F)) | (x & UINT64_C(0x3F803F803F803F80)) << 1;
  if (n <= 8) {
    x |= UINT64_C(0x8080808080808080) >> (8 * (9 - n)); /* each byte but the last goes on */
    memcpy(w, &x, 8);
    return w + n;
  }
  x |= UINT64_C(0x8080808080808080);
  memcpy(w, &x, 8);
  uint64_t high = v >> 56;
  if (n == 9) {
    w[8] = (uint8_t)high;
    return w + 9;
  }
  w[8] = (uint8_t)(high | 0x80);
  w[9] = (uint8_t)(high >> 7);
  return w + 10;
#else
  while (v >= 0x80) {
    *w++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *w++ = (uint8_t)v;
  return w;
#endif
}

__attribute__((always_inline)) static inline uint8_t *put_varint(uint8_t *w, uint64_t v) {
  if (v < 0x80) {
    *w = (uint8_t)v;
    return w + 1;
  }
  if (v < 0x4000) {
    w[0] = (uint8_t)(v | 0x80);
    w[1] = (uint8_t)(v >> 7);
    return w + 2;
  }
  return put_varint_long(w, v);
}

__attribute__((always_inline)) static inline uint8_t *put_field(uint8_t *w, uint32_t field, uint64_t v) {
  return put_varint(put_varint(w, (uint64_t)field << 3), v);
}

__attribute__((always_inline)) static inline uint8_t *put_fixed64(uint8_t *w, uint32_t field, uint64_t v) {
  w = put_varint(w, (uint64_t)field << 3 | 1);
  for (int i = 0; i < 8; i++)
    *w++ = (uint8_t)(v >> (8 * i));
  return w;
}

__attribute__((always_inline)) static inline uint8_t *put_bytes(uint8_t *w, uint32_t field, const char *s, size_t len) {
  w = put_varint(put_varint(w, (uint64_t)field << 3 | 2), len);
  if (len)
    memcpy(w, s, len);
  return w + len;
}

/* A length-delimited message's head: its tag and one length byte, filled in by close(). */
__attribute__((always_inline)) static inline uint8_t *open_message(uint8_t *w, uint32_t field) {
  w = put_varint(w, (uint64_t)field << 3 | 2);
  *w++ = 0;
  return w;
}

/* Closes the message whose body starts at `mark`: its length before it (minimal, as
 * pb_end writes it); returns the end. */
__attribute__((always_inline)) static inline uint8_t *close_message(uint8_t *mark, uint8_t *w) {
  size_t body = (size_t)(w - mark);
  if (body < 0x80) {
    mark[-1] = (uint8_t)body;
    return w;
  }
  size_t size = 1;
  for (size_t v = body; v >= 0x80; v >>= 7)
    size++;
  memmove(mark + size - 1, mark, body);
  uint8_t *at = mark - 1; /* exactly `size` bytes: the body follows */
  for (; body >= 0x80; body >>= 7)
    *at++ = (uint8_t)(body | 0x80);
  *at = (uint8_t)body;
  return w + size - 1;
}

/* The room a message's length may take beyond its one byte, and a field's most. */
enum { LENGTH_ROOM = 10, FIELD_ROOM = 24 };

/* A slice whose names (stable) this file has interned already, the common case:
 * encoded at once through a cursor, the same bytes as event_body and end_body write.
 * Returns the bytes added (begin and end packets), *size as write_slice counts them for
 * the split; 0 when the slice is not of this kind (or no room): the general way then. */
static size_t fast_slice(struct pf_file *file, timeline_track track,
                         const struct timeline_slice *s, uint64_t *size) {
  if (!file->interning || !s->stable_names || s->arg_count > MAX_INTERNED_ARGS || !track ||
      track > file->owner->track_count)
    return 0;
  const struct intern *names = &file->names, *arg_names = &file->arg_names;
  size_t slot = pf_intern_slot(s->name);
  if (names->by_address[slot].address != s->name)
    return 0;
  uint64_t iid = names->by_address[slot].iid;
  uint64_t arg_iids[MAX_INTERNED_ARGS];
  size_t room = 4 * FIELD_ROOM + 6 * LENGTH_ROOM + 64;
  size_t category_len = s->category ? strlen(s->category) : 0;
  room += category_len + FIELD_ROOM;
  size_t value_len[MAX_INTERNED_ARGS];
  uint16_t arg_slots[MAX_INTERNED_ARGS];
  for (size_t i = 0; i < s->arg_count; i++) {
    const struct trace_arg *a = &s->args[i];
    slot = pf_intern_slot(a->name);
    if (arg_names->by_address[slot].address != a->name)
      return 0;
    arg_slots[i] = (uint16_t)slot;
    arg_iids[i] = arg_names->by_address[slot].iid;
    value_len[i] = a->kind == TRACE_ARG_STRING && a->v.s ? strlen(a->v.s) : 0;
    room += 2 * FIELD_ROOM + LENGTH_ROOM + value_len[i];
  }
  struct pb *out = &file->out;
  const struct pf_track_bytes *t = &file->owner->tracks[track - 1].bytes;
  if (t->sequence_id != file->sequence_id || !pb_reserve(out, room + PUT_SLACK))
    return 0;
  uint8_t *start = out->data + out->len, *w = start;
  /* The begin packet. */
  uint8_t *packet = open_message(w, TRACE_PACKET);
  w = put_field(packet, PACKET_TIMESTAMP, s->start);
  memcpy(w, t->head, sizeof t->head);
  w += t->head_len;
  uint8_t *event = open_message(w, PACKET_TRACK_EVENT);
  memcpy(event, t->begin, sizeof t->begin);
  w = event + t->begin_len;
  w = put_field(w, EVENT_NAME_IID_FIELD, iid);
  if (s->category)
    w = put_bytes(w, EVENT_CATEGORIES, s->category, category_len);
  for (size_t i = 0; i < s->arg_count; i++) {
    const struct trace_arg *a = &s->args[i];
    struct pf_annotation *last = &file->annotations[arg_slots[i]];
    if (a->kind != TRACE_ARG_STRING && last->name == a->name && last->value == a->v.u &&
        last->kind == (int)a->kind) {
      memcpy(w, last->bytes, sizeof last->bytes);
      w += last->len;
      continue;
    }
    uint8_t *m = open_message(w, EVENT_DEBUG_ANNOTATIONS), *annotation = w;
    w = put_field(m, ANNOTATION_NAME_IID, arg_iids[i]);
    switch (a->kind) {
    case TRACE_ARG_INT: w = put_field(w, ANNOTATION_INT, (uint64_t)a->v.i); break;
    case TRACE_ARG_UINT: w = put_field(w, ANNOTATION_UINT, a->v.u); break;
    case TRACE_ARG_DOUBLE: {
      uint64_t bits;
      memcpy(&bits, &a->v.d, sizeof bits);
      w = put_fixed64(w, ANNOTATION_DOUBLE, bits);
      break;
    }
    case TRACE_ARG_STRING:
      w = put_bytes(w, ANNOTATION_STRING, a->v.s ? a->v.s : "", value_len[i]);
      break;
    case TRACE_ARG_POINTER: w = put_field(w, ANNOTATION_POINTER, a->v.u); break;
    }
    w = close_message(m, w);
    if (a->kind != TRACE_ARG_STRING && (size_t)(w - annotation) <= sizeof last->bytes) {
      last->name = a->name;
      last->value = a->v.u;
      last->kind = (int)a->kind;
      last->len = (uint8_t)(w - annotation);
      memcpy(last->bytes, annotation, last->len);
    }
  }
  if (s->flow_out)
    w = put_fixed64(w, EVENT_FLOW_IDS, s->flow_out);
  if (s->flow_in)
    w = put_fixed64(w, EVENT_TERMINATING_FLOW_IDS, s->flow_in);
  w = close_message(event, w);
  *size = (uint64_t)(w - packet);
  w = close_message(packet, w);
  /* The end packet. */
  packet = open_message(w, TRACE_PACKET);
  w = put_field(packet, PACKET_TIMESTAMP, s->end);
  memcpy(w, t->head, sizeof t->head);
  w += t->head_len;
  memcpy(w, t->end, sizeof t->end);
  w += t->end_len;
  *size += (uint64_t)(w - packet) + 16;
  w = close_message(packet, w);
  return (size_t)(w - start);
}

/* A slice's begin and end packets, each a TracePacket encoded straight into the file's
 * buffer (no packet built apart and copied: most of a timeline's bytes are these). */
static int write_slice(struct perfetto *pf, struct pf_file *file, timeline_track track,
                       const struct timeline_slice *s, bool may_split) {
  struct pb *out = &file->out;
  uint64_t fast_size;
  size_t fast = fast_slice(file, track, s, &fast_size);
  if (fast && (!may_split || file->events == 0 ||
               file->bytes + fast_size <= pf->options.split_bytes)) {
    out->len += fast;
    file->events++;
    file->bytes += fast;
    return out->len >= PF_FLUSH_BYTES ? pf_file_flush(pf, file) : 0;
  }
  /* Else (or when the part must split first: written past out->len, not kept) the
   * general way. */
  size_t before;
  for (int attempt = 0;; attempt++) {
    before = out->len;
    size_t begin = pb_begin(out, TRACE_PACKET);
    event_body(file, out, s->start, TYPE_SLICE_BEGIN, track, s->name, s->category, s->args,
               s->arg_count, s->flow_out, s->flow_in, s->stable_names);
    uint64_t size = out->len - begin;
    pb_end(out, begin);
    size_t end = pb_begin(out, TRACE_PACKET);
    end_body(file, out, s->end, track);
    size += out->len - end + 16;
    pb_end(out, end);
    if (!may_split || attempt || file->events == 0 ||
        file->bytes + size <= pf->options.split_bytes || out->failed)
      break;
    /* The names interned above belong to the closing part; the next part interns
     * them again, so the packets are built again. */
    out->len = before;
    if (next_part(pf))
      return -1;
    out = &file->out;
  }
  file->events++;
  file->bytes += out->len - before;
  return out->len >= PF_FLUSH_BYTES || out->failed ? pf_file_flush(pf, file) : 0;
}

static void keep_longest(struct perfetto *pf, timeline_track track,
                         const struct timeline_slice *s) {
  uint64_t d = s->end - s->start;
  size_t n = pf->longest_count, cap = pf->options.summary_slices;
  struct summary_slice *h = pf->longest;
  if (n == cap && d <= h[0].duration)
    return;
  char *name = strdup(s->name);
  if (!name)
    return;
  struct summary_slice item = {d, s->start, s->end, track, name};
  size_t at;
  if (n < cap) { /* sift up */
    at = pf->longest_count++;
    while (at > 0 && h[(at - 1) / 2].duration > d) {
      h[at] = h[(at - 1) / 2];
      at = (at - 1) / 2;
    }
  } else { /* replace the shortest, sift down */
    free(h[0].name);
    at = 0;
    for (;;) {
      size_t c = 2 * at + 1;
      if (c >= n)
        break;
      if (c + 1 < n && h[c + 1].duration < h[c].duration)
        c++;
      if (h[c].duration >= d)
        break;
      h[at] = h[c];
      at = c;
    }
  }
  h[at] = item;
}

static int on_slice(void *state, timeline_track track, const struct timeline_slice *s) {
  struct perfetto *pf = state;
  if (write_slice(pf, &pf->part, track, s, true))
    return -1;
  keep_longest(pf, track, s);
  return 0;
}

static int on_instant(void *state, timeline_track track, uint64_t ts, const char *name,
                      const struct trace_arg *args, size_t arg_count) {
  struct perfetto *pf = state;
  for (int attempt = 0;; attempt++) {
    event_packet(&pf->part, &pf->packet, ts, TYPE_INSTANT, track, name, NULL, args, arg_count,
                 0, 0, false);
    if (attempt || pf->part.events == 0 ||
        pf->part.bytes + pf->packet.len + 8 <= pf->options.split_bytes)
      break;
    if (next_part(pf))
      return -1;
  }
  pf->part.events++;
  return pf_file_packet(pf, &pf->part, &pf->packet);
}

static void counter_packet(struct pf_file *file, struct pb *p, timeline_track track, uint64_t ts,
                           double value) {
  pb_reset(p);
  pf_file_packet_head(file, p, ts, true);
  pf_file_machine(file, p, track);
  size_t e = pb_begin(p, PACKET_TRACK_EVENT);
  pb_varint(p, EVENT_TYPE, TYPE_COUNTER);
  pb_varint(p, EVENT_TRACK_UUID, pf_file_uuid(file, track));
  pb_double(p, EVENT_DOUBLE_COUNTER_VALUE, value);
  pb_end(p, e);
}

static int on_counter(void *state, timeline_track track, uint64_t ts, double value) {
  struct perfetto *pf = state;
  struct pf_track *t = track_of(pf, track);
  counter_packet(&pf->part, &pf->packet, track, ts, value);
  if (pf->part.events && pf->part.bytes + pf->packet.len + 8 > pf->options.split_bytes) {
    if (next_part(pf)) /* which builds packets of its own: build this one again */
      return -1;
    counter_packet(&pf->part, &pf->packet, track, ts, value);
  }
  pf->part.events++;
  if (pf_file_packet(pf, &pf->part, &pf->packet))
    return -1;
  if (t && (!t->summary_any || ts >= t->summary_last + pf->options.summary_interval ||
            ts < t->summary_last)) {
    t->summary_any = true;
    t->summary_last = ts;
    counter_packet(&pf->summary, &pf->packet, track, ts, value);
    return pf_file_packet(pf, &pf->summary, &pf->packet);
  }
  return 0;
}

/* ---- Closing ------------------------------------------------------------------------- */

static void free_perfetto(struct perfetto *pf) {
  for (size_t i = 0; i < pf->track_count; i++)
    free(pf->tracks[i].name);
  free(pf->tracks);
  free(pf->longest);
  pb_free(&pf->packet);
  free(pf->path);
  free(pf);
}

static int on_close(void *state, struct timeline_stats *stats, char *error,
                    size_t error_size) {
  struct perfetto *pf = state;
  int rc = pf->error[0] ? -1 : 0;
  for (size_t i = 0; i < pf->longest_count; i++) {
    struct summary_slice *l = &pf->longest[i];
    struct timeline_slice s = {.track = l->track, .start = l->start, .end = l->end,
                               .name = l->name};
    if (rc == 0 && pf->summary.fd >= 0 && write_slice(pf, &pf->summary, l->track, &s, false))
      rc = -1;
    free(l->name);
  }
  bool split = pf->part_number > 1;
  char summary_path[4096] = "";
  if (pf->summary.path)
    snprintf(summary_path, sizeof summary_path, "%s", pf->summary.path);
  if (pf_file_close(pf, &pf->part))
    rc = -1;
  if (pf_file_close(pf, &pf->summary))
    rc = -1;
  if (!split && summary_path[0])
    unlink(summary_path); /* one file holds everything: no summary needed */
  if (stats) {
    stats->parts = pf->part_number;
    stats->summary = split;
    stats->bytes = 0; /* from the files' sizes */
    for (unsigned p = split ? 0 : 1; pf->path && p <= pf->part_number; p++) {
      char name[4096];
      FILE *f;
      if (perfetto_part_path(pf->path, p, name, sizeof name) == 0 && p &&
          (f = fopen(name, "rb"))) {
        fseek(f, 0, SEEK_END);
        stats->bytes += (uint64_t)ftell(f);
        fclose(f);
      }
    }
  }
  if (error && error_size)
    snprintf(error, error_size, "%s", pf->error);
  free_perfetto(pf);
  return rc;
}

static const char *on_error(const void *state) {
  return ((const struct perfetto *)state)->error;
}

static const struct timeline_sink_ops perfetto_ops = {
    .track = on_track,
    .slice = on_slice,
    .instant = on_instant,
    .counter = on_counter,
    .close = on_close,
    .error = on_error,
};

int perfetto_sink_open(const struct perfetto_options *options, struct timeline_sink *sink,
                       struct diag *d) {
  struct perfetto *pf = calloc(1, sizeof *pf);
  if (!pf)
    return diag_error(d, "Cannot write the timeline: out of memory");
  pf->options = *options;
  if (!pf->options.split_bytes)
    pf->options.split_bytes = PERFETTO_DEFAULT_SPLIT_BYTES;
  if (!pf->options.summary_interval)
    pf->options.summary_interval = 1000000;
  if (!pf->options.summary_slices)
    pf->options.summary_slices = 1000;
  pf->path = strdup(options->path);
  pf->longest = calloc(pf->options.summary_slices, sizeof *pf->longest);
  pf->part.fd = pf->summary.fd = -1;
  char name[4096];
  pf->part_number = 1;
  if (!pf->path || !pf->longest)
    perfetto_fail(pf, "Cannot write the timeline: out of memory");
  else if (pf_file_open(pf, &pf->part, pf->path, true) == 0 &&
           (perfetto_part_path(pf->path, 0, name, sizeof name) ||
            pf_file_open(pf, &pf->summary, name, false)))
    perfetto_fail(pf, "Cannot create the timeline summary: file=%s", name);
  if (pf->error[0]) {
    diag_error(d, "%s", pf->error);
    on_close(pf, NULL, NULL, 0);
    return -1;
  }
  pf->options.path = pf->path;
  *sink = (struct timeline_sink){&perfetto_ops, pf};
  return 0;
}
