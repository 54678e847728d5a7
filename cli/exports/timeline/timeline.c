/* timeline: tracks, slices, counters and the files they go to; see timeline.h. */
#include "timeline.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "timeline_internal.h"
#include "timeline_proto.h"

enum { JSON_SYNTHETIC_ID = 1000000000 };

int timeline_fail(struct timeline *tl, const char *fmt, ...) {
  if (!tl->error[0]) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tl->error, sizeof tl->error, fmt, ap);
    va_end(ap);
  }
  return -1;
}

const char *timeline_error(const struct timeline *tl) { return tl->error; }

int timeline_part_path(const char *path, unsigned part, char *out, size_t out_size) {
  if (part == 1)
    return snprintf(out, out_size, "%s", path) < (int)out_size ? 0 : -1;
  size_t len = strlen(path);
  const char *suffix = ".pftrace";
  size_t stem = len >= 8 && strcmp(path + len - 8, suffix) == 0 ? len - 8 : len;
  int n = part == 0 ? snprintf(out, out_size, "%.*s.summary.pftrace", (int)stem, path)
                    : snprintf(out, out_size, "%.*s.part%u.pftrace", (int)stem, path, part);
  return n > 0 && (size_t)n < out_size ? 0 : -1;
}

int timeline_open(const struct timeline_options *options, struct timeline **out) {
  *out = NULL;
  struct timeline *tl = calloc(1, sizeof *tl);
  if (!tl)
    return -1;
  *out = tl;
  tl->options = *options;
  if (!tl->options.split_bytes)
    tl->options.split_bytes = TIMELINE_DEFAULT_SPLIT_BYTES;
  if (!tl->options.summary_interval)
    tl->options.summary_interval = 1000000;
  if (!tl->options.summary_slices)
    tl->options.summary_slices = 1000;
  tl->path = strdup(options->path);
  tl->longest = calloc(tl->options.summary_slices, sizeof *tl->longest);
  if (!tl->path || !tl->longest)
    return timeline_fail(tl, "Cannot write the timeline: out of memory");
  tl->options.path = tl->path;
  tl->part.fd = tl->summary.fd = -1;
  char name[4096];
  tl->part_number = 1;
  if (sink_open(tl, &tl->part, tl->path, true))
    return -1;
  if (timeline_part_path(tl->path, 0, name, sizeof name) ||
      sink_open(tl, &tl->summary, name, false))
    return timeline_fail(tl, "Cannot create the timeline summary: file=%s", name);
  if (options->json_path && json_open(tl))
    return -1;
  return 0;
}

/* ---- Tracks -------------------------------------------------------------------------- */

static uint64_t track_key(enum track_kind kind, timeline_track parent, int64_t id,
                          const char *name) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)kind;
  h = (h ^ parent) * 1099511628211ull;
  h = (h ^ (uint64_t)id) * 1099511628211ull;
  for (const char *s = name; s && *s; s++)
    h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

static bool same_track(const struct track *t, enum track_kind kind, timeline_track parent,
                       int64_t id, const char *name) {
  return t->kind == kind && t->parent == parent && t->id == id &&
         (kind == TRACK_PROCESS_KIND || kind == TRACK_THREAD_KIND || kind == TRACK_QUEUE ||
          strcmp(t->name, name) == 0);
}

static bool index_grow(struct timeline *tl) {
  size_t cap = tl->index_cap ? tl->index_cap * 2 : 256;
  size_t *index = calloc(cap, sizeof *index);
  if (!index)
    return false;
  for (size_t i = 0; i < tl->track_count; i++) {
    const struct track *t = &tl->tracks[i];
    if (t->kind == TRACK_LANE)
      continue;
    size_t at = track_key(t->kind, t->parent, t->id, t->kind == TRACK_PROCESS_KIND ||
                          t->kind == TRACK_THREAD_KIND || t->kind == TRACK_QUEUE ? NULL : t->name) &
                (cap - 1);
    while (index[at])
      at = (at + 1) & (cap - 1);
    index[at] = i + 1;
  }
  free(tl->index);
  tl->index = index;
  tl->index_cap = cap;
  return true;
}

static struct track *track_of(struct timeline *tl, timeline_track uuid) {
  return uuid && uuid <= tl->track_count ? &tl->tracks[uuid - 1] : NULL;
}

static int write_descriptor(struct timeline *tl, const struct track *t) {
  sink_track_descriptor(&tl->part, &tl->packet, t);
  if (sink_packet(tl, &tl->part, &tl->packet) || sink_packet(tl, &tl->summary, &tl->packet))
    return -1;
  json_track(tl, t);
  return 0;
}

static struct track *add_track(struct timeline *tl, enum track_kind kind, timeline_track parent,
                               int64_t id, const char *name) {
  if (tl->track_count == tl->track_cap) {
    size_t cap = tl->track_cap ? tl->track_cap * 2 : 64;
    struct track *grown = realloc(tl->tracks, cap * sizeof *grown);
    if (!grown)
      return NULL;
    tl->tracks = grown;
    tl->track_cap = cap;
  }
  struct track *t = &tl->tracks[tl->track_count];
  memset(t, 0, sizeof *t);
  t->name = strdup(name ? name : "");
  t->lanes = calloc(1, sizeof *t->lanes);
  if (!t->name || !t->lanes) {
    free(t->name);
    free(t->lanes);
    return NULL;
  }
  tl->track_count++;
  t->uuid = tl->track_count;
  t->parent = parent;
  t->kind = kind;
  t->id = id;
  t->lane_count = 1;
  t->lanes[0].uuid = t->uuid;
  t->written = t->uuid + tl->options.uuid_base;
  if (kind == TRACK_HOST && tl->options.uuid_base) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a of the host name, top bit set */
    for (const char *c = t->name; *c; c++)
      h = (h ^ (uint8_t)*c) * 1099511628211ull;
    t->written = h | 1ull << 63;
  }
  tl->stats.tracks++;
  return t;
}

static timeline_track find_or_add(struct timeline *tl, enum track_kind kind,
                                  timeline_track parent, int64_t id, int64_t pid,
                                  const char *name, enum timeline_unit unit) {
  bool keyed_by_id = kind == TRACK_PROCESS_KIND || kind == TRACK_THREAD_KIND || kind == TRACK_QUEUE;
  uint64_t key = track_key(kind, parent, id, keyed_by_id ? NULL : name);
  if ((tl->track_count + 1) * 2 > tl->index_cap && !index_grow(tl)) {
    timeline_fail(tl, "Cannot write the timeline: out of memory");
    return 0;
  }
  size_t at = key & (tl->index_cap - 1);
  for (; tl->index[at]; at = (at + 1) & (tl->index_cap - 1)) {
    struct track *t = &tl->tracks[tl->index[at] - 1];
    if (same_track(t, kind, parent, id, name ? name : ""))
      return t->uuid;
  }
  struct track *t = add_track(tl, kind, parent, id, name);
  if (!t) {
    timeline_fail(tl, "Cannot write the timeline: out of memory");
    return 0;
  }
  tl->index[at] = tl->track_count;
  t->pid = pid;
  t->unit = unit;
  struct track *up = track_of(tl, parent);
  switch (kind) {
  case TRACK_PROCESS_KIND: t->json_pid = pid; break;
  case TRACK_THREAD_KIND: t->json_pid = pid; t->json_tid = id; break;
  case TRACK_DEVICE: t->json_pid = JSON_SYNTHETIC_ID + (int64_t)t->uuid; break;
  default:
    t->json_pid = up ? up->json_pid : 0;
    t->json_tid = JSON_SYNTHETIC_ID + (int64_t)t->uuid;
    break;
  }
  return write_descriptor(tl, t) ? 0 : t->uuid;
}

timeline_track timeline_host(struct timeline *tl, const char *hostname) {
  return find_or_add(tl, TRACK_HOST, 0, 0, 0, hostname, 0);
}

timeline_track timeline_process(struct timeline *tl, timeline_track host, int64_t pid,
                                const char *name) {
  return find_or_add(tl, TRACK_PROCESS_KIND, host, pid, pid, name, 0);
}

timeline_track timeline_thread(struct timeline *tl, timeline_track process, int64_t pid,
                               int64_t tid, const char *name) {
  return find_or_add(tl, TRACK_THREAD_KIND, process, tid, pid, name, 0);
}

timeline_track timeline_device(struct timeline *tl, timeline_track host, const char *name) {
  return find_or_add(tl, TRACK_DEVICE, host, 0, 0, name, 0);
}

timeline_track timeline_queue(struct timeline *tl, timeline_track device, uint64_t id,
                              const char *name) {
  return find_or_add(tl, TRACK_QUEUE, device, (int64_t)id, 0, name, 0);
}

timeline_track timeline_counter_track(struct timeline *tl, timeline_track parent,
                                      const char *name, enum timeline_unit unit) {
  return find_or_add(tl, TRACK_COUNTER_KIND, parent, 0, 0, name, unit);
}

/* ---- Lanes: slices that overlap without nesting ------------------------------------ */

/* Whether a slice written after `old` on the same track keeps both intact once the
 * trace processor sorts begins and ends by time (a stable sort: equal times keep the
 * order written). */
static bool fits_after(uint64_t s2, uint64_t e2, uint64_t s, uint64_t e) {
  return e2 <= s ||             /* old first */
         e < s2 ||              /* new wholly first */
         (s < s2 && e2 <= e) || /* new holds old */
         (s2 <= s && e < e2);   /* old holds new */
}

static bool lane_fits(const struct lane *lane, uint64_t s, uint64_t e) {
  if (s >= lane->latest_end) /* the common case: after everything on the lane */
    return true;
  for (unsigned i = 0; i < lane->count; i++)
    if (!fits_after(lane->start[i], lane->end[i], s, e))
      return false;
  return true;
}

static void lane_note(struct lane *lane, uint64_t s, uint64_t e) {
  lane->start[lane->next] = s;
  lane->end[lane->next] = e;
  lane->next = (lane->next + 1) % LANE_MEMORY;
  if (e > lane->latest_end)
    lane->latest_end = e;
  if (lane->count < LANE_MEMORY)
    lane->count++;
}

/* The track a slice goes on: the track itself, or the first lane it fits. */
static struct track *place(struct timeline *tl, struct track *t, uint64_t s, uint64_t e) {
  size_t i = 0;
  while (i < t->lane_count && !lane_fits(&t->lanes[i], s, e))
    i++;
  if (i == t->lane_count) {
    struct lane *grown = realloc(t->lanes, (t->lane_count + 1) * sizeof *grown);
    if (!grown)
      return NULL;
    t->lanes = grown;
    memset(&t->lanes[i], 0, sizeof t->lanes[i]);
    char name[512];
    snprintf(name, sizeof name, "%s #%zu", t->name, i + 1);
    size_t position = (size_t)(t - tl->tracks);
    struct track *lane = add_track(tl, TRACK_LANE, t->kind == TRACK_HOST ? t->uuid : t->parent,
                                   0, name);
    t = &tl->tracks[position]; /* add_track may move the table */
    if (!lane)
      return NULL;
    t->lanes = grown;
    t->lane_count++;
    lane = &tl->tracks[tl->track_count - 1];
    lane->json_pid = t->json_pid;
    lane->json_tid = JSON_SYNTHETIC_ID + (int64_t)lane->uuid;
    t->lanes[i].uuid = lane->uuid;
    tl->stats.lanes++;
    if (write_descriptor(tl, lane))
      return NULL;
  }
  lane_note(&t->lanes[i], s, e);
  return &tl->tracks[t->lanes[i].uuid - 1];
}

/* ---- Parts --------------------------------------------------------------------------- */

static int next_part(struct timeline *tl) {
  if (sink_close(tl, &tl->part))
    return -1;
  char name[4096];
  if (timeline_part_path(tl->path, ++tl->part_number, name, sizeof name))
    return timeline_fail(tl, "Cannot name the timeline's part %u: path=%s", tl->part_number,
                         tl->path);
  if (sink_open(tl, &tl->part, name, true))
    return -1;
  for (size_t i = 0; i < tl->track_count; i++) {
    sink_track_descriptor(&tl->part, &tl->packet, &tl->tracks[i]);
    if (sink_packet(tl, &tl->part, &tl->packet))
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

/* A begin or instant event's packet: names first interned (in the packet's interned
 * data), then the event. */
static void event_packet(struct sink *sink, struct pb *p, uint64_t ts, int type,
                         timeline_track track, const char *name, const char *category,
                         const struct trace_arg *args, size_t arg_count, uint64_t flow_out,
                         uint64_t flow_in, bool stable) {
  pb_reset(p);
  sink_packet_head(sink, p, ts, true);
  size_t data = 0;
  uint64_t iid = sink_intern(sink, name, false, stable, p, &data);
  uint64_t arg_iids[MAX_INTERNED_ARGS];
  if (arg_count > MAX_INTERNED_ARGS)
    arg_count = MAX_INTERNED_ARGS;
  for (size_t i = 0; i < arg_count; i++)
    arg_iids[i] = sink_intern(sink, args[i].name, true, stable, p, &data);
  if (data)
    pb_end(p, data);
  size_t e = pb_begin(p, PACKET_TRACK_EVENT);
  pb_varint(p, EVENT_TYPE, (uint64_t)type);
  pb_varint(p, EVENT_TRACK_UUID, sink_uuid(sink, track));
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

static void end_packet(struct sink *sink, struct pb *p, uint64_t ts, timeline_track track) {
  pb_reset(p);
  sink_packet_head(sink, p, ts, true);
  size_t e = pb_begin(p, PACKET_TRACK_EVENT);
  pb_varint(p, EVENT_TYPE, TYPE_SLICE_END);
  pb_varint(p, EVENT_TRACK_UUID, sink_uuid(sink, track));
  pb_end(p, e);
}

static int write_slice(struct timeline *tl, struct sink *sink, timeline_track track,
                       const struct timeline_slice *s, bool may_split) {
  for (int attempt = 0;; attempt++) {
    event_packet(sink, &tl->packet, s->start, TYPE_SLICE_BEGIN, track, s->name, s->category,
                 s->args, s->arg_count, s->flow_out, s->flow_in, s->stable_names);
    end_packet(sink, &tl->packet2, s->end, track);
    uint64_t size = tl->packet.len + tl->packet2.len + 16;
    if (!may_split || attempt || sink->events == 0 ||
        sink->bytes + size <= tl->options.split_bytes)
      break;
    /* The names interned above belong to the closing part; the next part interns
     * them again, so the packets are built again. */
    if (next_part(tl))
      return -1;
  }
  sink->events++;
  return sink_packet(tl, sink, &tl->packet) || sink_packet(tl, sink, &tl->packet2) ? -1 : 0;
}

static void keep_longest(struct timeline *tl, timeline_track track,
                         const struct timeline_slice *s) {
  uint64_t d = s->end - s->start;
  size_t n = tl->longest_count, cap = tl->options.summary_slices;
  struct summary_slice *h = tl->longest;
  if (n == cap && d <= h[0].duration)
    return;
  char *name = strdup(s->name);
  if (!name)
    return;
  struct summary_slice item = {d, s->start, s->end, track, name};
  size_t at;
  if (n < cap) { /* sift up */
    at = tl->longest_count++;
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

int timeline_slice(struct timeline *tl, const struct timeline_slice *s) {
  struct track *t = track_of(tl, s->track);
  if (!t)
    return timeline_fail(tl, "Cannot add a slice: no track %llu, name=%s",
                         (unsigned long long)s->track, s->name);
  struct timeline_slice fixed = *s;
  if (fixed.end < fixed.start)
    fixed.end = fixed.start;
  struct track *lane = place(tl, t, fixed.start, fixed.end);
  if (!lane)
    return timeline_fail(tl, "Cannot write the timeline: out of memory");
  if (write_slice(tl, &tl->part, lane->uuid, &fixed, true))
    return -1;
  keep_longest(tl, lane->uuid, &fixed);
  json_slice(tl, lane, &fixed);
  tl->stats.slices++;
  tl->stats.flows += fixed.flow_out != 0;
  return 0;
}

int timeline_instant(struct timeline *tl, timeline_track track, uint64_t ts, const char *name,
                     const struct trace_arg *args, size_t arg_count) {
  struct track *t = track_of(tl, track);
  if (!t)
    return timeline_fail(tl, "Cannot add an instant: no track %llu, name=%s",
                         (unsigned long long)track, name);
  for (int attempt = 0;; attempt++) {
    event_packet(&tl->part, &tl->packet, ts, TYPE_INSTANT, track, name, NULL, args, arg_count,
                 0, 0, false);
    if (attempt || tl->part.events == 0 ||
        tl->part.bytes + tl->packet.len + 8 <= tl->options.split_bytes)
      break;
    if (next_part(tl))
      return -1;
  }
  tl->part.events++;
  tl->stats.instants++;
  json_instant(tl, t, ts, name, args, arg_count);
  return sink_packet(tl, &tl->part, &tl->packet);
}

static void counter_packet(struct sink *sink, struct pb *p, timeline_track track, uint64_t ts,
                           double value) {
  pb_reset(p);
  sink_packet_head(sink, p, ts, true);
  size_t e = pb_begin(p, PACKET_TRACK_EVENT);
  pb_varint(p, EVENT_TYPE, TYPE_COUNTER);
  pb_varint(p, EVENT_TRACK_UUID, sink_uuid(sink, track));
  pb_double(p, EVENT_DOUBLE_COUNTER_VALUE, value);
  pb_end(p, e);
}

int timeline_counter(struct timeline *tl, timeline_track track, uint64_t ts, double value) {
  struct track *t = track_of(tl, track);
  if (!t || t->kind != TRACK_COUNTER_KIND)
    return timeline_fail(tl, "Cannot add a counter value: track %llu is no counter",
                         (unsigned long long)track);
  counter_packet(&tl->part, &tl->packet, track, ts, value);
  if (tl->part.events && tl->part.bytes + tl->packet.len + 8 > tl->options.split_bytes) {
    if (next_part(tl)) /* which builds packets of its own: build this one again */
      return -1;
    counter_packet(&tl->part, &tl->packet, track, ts, value);
  }
  tl->part.events++;
  tl->stats.counter_values++;
  json_counter(tl, t, ts, value);
  if (sink_packet(tl, &tl->part, &tl->packet))
    return -1;
  if (!t->summary_any || ts >= t->summary_last + tl->options.summary_interval ||
      ts < t->summary_last) {
    t->summary_any = true;
    t->summary_last = ts;
    counter_packet(&tl->summary, &tl->packet, track, ts, value);
    return sink_packet(tl, &tl->summary, &tl->packet);
  }
  return 0;
}

/* ---- Closing ------------------------------------------------------------------------- */

int timeline_close(struct timeline *tl, struct timeline_stats *stats, char *error,
                   size_t error_size) {
  if (!tl)
    return -1;
  int rc = tl->error[0] ? -1 : 0;
  for (size_t i = 0; i < tl->longest_count; i++) {
    struct summary_slice *l = &tl->longest[i];
    struct timeline_slice s = {.track = l->track, .start = l->start, .end = l->end,
                               .name = l->name};
    if (rc == 0 && tl->summary.fd >= 0 && write_slice(tl, &tl->summary, l->track, &s, false))
      rc = -1;
    free(l->name);
  }
  bool split = tl->part_number > 1;
  char summary_path[4096] = "";
  if (tl->summary.path)
    snprintf(summary_path, sizeof summary_path, "%s", tl->summary.path);
  if (sink_close(tl, &tl->part))
    rc = -1;
  if (sink_close(tl, &tl->summary))
    rc = -1;
  if (!split && summary_path[0])
    unlink(summary_path); /* one file holds everything: no summary needed */
  if (tl->json && json_close(tl))
    rc = -1;
  tl->stats.parts = tl->part_number;
  tl->stats.summary = split;
  tl->stats.bytes = 0; /* filled below from the files' sizes */
  for (unsigned p = split ? 0 : 1; p <= tl->part_number; p++) {
    char name[4096];
    FILE *f;
    if (timeline_part_path(tl->path, p, name, sizeof name) == 0 && p && (f = fopen(name, "rb"))) {
      fseek(f, 0, SEEK_END);
      tl->stats.bytes += (uint64_t)ftell(f);
      fclose(f);
    }
  }
  if (stats)
    *stats = tl->stats;
  if (error && error_size)
    snprintf(error, error_size, "%s", tl->error);
  for (size_t i = 0; i < tl->track_count; i++) {
    free(tl->tracks[i].name);
    free(tl->tracks[i].lanes);
  }
  free(tl->tracks);
  free(tl->index);
  free(tl->longest);
  pb_free(&tl->packet);
  pb_free(&tl->packet2);
  free(tl->path);
  free(tl);
  return rc;
}
