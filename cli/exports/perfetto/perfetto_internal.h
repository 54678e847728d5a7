/* What the Perfetto sink's files share: its state, its output files and their interned
 * names. Not for callers. */
#ifndef TRACER_PERFETTO_INTERNAL_H
#define TRACER_PERFETTO_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pb.h"
#include "perfetto_proto.h"
#include "perfetto.h"
#include "timeline_sink.h"

/* A track as the files know it: the descriptor written again at the head of each part. */
struct pf_track {
  timeline_track uuid, parent;
  uint64_t written;         /* the uuid in the files (perfetto_options.uuid_base) */
  uint32_t machine;         /* its host's machine_id in a job's timeline; 0: none written */
  enum timeline_track_kind kind;
  int64_t id, pid;
  char *name;               /* owned */
  enum timeline_unit unit;
  uint64_t summary_last;    /* counters: time of the last value the summary kept */
  bool summary_any;
  /* The bytes every slice of the track repeats in a file of this sequence that interns
   * (perfetto.c, fast_slice): a packet's fields after its timestamp (the sequence, its
   * flags, the machine), the begin event's first fields (its type and track), and the
   * end packet's event whole. */
  struct pf_track_bytes {
    uint32_t sequence_id;
    uint8_t head_len, begin_len, end_len;
    uint8_t head[24], begin[16], end[24];
  } bytes;
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

/* A file's buffer is written out once it holds this much. */
enum { PF_FLUSH_BYTES = 1 << 20 };

/* An argument's annotation as fast_slice last wrote it for a name (not a string's):
 * written again as it is when the value repeats, as most do from call to call (the same
 * handles, sizes, NULLs). By the name's slot in intern.by_address. */
struct pf_annotation {
  const char *name;
  uint64_t value;
  int kind; /* enum trace_arg_kind */
  uint8_t len;
  uint8_t bytes[23];
};

/* One output file of protobuf packets. */
struct pf_file {
  const struct perfetto *owner; /* borrowed: its tracks' written uuids */
  uint32_t sequence_id;
  int fd;
  char *path;         /* owned */
  struct pb out;      /* Trace bytes not yet written */
  uint64_t bytes;     /* written or buffered so far */
  uint64_t events;    /* slices, instants and counters in this file */
  bool interning;     /* names by iid (parts) or inline (summary) */
  struct intern names, arg_names; /* event names; debug annotation names */
  struct pf_annotation annotations[INTERN_BY_ADDRESS];
};

struct summary_slice {
  uint64_t duration, start, end;
  timeline_track track;
  char *name; /* owned */
};

struct perfetto {
  struct perfetto_options options;
  char *path;           /* owned copy of options.path */
  struct pf_file part, summary;
  unsigned part_number;
  struct pb packet;             /* a packet being built (not slices') */
  struct pf_track *tracks; /* by uuid - 1; owned */
  size_t track_count, track_cap;
  unsigned hosts_seen;           /* host tracks made */
  struct summary_slice *longest; /* min-heap by duration; owned */
  size_t longest_count;
  char error[512];
};

int perfetto_fail(struct perfetto *pf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* perfetto_file.c */
int pf_file_open(struct perfetto *pf, struct pf_file *file, const char *path, bool interning);
int pf_file_close(struct perfetto *pf, struct pf_file *file);
int pf_file_flush(struct perfetto *pf, struct pf_file *file);
/* Appends the packet as one TracePacket. */
int pf_file_packet(struct perfetto *pf, struct pf_file *file, const struct pb *packet);
/* The packet's common head: sequence id and flags. */
static inline void pf_file_packet_head(const struct pf_file *file, struct pb *packet,
                                       uint64_t ts, bool has_ts) {
  if (has_ts)
    pb_varint(packet, PACKET_TIMESTAMP, ts);
  pb_varint(packet, PACKET_SEQUENCE_ID, file->sequence_id);
  if (file->interning)
    pb_varint(packet, PACKET_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
}

/* A stable name's slot in intern.by_address. Names of one function's arguments lie a
 * few bytes apart: the address is mixed. */
static inline size_t pf_intern_slot(const char *name) {
  return (size_t)(((uintptr_t)name * 0x9e3779b97f4a7c15ull) >> 52) & (INTERN_BY_ADDRESS - 1);
}

/* pf_file_intern() past the stable names already seen at their address. */
uint64_t pf_file_intern_slow(struct pf_file *file, const char *name, bool arg, bool stable,
                             struct pb *packet, size_t *data);

/* The iid of an event name (arg: a debug annotation name) in this file, adding it to
 * the packet's interned data (*data: its InternedData message, opened on first need)
 * when new; 0 when the name must be written inline. */
static inline uint64_t pf_file_intern(struct pf_file *file, const char *name, bool arg,
                                      bool stable, struct pb *packet, size_t *data) {
  if (!file->interning)
    return 0;
  const struct intern *in = arg ? &file->arg_names : &file->names;
  size_t slot = pf_intern_slot(name);
  if (stable && in->by_address[slot].address == name)
    return in->by_address[slot].iid;
  return pf_file_intern_slow(file, name, arg, stable, packet, data);
}
void pf_file_track_descriptor(struct pf_file *file, struct pb *packet, const struct pf_track *t);
void intern_free(struct intern *in);
/* The machine of the track's host into the packet, when it has one (a job's timeline). */
static inline void pf_file_machine(const struct pf_file *file, struct pb *packet,
                                   timeline_track track) {
  uint32_t machine =
      track && track <= file->owner->track_count ? file->owner->tracks[track - 1].machine : 0;
  if (machine)
    pb_varint(packet, PACKET_MACHINE_ID, machine);
}

/* The uuid a track has in the files. */
static inline uint64_t pf_file_uuid(const struct pf_file *file, timeline_track track) {
  return track && track <= file->owner->track_count ? file->owner->tracks[track - 1].written
                                                    : track;
}

#endif
