/* What the timeline's files share: the writer's state, its output files (sinks) and
 * the JSON writer. Not for callers. */
#ifndef TRACER_TIMELINE_INTERNAL_H
#define TRACER_TIMELINE_INTERNAL_H

#include <stdio.h>

#include "pb.h"
#include "timeline.h"

enum track_kind { TRACK_HOST, TRACK_PROCESS_KIND, TRACK_THREAD_KIND, TRACK_DEVICE,
                  TRACK_QUEUE, TRACK_COUNTER_KIND, TRACK_LANE };

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
  uint64_t written;         /* the uuid in the files (timeline_options.uuid_base) */
  enum track_kind kind;
  int64_t id;               /* pid, tid, queue id; 0 for named tracks */
  int64_t pid;              /* processes and threads */
  char *name;               /* owned */
  enum timeline_unit unit;  /* counters */
  int64_t json_pid, json_tid;
  struct lane *lanes;       /* lane 0 is the track itself; owned */
  size_t lane_count;
  uint64_t summary_last;    /* counters: time of the last value the summary kept */
  bool summary_any;
};

/* Names written once per file and referred to by number afterwards (interning). */
enum { INTERN_BY_ADDRESS = 4096 };
struct intern_entry {
  uint64_t hash;
  uint32_t iid;
  char *name; /* owned */
};
struct intern {
  struct intern_entry *slots; /* owned */
  size_t cap, count;
  /* Stable strings by address (timeline_slice.stable_names): direct-mapped. */
  struct {
    const char *address;
    uint32_t iid;
  } by_address[INTERN_BY_ADDRESS];
};

/* One output file of protobuf packets. */
struct sink {
  const struct timeline *owner; /* borrowed: its tracks' written uuids */
  uint32_t sequence_id;
  int fd;
  char *path;         /* owned */
  struct pb out;      /* Trace bytes not yet written */
  uint64_t bytes;     /* written or buffered so far */
  uint64_t events;    /* slices, instants and counters in this file */
  bool interning;     /* names by iid (parts) or inline (summary) */
  struct intern names, arg_names; /* event names; debug annotation names */
};

struct summary_slice {
  uint64_t duration, start, end;
  timeline_track track;
  char *name; /* owned */
};

struct timeline {
  struct timeline_options options;
  char *path;           /* owned copy of options.path */
  struct sink part, summary;
  unsigned part_number;
  struct pb packet, packet2;   /* packets being built */
  struct track *tracks; /* by uuid - 1; owned */
  size_t track_count, track_cap;
  size_t *index;        /* hash of (kind, parent, id, name) -> track position + 1 */
  size_t index_cap;
  struct summary_slice *longest; /* min-heap by duration; owned */
  size_t longest_count;
  FILE *json;           /* owned; NULL without JSON */
  bool json_first;
  struct timeline_stats stats;
  char error[512];
};

int timeline_fail(struct timeline *tl, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* timeline_sink.c */
int sink_open(struct timeline *tl, struct sink *sink, const char *path, bool interning);
int sink_close(struct timeline *tl, struct sink *sink);
int sink_flush(struct timeline *tl, struct sink *sink);
/* Appends tl->packet as one TracePacket. */
int sink_packet(struct timeline *tl, struct sink *sink, const struct pb *packet);
/* The packet's common head: sequence id and flags. */
void sink_packet_head(struct sink *sink, struct pb *packet, uint64_t ts, bool has_ts);
/* The iid of an event name (arg: a debug annotation name) in this sink, adding it to
 * the packet's interned data (*data: its InternedData message, opened on first need)
 * when new; 0 when the name must be written inline. */
uint64_t sink_intern(struct sink *sink, const char *name, bool arg, bool stable,
                     struct pb *packet, size_t *data);
void sink_track_descriptor(struct sink *sink, struct pb *packet, const struct track *t);
void intern_free(struct intern *in);
/* The uuid a track has in the files. */
static inline uint64_t sink_uuid(const struct sink *sink, timeline_track track) {
  return track && track <= sink->owner->track_count ? sink->owner->tracks[track - 1].written
                                                    : track;
}

/* timeline_json.c */
void json_track(struct timeline *tl, const struct track *t);
void json_slice(struct timeline *tl, const struct track *lane_track,
                const struct timeline_slice *s);
void json_instant(struct timeline *tl, const struct track *t, uint64_t ts, const char *name,
                  const struct trace_arg *args, size_t arg_count);
void json_counter(struct timeline *tl, const struct track *t, uint64_t ts, double value);
int json_open(struct timeline *tl);
int json_close(struct timeline *tl);

#endif
