/* timeline: tracks, the lanes of overlapping slices, and the sinks they go to; see
 * timeline.h. */
#include "timeline.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline_sink.h"

/* Recent slices of a lane, to tell whether another one may go there. */
enum { LANE_MEMORY = 32 };
struct lane {
  timeline_track uuid;
  uint64_t start[LANE_MEMORY], end[LANE_MEMORY];
  unsigned count, next;
  uint64_t latest_end; /* of every slice placed: one starting there fits at once */
};

struct track {
  timeline_track uuid, parent;
  enum timeline_track_kind kind;
  int64_t id;               /* pid, tid, queue id; 0 for named tracks */
  int64_t pid;              /* processes and threads */
  char *name;               /* owned */
  enum timeline_unit unit;  /* counters */
  timeline_track lane_of;   /* lanes */
  struct lane *lanes;       /* lane 0 is the track itself; owned */
  size_t lane_count;
};

struct timeline {
  struct timeline_sink *sinks; /* owned */
  size_t sink_count;
  struct track *tracks; /* by uuid - 1; owned */
  size_t track_count, track_cap;
  size_t *index;        /* hash of (kind, parent, id, name) -> track position + 1 */
  size_t index_cap;
  struct timeline_stats stats;
  char error[512];
};

static int timeline_fail(struct timeline *tl, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int timeline_fail(struct timeline *tl, const char *fmt, ...) {
  if (!tl->error[0]) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tl->error, sizeof tl->error, fmt, ap);
    va_end(ap);
  }
  return -1;
}

const char *timeline_error(const struct timeline *tl) { return tl->error; }

static void close_sinks(const struct timeline_sink *sinks, size_t count) {
  for (size_t i = 0; i < count; i++)
    sinks[i].ops->close(sinks[i].state, NULL, NULL, 0);
}

int timeline_open(const struct timeline_sink *sinks, size_t sink_count,
                  struct timeline **out) {
  *out = NULL;
  struct timeline *tl = calloc(1, sizeof *tl);
  if (!tl) {
    close_sinks(sinks, sink_count);
    return -1;
  }
  *out = tl;
  tl->sinks = calloc(sink_count + 1, sizeof *tl->sinks);
  if (!tl->sinks) {
    close_sinks(sinks, sink_count);
    return timeline_fail(tl, "Cannot write the timeline: out of memory");
  }
  memcpy(tl->sinks, sinks, sink_count * sizeof *sinks);
  tl->sink_count = sink_count;
  return 0;
}

/* A sink's failure, with its message. */
static int sink_failed(struct timeline *tl, const struct timeline_sink *sink) {
  return timeline_fail(tl, "%s", sink->ops->error(sink->state));
}

/* ---- Tracks -------------------------------------------------------------------------- */

static uint64_t track_key(enum timeline_track_kind kind, timeline_track parent, int64_t id,
                          const char *name) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)kind;
  h = (h ^ parent) * 1099511628211ull;
  h = (h ^ (uint64_t)id) * 1099511628211ull;
  for (const char *s = name; s && *s; s++)
    h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

static bool same_track(const struct track *t, enum timeline_track_kind kind, timeline_track parent,
                       int64_t id, const char *name) {
  return t->kind == kind && t->parent == parent && t->id == id &&
         (kind == TIMELINE_TRACK_PROCESS || kind == TIMELINE_TRACK_THREAD || kind == TIMELINE_TRACK_QUEUE ||
          strcmp(t->name, name) == 0);
}

static bool index_grow(struct timeline *tl) {
  size_t cap = tl->index_cap ? tl->index_cap * 2 : 256;
  size_t *index = calloc(cap, sizeof *index);
  if (!index)
    return false;
  for (size_t i = 0; i < tl->track_count; i++) {
    const struct track *t = &tl->tracks[i];
    if (t->kind == TIMELINE_TRACK_LANE)
      continue;
    size_t at = track_key(t->kind, t->parent, t->id, t->kind == TIMELINE_TRACK_PROCESS ||
                          t->kind == TIMELINE_TRACK_THREAD || t->kind == TIMELINE_TRACK_QUEUE ? NULL : t->name) &
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

/* A new track, to every sink. */
static int announce(struct timeline *tl, const struct track *t) {
  struct timeline_track_info info = {t->uuid, t->parent, t->kind, t->id, t->pid, t->name,
                                     t->unit, t->lane_of};
  for (size_t i = 0; i < tl->sink_count; i++)
    if (tl->sinks[i].ops->track(tl->sinks[i].state, &info))
      return sink_failed(tl, &tl->sinks[i]);
  return 0;
}

static struct track *add_track(struct timeline *tl, enum timeline_track_kind kind, timeline_track parent,
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
  tl->stats.tracks++;
  return t;
}

static timeline_track find_or_add(struct timeline *tl, enum timeline_track_kind kind,
                                  timeline_track parent, int64_t id, int64_t pid,
                                  const char *name, enum timeline_unit unit) {
  bool keyed_by_id = kind == TIMELINE_TRACK_PROCESS || kind == TIMELINE_TRACK_THREAD || kind == TIMELINE_TRACK_QUEUE;
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
  return announce(tl, t) ? 0 : t->uuid;
}

timeline_track timeline_host(struct timeline *tl, const char *hostname) {
  return find_or_add(tl, TIMELINE_TRACK_HOST, 0, 0, 0, hostname, 0);
}

timeline_track timeline_process(struct timeline *tl, timeline_track host, int64_t pid,
                                const char *name) {
  return find_or_add(tl, TIMELINE_TRACK_PROCESS, host, pid, pid, name, 0);
}

timeline_track timeline_thread(struct timeline *tl, timeline_track process, int64_t pid,
                               int64_t tid, const char *name) {
  return find_or_add(tl, TIMELINE_TRACK_THREAD, process, tid, pid, name, 0);
}

timeline_track timeline_device(struct timeline *tl, timeline_track host, const char *name) {
  return find_or_add(tl, TIMELINE_TRACK_DEVICE, host, 0, 0, name, 0);
}

timeline_track timeline_queue(struct timeline *tl, timeline_track device, uint64_t id,
                              const char *name) {
  return find_or_add(tl, TIMELINE_TRACK_QUEUE, device, (int64_t)id, 0, name, 0);
}

timeline_track timeline_counter_track(struct timeline *tl, timeline_track parent,
                                      const char *name, enum timeline_unit unit) {
  return find_or_add(tl, TIMELINE_TRACK_COUNTER, parent, 0, 0, name, unit);
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
    struct track *lane = add_track(tl, TIMELINE_TRACK_LANE, t->kind == TIMELINE_TRACK_HOST ? t->uuid : t->parent,
                                   0, name);
    t = &tl->tracks[position]; /* add_track may move the table */
    if (!lane)
      return NULL;
    t->lanes = grown;
    t->lane_count++;
    lane = &tl->tracks[tl->track_count - 1];
    lane->lane_of = t->uuid;
    t->lanes[i].uuid = lane->uuid;
    tl->stats.lanes++;
    if (announce(tl, lane))
      return NULL;
  }
  lane_note(&t->lanes[i], s, e);
  return &tl->tracks[t->lanes[i].uuid - 1];
}

/* ---- Events -------------------------------------------------------------------------- */

int timeline_slice(struct timeline *tl, const struct timeline_slice *s) {
  struct track *t = track_of(tl, s->track);
  if (!t)
    return timeline_fail(tl, "Cannot add a slice: no track %llu, name=%s",
                         (unsigned long long)s->track, s->name);
  /* Copied only to be fixed: the copy of the caller's fresh stores (a slice a call) was
   * a store-forwarding stall a slice. */
  struct timeline_slice fixed;
  if (s->end < s->start) {
    fixed = *s;
    fixed.end = fixed.start;
    s = &fixed;
  }
  struct track *lane = place(tl, t, s->start, s->end);
  if (!lane)
    return timeline_fail(tl, "Cannot write the timeline: out of memory");
  for (size_t i = 0; i < tl->sink_count; i++)
    if (tl->sinks[i].ops->slice(tl->sinks[i].state, lane->uuid, s))
      return sink_failed(tl, &tl->sinks[i]);
  tl->stats.slices++;
  tl->stats.flows += s->flow_out != 0;
  return 0;
}

int timeline_instant(struct timeline *tl, timeline_track track, uint64_t ts, const char *name,
                     const struct trace_arg *args, size_t arg_count) {
  if (!track_of(tl, track))
    return timeline_fail(tl, "Cannot add an instant: no track %llu, name=%s",
                         (unsigned long long)track, name);
  for (size_t i = 0; i < tl->sink_count; i++)
    if (tl->sinks[i].ops->instant(tl->sinks[i].state, track, ts, name, args, arg_count))
      return sink_failed(tl, &tl->sinks[i]);
  tl->stats.instants++;
  return 0;
}

int timeline_counter(struct timeline *tl, timeline_track track, uint64_t ts, double value) {
  struct track *t = track_of(tl, track);
  if (!t || t->kind != TIMELINE_TRACK_COUNTER)
    return timeline_fail(tl, "Cannot add a counter value: track %llu is no counter",
                         (unsigned long long)track);
  for (size_t i = 0; i < tl->sink_count; i++)
    if (tl->sinks[i].ops->counter(tl->sinks[i].state, track, ts, value))
      return sink_failed(tl, &tl->sinks[i]);
  tl->stats.counter_values++;
  return 0;
}

/* ---- Closing ------------------------------------------------------------------------- */

int timeline_close(struct timeline *tl, struct timeline_stats *stats, char *error,
                   size_t error_size) {
  if (!tl)
    return -1;
  int rc = tl->error[0] ? -1 : 0;
  for (size_t i = 0; i < tl->sink_count; i++) {
    char message[512] = "";
    if (tl->sinks[i].ops->close(tl->sinks[i].state, &tl->stats, message, sizeof message) &&
        rc == 0)
      rc = timeline_fail(tl, "%s", message);
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
  free(tl->sinks);
  free(tl);
  return rc;
}
