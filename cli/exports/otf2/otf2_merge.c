/* otf2_merge: see otf2_merge.h. */
#include "otf2_merge.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "otf2_defs.h"
#include "otf2_folder.h"
#include "otf2_library.h"

/* One part's global definitions as read, by the ids they have there. */
struct part {
  char **strings;
  uint32_t string_count;
  struct otf2_attribute *attributes;
  uint32_t attribute_count;
  struct otf2_node *nodes;
  uint32_t node_count;
  struct otf2_region *regions;
  uint32_t region_count;
  struct otf2_location_group *groups;
  uint32_t group_count;
  struct otf2_location *locations;
  uint64_t location_count;
  uint64_t world;               /* its MPI location (its COMM_LOCATIONS group's first) */
  /* Its communicators other than the world, and windows (otf2_comms.h): by id. */
  struct otf2_comms comms;      /* members of comm i + 1 in comms.comms[i] */
  struct part_group {           /* COMM_GROUP groups, by id */
    uint64_t *members;          /* owned */
    uint32_t size;
  } *comm_groups;
  uint32_t comm_group_count;
  bool has_clock;
  uint64_t first, last;
  bool failed;                  /* out of memory */
};

/* Makes array[index] exist (zeroed up to it); false when out of memory. */
static bool place(void **array, uint64_t *count, uint64_t index, size_t size) {
  if (index < *count)
    return true;
  if (index > UINT32_MAX)
    return false;
  void *grown = realloc(*array, (index + 1) * size);
  if (!grown)
    return false;
  memset((char *)grown + *count * size, 0, (index + 1 - *count) * size);
  *array = grown;
  *count = index + 1;
  return true;
}

static bool place32(void **array, uint32_t *count, uint64_t index, size_t size) {
  uint64_t c = *count;
  bool ok = place(array, &c, index, size);
  *count = (uint32_t)c;
  return ok;
}

static OTF2_CallbackCode on_clock(void *user, uint64_t resolution, uint64_t offset,
                                  uint64_t length, uint64_t realtime) {
  (void)resolution;
  (void)realtime;
  struct part *p = user;
  p->has_clock = length || offset;
  p->first = offset;
  p->last = offset + length;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *user, OTF2_StringRef self, const char *text) {
  struct part *p = user;
  if (!place32((void **)&p->strings, &p->string_count, self, sizeof *p->strings) ||
      !(p->strings[self] = strdup(text)))
    p->failed = true;
  return p->failed ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_attribute(void *user, OTF2_AttributeRef self, OTF2_StringRef name,
                                      OTF2_StringRef description, OTF2_Type type) {
  struct part *p = user;
  if (!place32((void **)&p->attributes, &p->attribute_count, self, sizeof *p->attributes))
    return p->failed = true, OTF2_CALLBACK_INTERRUPT;
  p->attributes[self] = (struct otf2_attribute){name, description, type};
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_node(void *user, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                 OTF2_StringRef class_name, OTF2_SystemTreeNodeRef parent) {
  struct part *p = user;
  uint32_t had = p->node_count;
  if (!place32((void **)&p->nodes, &p->node_count, self, sizeof *p->nodes))
    return p->failed = true, OTF2_CALLBACK_INTERRUPT;
  for (uint32_t i = had; i < p->node_count; i++)
    p->nodes[i].domain = -1;
  p->nodes[self] = (struct otf2_node){name, class_name, parent, -1};
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_domain(void *user, OTF2_SystemTreeNodeRef node,
                                   OTF2_SystemTreeDomain domain) {
  struct part *p = user;
  if (node < p->node_count)
    p->nodes[node].domain = domain;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *user, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                  OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                  OTF2_LocationGroupRef creator) {
  struct part *p = user;
  if (!place32((void **)&p->groups, &p->group_count, self, sizeof *p->groups))
    return p->failed = true, OTF2_CALLBACK_INTERRUPT;
  p->groups[self] = (struct otf2_location_group){name, type, parent, creator};
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *user, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t events,
                                     OTF2_LocationGroupRef group) {
  struct part *p = user;
  uint64_t at = p->location_count;
  if (!place((void **)&p->locations, &p->location_count, at, sizeof *p->locations))
    return p->failed = true, OTF2_CALLBACK_INTERRUPT;
  p->locations[at] = (struct otf2_location){self, name, type, group, events};
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *user, OTF2_RegionRef self, OTF2_StringRef name,
                                   OTF2_StringRef canonical, OTF2_StringRef description,
                                   OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                   OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin,
                                   uint32_t end) {
  (void)canonical;
  (void)flags;
  (void)file;
  (void)begin;
  (void)end;
  struct part *p = user;
  if (!place32((void **)&p->regions, &p->region_count, self, sizeof *p->regions))
    return p->failed = true, OTF2_CALLBACK_INTERRUPT;
  p->regions[self] = (struct otf2_region){name, description, role, paradigm};
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm_group(void *user, OTF2_GroupRef self, OTF2_StringRef name,
                                       OTF2_GroupType type, OTF2_Paradigm paradigm,
                                       OTF2_GroupFlag flags, uint32_t count,
                                       const uint64_t *members) {
  (void)self;
  (void)name;
  (void)paradigm;
  (void)flags;
  struct part *p = user;
  if (type == OTF2_GROUP_TYPE_COMM_LOCATIONS && count)
    p->world = members[0];
  if (type == OTF2_GROUP_TYPE_COMM_GROUP) {
    if (!place32((void **)&p->comm_groups, &p->comm_group_count, self, sizeof *p->comm_groups))
      return p->failed = true, OTF2_CALLBACK_INTERRUPT;
    p->comm_groups[self].members = malloc((count + 1) * sizeof *members);
    if (!p->comm_groups[self].members)
      return p->failed = true, OTF2_CALLBACK_INTERRUPT;
    memcpy(p->comm_groups[self].members, members, count * sizeof *members);
    p->comm_groups[self].size = count;
  }
  return OTF2_CALLBACK_SUCCESS;
}

/* The part's communicators come after their groups and parents (otf2_comms.c); the world
 * (comm 0) is the job's. */
static OTF2_CallbackCode on_comm(void *user, OTF2_CommRef self, OTF2_StringRef name,
                                 OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags) {
  (void)flags;
  struct part *p = user;
  if (self == 0 || group >= p->comm_group_count)
    return OTF2_CALLBACK_SUCCESS;
  /* Ids in the part are dense from 1 (otf2_comms.h): kept in order. */
  if (self != p->comms.comm_count + 1 ||
      otf2_comms_comm(&p->comms, name, parent, p->comm_groups[group].members,
                      p->comm_groups[group].size) != self)
    return p->failed = true, OTF2_CALLBACK_INTERRUPT;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_rma_win(void *user, OTF2_RmaWinRef self, OTF2_StringRef name,
                                    OTF2_CommRef comm, OTF2_RmaWinFlag flags) {
  (void)flags;
  struct part *p = user;
  if (self != p->comms.win_count || otf2_comms_win(&p->comms, name, comm) != self)
    return p->failed = true, OTF2_CALLBACK_INTERRUPT;
  return OTF2_CALLBACK_SUCCESS;
}

static void free_part(struct part *p) {
  for (uint32_t i = 0; i < p->string_count; i++)
    free(p->strings[i]);
  free(p->strings);
  free(p->attributes);
  free(p->nodes);
  free(p->regions);
  free(p->groups);
  free(p->locations);
  otf2_comms_free(&p->comms);
  for (uint32_t i = 0; i < p->comm_group_count; i++)
    free(p->comm_groups[i].members);
  free(p->comm_groups);
  memset(p, 0, sizeof *p);
}

/* A part's global definitions; 0, or -1 with a cause in d. */
static int read_part(const char *folder, struct part *p, char clock[2][64], struct diag *d) {
  memset(p, 0, sizeof *p);
  p->world = OTF2_UNDEFINED_LOCATION;
  char anchor[PATH_MAX];
  snprintf(anchor, sizeof anchor, "%s/" OTF2_ARCHIVE_NAME ".otf2", folder);
  OTF2_Reader *reader = OTF2_Reader_Open(anchor);
  if (!reader)
    return diag_error(d, "Cannot read the rank's OTF2 archive: %s", anchor);
  OTF2_ErrorCode rc = OTF2_Reader_SetSerialCollectiveCallbacks(reader);
  OTF2_GlobalDefReader *defs = rc == OTF2_SUCCESS ? OTF2_Reader_GetGlobalDefReader(reader) : NULL;
  OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
  if (!defs || !cb) {
    rc = rc == OTF2_SUCCESS ? OTF2_ERROR_MEM_ALLOC_FAILED : rc;
  } else {
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, on_attribute);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, on_node);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeDomainCallback(cb, on_domain);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_group);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_comm_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb, on_rma_win);
    rc = OTF2_Reader_RegisterGlobalDefCallbacks(reader, defs, cb, p);
    uint64_t read = 0;
    if (rc == OTF2_SUCCESS)
      rc = OTF2_Reader_ReadAllGlobalDefinitions(reader, defs, &read);
  }
  for (int i = 0; i < 2 && rc == OTF2_SUCCESS && !clock[i][0]; i++) {
    char *value = NULL;
    if (OTF2_Reader_GetProperty(reader, i ? "TRACER::CLOCK_FREQUENCY" : "TRACER::CLOCK",
                                &value) == OTF2_SUCCESS && value)
      snprintf(clock[i], 64, "%s", value);
    free(value);
  }
  if (cb)
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
  OTF2_Reader_Close(reader);
  if (rc != OTF2_SUCCESS || p->failed)
    return diag_error(d, "Cannot read the rank's OTF2 archive: %s: %s", anchor,
                      p->failed ? "out of memory" : otf2_describe(rc));
  return 0;
}

/* ---- Unifying ---------------------------------------------------------------------- */

/* A part's ids mapped to the job's. */
struct part_map {
  uint64_t *strings, *attributes, *regions, *comms, *wins;
  uint32_t *nodes, *groups;
};

static uint64_t map_string(const struct part_map *m, const struct part *p, uint32_t id) {
  return id < p->string_count ? m->strings[id] : OTF2_UNDEFINED_STRING;
}

static int unify(struct otf2_defs *job, const struct part *p, struct part_map *m) {
  m->strings = calloc(p->string_count + 1, sizeof *m->strings);
  m->attributes = calloc(p->attribute_count + 1, sizeof *m->attributes);
  m->regions = calloc(p->region_count + 1, sizeof *m->regions);
  m->nodes = calloc(p->node_count + 1, sizeof *m->nodes);
  m->groups = calloc(p->group_count + 1, sizeof *m->groups);
  if (!m->strings || !m->attributes || !m->regions || !m->nodes || !m->groups)
    return -1;
  for (uint32_t i = 0; i < p->string_count; i++)
    if ((m->strings[i] = otf2_defs_string(job, p->strings[i] ? p->strings[i] : "")) == UINT32_MAX)
      return -1;
  for (uint32_t i = 0; i < p->attribute_count; i++) {
    struct otf2_attribute a = {(uint32_t)map_string(m, p, p->attributes[i].name),
                               (uint32_t)map_string(m, p, p->attributes[i].description),
                               p->attributes[i].type};
    if ((m->attributes[i] = otf2_defs_attribute(job, &a)) == UINT32_MAX)
      return -1;
  }
  /* Parents are defined before their children (otf2_writer.c). */
  for (uint32_t i = 0; i < p->node_count; i++) {
    uint32_t parent = p->nodes[i].parent;
    struct otf2_node n = {(uint32_t)map_string(m, p, p->nodes[i].name),
                          (uint32_t)map_string(m, p, p->nodes[i].class_name),
                          parent < i ? m->nodes[parent] : OTF2_UNDEFINED_SYSTEM_TREE_NODE,
                          p->nodes[i].domain};
    if ((m->nodes[i] = otf2_defs_node(job, &n)) == UINT32_MAX)
      return -1;
  }
  for (uint32_t i = 0; i < p->region_count; i++) {
    struct otf2_region r = {(uint32_t)map_string(m, p, p->regions[i].name),
                            (uint32_t)map_string(m, p, p->regions[i].description),
                            p->regions[i].role, p->regions[i].paradigm};
    if ((m->regions[i] = otf2_defs_region(job, &r)) == UINT32_MAX)
      return -1;
  }
  /* A part's groups are its own (its processes): new ids, creators after. */
  for (uint32_t i = 0; i < p->group_count; i++) {
    const struct otf2_location_group *g = &p->groups[i];
    struct otf2_location_group mapped = {(uint32_t)map_string(m, p, g->name), g->type,
                                         g->node < p->node_count ? m->nodes[g->node]
                                                                 : OTF2_UNDEFINED_SYSTEM_TREE_NODE,
                                         OTF2_UNDEFINED_LOCATION_GROUP};
    if ((m->groups[i] = otf2_defs_group(job, &mapped)) == UINT32_MAX)
      return -1;
  }
  for (uint32_t i = 0; i < p->group_count; i++)
    if (p->groups[i].creator < p->group_count)
      job->groups[m->groups[i]].creator = m->groups[p->groups[i].creator];
  for (uint64_t i = 0; i < p->location_count; i++) {
    struct otf2_location l = p->locations[i];
    l.name = (uint32_t)map_string(m, p, l.name);
    l.group = l.group < p->group_count ? m->groups[l.group] : OTF2_UNDEFINED_LOCATION_GROUP;
    if (otf2_defs_location(job, &l) == UINT64_MAX)
      return -1;
  }
  /* Communicators by name, parent and members: the same one on every member rank. */
  m->comms = calloc(p->comms.comm_count + 2, sizeof *m->comms);
  m->wins = calloc(p->comms.win_count + 1, sizeof *m->wins);
  if (!m->comms || !m->wins)
    return -1;
  for (uint32_t i = 0; i < p->comms.comm_count; i++) {
    const struct otf2_comm *c = &p->comms.comms[i];
    uint32_t parent = c->parent <= i ? (uint32_t)m->comms[c->parent] : 0;
    if ((m->comms[i + 1] = otf2_comms_comm(&job->comms, (uint32_t)map_string(m, p, c->name),
                                           parent, c->members, c->size)) == UINT32_MAX)
      return -1;
  }
  for (uint32_t i = 0; i < p->comms.win_count; i++) {
    const struct otf2_win *w = &p->comms.wins[i];
    uint32_t comm = w->comm <= p->comms.comm_count ? (uint32_t)m->comms[w->comm] : 0;
    if ((m->wins[i] = otf2_comms_win(&job->comms, (uint32_t)map_string(m, p, w->name), comm)) ==
        UINT32_MAX)
      return -1;
  }
  if (p->has_clock) {
    otf2_defs_time(job, p->first);
    otf2_defs_time(job, p->last);
  }
  return 0;
}

static void free_map(struct part_map *m) {
  free(m->strings);
  free(m->attributes);
  free(m->regions);
  free(m->comms);
  free(m->wins);
  free(m->nodes);
  free(m->groups);
  memset(m, 0, sizeof *m);
}

/* Writes the mapping table of one kind unless it is the identity. */
static OTF2_ErrorCode write_map(OTF2_DefWriter *w, OTF2_MappingType type, const uint64_t *map,
                                uint32_t n) {
  bool identity = true;
  for (uint32_t i = 0; i < n && identity; i++)
    identity = map[i] == i;
  if (identity)
    return OTF2_SUCCESS;
  OTF2_IdMap *m = OTF2_IdMap_CreateFromUint64Array(n, map, true);
  if (!m)
    return OTF2_ERROR_MEM_ALLOC_FAILED;
  OTF2_ErrorCode rc = OTF2_DefWriter_WriteMappingTable(w, type, m);
  OTF2_IdMap_Free(m);
  return rc;
}

/* Each of the part's locations: its local definitions (the mapping tables) and its
 * event file, linked from the part. */
static int add_locations(OTF2_Archive *archive, const char *tmp, const char *folder,
                         const struct part *p, const struct part_map *m, struct diag *d) {
  for (uint64_t i = 0; i < p->location_count; i++) {
    uint64_t id = p->locations[i].id;
    OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(archive, id);
    OTF2_ErrorCode rc = w ? OTF2_SUCCESS : OTF2_ERROR_MEM_ALLOC_FAILED;
    if (rc == OTF2_SUCCESS)
      rc = write_map(w, OTF2_MAPPING_STRING, m->strings, p->string_count);
    if (rc == OTF2_SUCCESS)
      rc = write_map(w, OTF2_MAPPING_ATTRIBUTE, m->attributes, p->attribute_count);
    if (rc == OTF2_SUCCESS)
      rc = write_map(w, OTF2_MAPPING_REGION, m->regions, p->region_count);
    if (rc == OTF2_SUCCESS)
      rc = write_map(w, OTF2_MAPPING_COMM, m->comms, p->comms.comm_count + 1);
    if (rc == OTF2_SUCCESS)
      rc = write_map(w, OTF2_MAPPING_RMA_WIN, m->wins, p->comms.win_count);
    if (w) {
      OTF2_ErrorCode closed = OTF2_Archive_CloseDefWriter(archive, w);
      rc = rc == OTF2_SUCCESS ? closed : rc;
    }
    if (rc != OTF2_SUCCESS)
      return diag_error(d, "Cannot write the job's OTF2 archive: location %llu: %s",
                        (unsigned long long)id, otf2_describe(rc));
    char from[PATH_MAX], to[PATH_MAX];
    otf2_folder_event_file(folder, (unsigned long long)id, from, sizeof from);
    otf2_folder_event_file(tmp, (unsigned long long)id, to, sizeof to);
    if (otf2_folder_link(from, to))
      return diag_error(d, "Cannot write the job's OTF2 archive: cannot link %s to %s: %s", from,
                        to, strerror(errno));
  }
  return 0;
}

/* MPI_COMM_WORLD speaks for every rank: a rank without a part (or without a thread) gets
 * a location with no events, whose empty event file is written here. */
static int fill_world(struct otf2_defs *job, OTF2_Archive *archive, size_t n, uint32_t root,
                      struct diag *d) {
  if (otf2_defs_world(job, (uint32_t)n))
    return diag_error(d, "Cannot write the job's OTF2 archive: out of memory");
  for (size_t r = 0; r < n; r++) {
    if (job->world[r] != OTF2_UNDEFINED_LOCATION)
      continue;
    char name[64];
    snprintf(name, sizeof name, "rank %zu (not traced)", r);
    struct otf2_location_group g = {otf2_defs_string(job, name), OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                    root, OTF2_UNDEFINED_LOCATION_GROUP};
    uint32_t group = g.name == UINT32_MAX ? UINT32_MAX : otf2_defs_group(job, &g);
    struct otf2_location l = {(uint64_t)r << 32 | UINT32_MAX, otf2_defs_string(job, "no events"),
                              OTF2_LOCATION_TYPE_CPU_THREAD, group, 0};
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(archive, l.id);
    OTF2_DefWriter *local = OTF2_Archive_GetDefWriter(archive, l.id);
    if (group == UINT32_MAX || l.name == UINT32_MAX || otf2_defs_location(job, &l) == UINT64_MAX ||
        !w || OTF2_Archive_CloseEvtWriter(archive, w) != OTF2_SUCCESS || !local ||
        OTF2_Archive_CloseDefWriter(archive, local) != OTF2_SUCCESS)
      return diag_error(d, "Cannot write the job's OTF2 archive: rank %zu's placeholder", r);
    job->world[r] = l.id;
  }
  return 0;
}

int otf2_merge(const char *const *parts, size_t n, const char *path,
               struct otf2_merge_stats *stats, struct diag *d) {
  *stats = (struct otf2_merge_stats){0};
  char tmp[PATH_MAX], clock[2][64] = {"", ""};
  if (otf2_folder_usable(path, d) || otf2_library_load(d))
    return -1;
  otf2_keep_errors();
  if (otf2_folder_tmp(path, tmp, sizeof tmp))
    return diag_error(d, "Cannot write the job's OTF2 archive: %s: name too long", path);
  otf2_folder_remove(tmp);
  OTF2_Archive *archive = OTF2_Archive_Open(tmp, OTF2_ARCHIVE_NAME, OTF2_FILEMODE_WRITE,
                                            1 << 20, 4 << 20, OTF2_SUBSTRATE_POSIX,
                                            OTF2_COMPRESSION_NONE);
  if (!archive)
    return diag_error(d, "Cannot write the job's OTF2 archive: cannot create %s", tmp);
  struct otf2_defs job = {0};
  int rc = 0;
  OTF2_ErrorCode code = OTF2_Archive_SetFlushCallbacks(archive, otf2_flush_to_files(), NULL);
  if (code == OTF2_SUCCESS)
    code = OTF2_Archive_SetSerialCollectiveCallbacks(archive);
  if (code == OTF2_SUCCESS)
    code = OTF2_Archive_SetCreator(archive, "tracer");
  if (code == OTF2_SUCCESS)
    code = OTF2_Archive_OpenDefFiles(archive);
  if (code == OTF2_SUCCESS)
    code = OTF2_Archive_OpenEvtFiles(archive);
  char traces[PATH_MAX + 16];
  snprintf(traces, sizeof traces, "%s/" OTF2_ARCHIVE_NAME, tmp);
  if (code != OTF2_SUCCESS || (mkdir(traces, 0755) != 0 && errno != EEXIST))
    rc = diag_error(d, "Cannot write the job's OTF2 archive: %s: %s", tmp,
                    code != OTF2_SUCCESS ? otf2_describe(code) : strerror(errno));
  bool mpi = false;
  for (size_t r = 0; r < n && rc == 0; r++) {
    if (!parts[r])
      continue;
    struct part p;
    struct part_map m = {0};
    rc = read_part(parts[r], &p, clock, d);
    if (rc == 0 && unify(&job, &p, &m))
      rc = diag_error(d, "Cannot write the job's OTF2 archive: out of memory");
    if (rc == 0)
      rc = add_locations(archive, tmp, parts[r], &p, &m, d);
    if (rc == 0 && p.location_count) {
      /* The rank's world location: its first MPI thread, else its first thread. */
      if (otf2_defs_world(&job, (uint32_t)r + 1))
        rc = diag_error(d, "Cannot write the job's OTF2 archive: out of memory");
      else
        job.world[r] = p.world != OTF2_UNDEFINED_LOCATION ? p.world : p.locations[0].id;
      mpi |= p.world != OTF2_UNDEFINED_LOCATION;
      stats->ranks++;
    }
    free_map(&m);
    free_part(&p);
  }
  if (rc == 0 && mpi)
    rc = fill_world(&job, archive, n, job.node_count ? 0 : OTF2_UNDEFINED_SYSTEM_TREE_NODE, d);
  else if (!mpi)
    job.world_size = 0; /* no MPI: no communicator to write */
  if (rc == 0) {
    code = OTF2_Archive_CloseDefFiles(archive);
    if (code == OTF2_SUCCESS)
      code = OTF2_Archive_CloseEvtFiles(archive);
    for (int i = 0; i < 2 && code == OTF2_SUCCESS; i++)
      if (clock[i][0])
        code = OTF2_Archive_SetProperty(archive, i ? "TRACER::CLOCK_FREQUENCY" : "TRACER::CLOCK",
                                        clock[i], true);
    OTF2_GlobalDefWriter *g = NULL;
    if (code == OTF2_SUCCESS && otf2_defs_prepare(&job))
      code = OTF2_ERROR_MEM_ALLOC_FAILED;
    if (code == OTF2_SUCCESS && !(g = OTF2_Archive_GetGlobalDefWriter(archive)))
      code = OTF2_ERROR_MEM_ALLOC_FAILED;
    if (code == OTF2_SUCCESS)
      code = otf2_defs_write(&job, g);
    if (code != OTF2_SUCCESS)
      rc = diag_error(d, "Cannot write the job's OTF2 archive: %s", otf2_describe(code));
  }
  stats->locations = job.location_count;
  for (uint64_t i = 0; i < job.location_count; i++)
    stats->events += job.locations[i].events;
  code = OTF2_Archive_Close(archive);
  if (rc == 0 && code != OTF2_SUCCESS)
    rc = diag_error(d, "Cannot write the job's OTF2 archive: %s", otf2_describe(code));
  otf2_defs_free(&job);
  if (rc == 0)
    rc = otf2_folder_install(tmp, path, d);
  if (rc) {
    otf2_folder_remove(tmp);
    return -1;
  }
  for (size_t r = 0; r < n; r++) /* their event files live on in the job's archive */
    if (parts[r])
      otf2_folder_remove(parts[r]);
  return 0;
}
