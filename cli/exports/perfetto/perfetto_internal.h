/* What the Perfetto sink's files share: its state, its output files and their interned
 * names. Not for callers. */
#ifndef TRACER_PERFETTO_INTERNAL_H
#define TRACER_PERFETTO_INTERNAL_H

#include <stdbool.h>
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
  struct pb packet, packet2;   /* packets being built */
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
void pf_file_packet_head(struct pf_file *file, struct pb *packet, uint64_t ts, bool has_ts);
/* The iid of an event name (arg: a debug annotation name) in this file, adding it to
 * the packet's interned data (*data: its InternedData message, opened on first need)
 * when new; 0 when the name must be written inline. */
uint64_t pf_file_intern(struct pf_file *file, const char *name, bool arg, bool stable,
                        struct pb *packet, size_t *data);
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
