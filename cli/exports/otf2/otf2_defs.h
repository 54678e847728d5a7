/* otf2_defs: an OTF2 archive's global definitions, kept in memory while its events are
 * written and written last (OTF2 allows it, and only then are the locations' event
 * counts and the clock's range known). Definitions that mean the same thing get one id:
 * strings by their text, regions by name, description, role and paradigm, system tree
 * nodes by name, class and parent, attributes by name, description and type. That is
 * what makes a job's archive from its ranks' (otf2_merge.h): each rank's definitions
 * are added in turn, and its ids mapped to the ones they got.
 *
 * Ids are dense, from 0, in the order first added. Library code: no messages. */
#ifndef TRACER_OTF2_DEFS_H
#define TRACER_OTF2_DEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "key_map.h"
#include "name_table.h"
#include "otf2_comms.h"
#include "otf2_library.h"

struct otf2_region {
  uint32_t name, description;   /* strings */
  uint8_t role, paradigm;       /* OTF2_RegionRole, OTF2_Paradigm */
};

struct otf2_node {              /* a system tree node */
  uint32_t name, class_name;    /* strings */
  uint32_t parent;              /* OTF2_UNDEFINED_SYSTEM_TREE_NODE for the root */
  int domain;                   /* OTF2_SystemTreeDomain, or -1 */
};

struct otf2_attribute {
  uint32_t name, description;   /* strings */
  uint8_t type;                 /* OTF2_Type */
};

struct otf2_location_group {
  uint32_t name;                /* string */
  uint8_t type;                 /* OTF2_LocationGroupType */
  uint32_t node;                /* its system tree node */
  uint32_t creator;             /* the creating group, or OTF2_UNDEFINED_LOCATION_GROUP */
};

struct otf2_location {
  uint64_t id;                  /* chosen by the writer (otf2_writer.h: a rank's range) */
  uint32_t name;                /* string */
  uint8_t type;                 /* OTF2_LocationType */
  uint32_t group;               /* its location group */
  uint64_t events;
};

/* Device counters (tracer --sample), as OTF2 3.0 defines metrics: a metric member per
 * counter (its name, unit; a double, absolute at a point in time, base 10, exponent 0),
 * a metric class of that member alone (asynchronous, recorded through instances only:
 * recorder kind abstract), and per device and counter a metric instance of that class,
 * recorded by the device's metric location, of scope the device's system tree node.
 * Classes and instances share the metric id space: `metrics` lists both, by id. */
struct otf2_metric_member {
  uint32_t name, description, unit; /* strings */
};

struct otf2_metric {
  bool instance;                /* else a class */
  uint32_t member;              /* a class: its one member */
  uint32_t of_class;            /* an instance: its class (a metric id) */
  uint64_t recorder;            /* an instance: the recording location's id */
  uint32_t scope;               /* an instance: its system tree node */
};

struct otf2_defs {
  struct name_table strings;
  struct otf2_region *regions;
  struct otf2_node *nodes;
  struct otf2_attribute *attributes;
  struct otf2_location_group *groups;
  struct otf2_location *locations;
  uint32_t region_count, node_count, attribute_count, group_count;
  uint64_t location_count;
  uint32_t region_cap, node_cap, attribute_cap, group_cap;
  uint64_t location_cap;
  struct key_map region_keys, node_keys, attribute_keys; /* hash -> index + 1 */
  struct otf2_metric_member *members;
  struct otf2_metric *metrics;
  uint32_t member_count, member_cap, metric_count, metric_cap;
  uint64_t paradigms;           /* bit p: paradigm p was used */
  bool has_time;
  uint64_t first, last;         /* the events' least and greatest time */
  /* MPI_COMM_WORLD: the location that speaks for each world rank (its first MPI call's
   * thread), OTF2_UNDEFINED_LOCATION for ranks with none; world_size 0 when no MPI. */
  uint64_t *world;
  uint32_t world_size;
  struct otf2_comms comms;      /* the other communicators, and windows (otf2_comms.h) */
};

/* Each returns the definition's id, or UINT32_MAX when out of memory. */
uint32_t otf2_defs_string(struct otf2_defs *defs, const char *text);
uint32_t otf2_defs_region(struct otf2_defs *defs, const struct otf2_region *region);
uint32_t otf2_defs_node(struct otf2_defs *defs, const struct otf2_node *node);
uint32_t otf2_defs_attribute(struct otf2_defs *defs, const struct otf2_attribute *attribute);
/* A counter's metric class (with its member), unified by name, description and unit:
 * returns its metric id, or UINT32_MAX when out of memory. */
uint32_t otf2_defs_metric_class(struct otf2_defs *defs, const struct otf2_metric_member *member);
/* An instance of a class, never unified: returns its metric id, or UINT32_MAX. */
uint32_t otf2_defs_metric_instance(struct otf2_defs *defs, uint32_t of_class, uint64_t recorder,
                                   uint32_t scope);
/* Never unified: each call adds one. */
uint32_t otf2_defs_group(struct otf2_defs *defs, const struct otf2_location_group *group);
/* Returns the location's index in defs->locations, or UINT64_MAX when out of memory. */
uint64_t otf2_defs_location(struct otf2_defs *defs, const struct otf2_location *location);
/* Notes a time an event has. */
static inline void otf2_defs_time(struct otf2_defs *defs, uint64_t time) {
  if (!defs->has_time || time < defs->first)
    defs->first = time;
  if (!defs->has_time || time > defs->last)
    defs->last = time;
  defs->has_time = true;
}
/* Makes world hold ranks [0, size); the new ones undefined. Returns 0, or -1. */
int otf2_defs_world(struct otf2_defs *defs, uint32_t size);

/* The paradigm's name for its definition ("MPI", "CUDA", ...). */
const char *otf2_paradigm_name(OTF2_Paradigm paradigm);

/* Adds the strings otf2_defs_write() names (paradigms, MPI_COMM_WORLD): call it once
 * everything else is added. Returns 0, or -1 out of memory. */
int otf2_defs_prepare(struct otf2_defs *defs);
/* Writes every definition: the clock (ns since the epoch, from the first event), the
 * paradigms, strings, attributes, system tree, location groups, locations, regions, and
 * with MPI the world's groups and communicator (comm id 0). Returns an OTF2 error code. */
OTF2_ErrorCode otf2_defs_write(const struct otf2_defs *defs, OTF2_GlobalDefWriter *writer);

void otf2_defs_free(struct otf2_defs *defs);

/* libotf2 prints its errors on standard error by default: from the first call on, its
 * last message is kept instead, for otf2_describe(). */
void otf2_keep_errors(void);
/* What went wrong: libotf2's last message, else the code's description. */
const char *otf2_describe(OTF2_ErrorCode code);
/* Flush callbacks for an archive being written: every buffer goes to its file, and no
 * flush is recorded as an event (nothing is measured here). */
const OTF2_FlushCallbacks *otf2_flush_to_files(void);

#endif
