/* otf2_defs: see otf2_defs.h. */
#include "otf2_defs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Grows an array of `size`-byte items to hold one more; 0, or -1 out of memory. */
static int reserve(void **items, uint64_t count, uint64_t *cap, size_t size) {
  if (count < *cap)
    return 0;
  uint64_t grown_cap = *cap ? *cap * 2 : 32;
  void *grown = realloc(*items, grown_cap * size);
  if (!grown)
    return -1;
  *items = grown;
  *cap = grown_cap;
  return 0;
}

static int reserve32(void **items, uint32_t count, uint32_t *cap, size_t size) {
  uint64_t c = *cap;
  int rc = reserve(items, count, &c, size);
  *cap = (uint32_t)c;
  return rc;
}

uint32_t otf2_defs_string(struct otf2_defs *defs, const char *text) {
  return name_table_id(&defs->strings, text, SIZE_MAX);
}

/* The index of the item equal to *want among count items (compared by `same`), found
 * through keys by its hash (a key taken by another item moves on to the next); added
 * at the end when absent (the caller then stores it). *added says so. */
static uint32_t find_or_add(struct key_map *keys, uint64_t hash, const void *items,
                            size_t size, uint32_t count, const void *want, bool *added) {
  for (uint64_t key = hash;; key = key_mix(key, 1)) {
    uint64_t *slot = key_map_put(keys, key, added);
    if (!slot)
      return UINT32_MAX;
    if (*added) {
      *slot = (uint64_t)count + 1;
      return count;
    }
    if (memcmp((const char *)items + (*slot - 1) * size, want, size) == 0)
      return (uint32_t)(*slot - 1);
  }
}

uint32_t otf2_defs_region(struct otf2_defs *defs, const struct otf2_region *region) {
  struct otf2_region r;
  memset(&r, 0, sizeof r); /* padding too: items are compared as bytes */
  r.name = region->name;
  r.description = region->description;
  r.role = region->role;
  r.paradigm = region->paradigm;
  if (reserve32((void **)&defs->regions, defs->region_count, &defs->region_cap, sizeof r))
    return UINT32_MAX;
  bool added;
  uint32_t i = find_or_add(&defs->region_keys,
                           key_mix((uint64_t)r.name << 32 | r.description,
                                   (uint64_t)r.role << 8 | r.paradigm),
                           defs->regions, sizeof r, defs->region_count, &r, &added);
  if (added)
    defs->regions[defs->region_count++] = r;
  if (i != UINT32_MAX && r.paradigm < 64)
    defs->paradigms |= 1ull << r.paradigm;
  return i;
}

uint32_t otf2_defs_node(struct otf2_defs *defs, const struct otf2_node *node) {
  struct otf2_node n;
  memset(&n, 0, sizeof n);
  n.name = node->name;
  n.class_name = node->class_name;
  n.parent = node->parent;
  n.domain = node->domain;
  if (reserve32((void **)&defs->nodes, defs->node_count, &defs->node_cap, sizeof n))
    return UINT32_MAX;
  bool added;
  uint32_t i = find_or_add(&defs->node_keys,
                           key_mix((uint64_t)n.name << 32 | n.class_name, n.parent),
                           defs->nodes, sizeof n, defs->node_count, &n, &added);
  if (added)
    defs->nodes[defs->node_count++] = n;
  return i;
}

uint32_t otf2_defs_attribute(struct otf2_defs *defs, const struct otf2_attribute *attribute) {
  struct otf2_attribute a;
  memset(&a, 0, sizeof a);
  a.name = attribute->name;
  a.description = attribute->description;
  a.type = attribute->type;
  if (reserve32((void **)&defs->attributes, defs->attribute_count, &defs->attribute_cap,
                sizeof a))
    return UINT32_MAX;
  bool added;
  uint32_t i = find_or_add(&defs->attribute_keys,
                           key_mix((uint64_t)a.name << 32 | a.description, a.type),
                           defs->attributes, sizeof a, defs->attribute_count, &a, &added);
  if (added)
    defs->attributes[defs->attribute_count++] = a;
  return i;
}

uint32_t otf2_defs_metric_class(struct otf2_defs *defs, const struct otf2_metric_member *member) {
  /* Few (a counter each): a look along the list. */
  for (uint32_t i = 0; i < defs->metric_count; i++) {
    const struct otf2_metric *m = &defs->metrics[i];
    const struct otf2_metric_member *x = m->instance ? NULL : &defs->members[m->member];
    if (x && x->name == member->name && x->description == member->description &&
        x->unit == member->unit)
      return i;
  }
  if (reserve32((void **)&defs->members, defs->member_count, &defs->member_cap,
                sizeof *defs->members) ||
      reserve32((void **)&defs->metrics, defs->metric_count, &defs->metric_cap,
                sizeof *defs->metrics))
    return UINT32_MAX;
  defs->members[defs->member_count] = *member;
  defs->metrics[defs->metric_count] = (struct otf2_metric){.member = defs->member_count++};
  return defs->metric_count++;
}

uint32_t otf2_defs_metric_instance(struct otf2_defs *defs, uint32_t of_class, uint64_t recorder,
                                   uint32_t scope) {
  if (reserve32((void **)&defs->metrics, defs->metric_count, &defs->metric_cap,
                sizeof *defs->metrics))
    return UINT32_MAX;
  defs->metrics[defs->metric_count] =
      (struct otf2_metric){.instance = true, .of_class = of_class, .recorder = recorder,
                           .scope = scope};
  return defs->metric_count++;
}

uint32_t otf2_defs_group(struct otf2_defs *defs, const struct otf2_location_group *group) {
  if (reserve32((void **)&defs->groups, defs->group_count, &defs->group_cap, sizeof *group))
    return UINT32_MAX;
  defs->groups[defs->group_count] = *group;
  return defs->group_count++;
}

uint64_t otf2_defs_location(struct otf2_defs *defs, const struct otf2_location *location) {
  if (reserve((void **)&defs->locations, defs->location_count, &defs->location_cap,
              sizeof *location))
    return UINT64_MAX;
  defs->locations[defs->location_count] = *location;
  return defs->location_count++;
}

int otf2_defs_world(struct otf2_defs *defs, uint32_t size) {
  if (size <= defs->world_size)
    return 0;
  uint64_t *world = realloc(defs->world, size * sizeof *world);
  if (!world)
    return -1;
  for (uint32_t i = defs->world_size; i < size; i++)
    world[i] = OTF2_UNDEFINED_LOCATION;
  defs->world = world;
  defs->world_size = size;
  return 0;
}

const char *otf2_paradigm_name(OTF2_Paradigm paradigm) {
  switch (paradigm) {
  case OTF2_PARADIGM_MPI: return "MPI";
  case OTF2_PARADIGM_CUDA: return "CUDA";
  case OTF2_PARADIGM_OPENCL: return "OpenCL";
  case OTF2_PARADIGM_HIP: return "HIP";
  case OTF2_PARADIGM_USER: return "User";
  default: return "Unknown";
  }
}

static OTF2_ParadigmClass paradigm_class(OTF2_Paradigm paradigm) {
  return paradigm == OTF2_PARADIGM_MPI || paradigm == OTF2_PARADIGM_USER
             ? OTF2_PARADIGM_CLASS_PROCESS
             : OTF2_PARADIGM_CLASS_ACCELERATOR;
}

/* The strings the writing itself needs (paradigm names, MPI_COMM_WORLD), looked up
 * rather than added: the table is const here, so they were added before (below). */
static uint32_t known_string(const struct otf2_defs *defs, const char *text) {
  uint32_t id = name_table_find(&defs->strings, text, SIZE_MAX);
  return id == UINT32_MAX ? OTF2_UNDEFINED_STRING : id;
}

#define CHECK(call)                                                                          \
  do {                                                                                       \
    OTF2_ErrorCode check_status = (call);                                                    \
    if (check_status != OTF2_SUCCESS)                                                        \
      return check_status;                                                                   \
  } while (0)

static OTF2_ErrorCode write_world(const struct otf2_defs *defs, OTF2_GlobalDefWriter *w) {
  /* Group 0: the world's locations, by rank; group 1: its ranks, 0 to size - 1; comm 0. */
  uint64_t *ranks = malloc((defs->world_size + 1) * sizeof *ranks);
  if (!ranks)
    return OTF2_ERROR_MEM_ALLOC_FAILED;
  for (uint32_t i = 0; i < defs->world_size; i++)
    ranks[i] = i;
  uint32_t name = known_string(defs, "MPI_COMM_WORLD");
  OTF2_ErrorCode rc = OTF2_GlobalDefWriter_WriteGroup(
      w, 0, name, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
      defs->world_size, defs->world);
  if (rc == OTF2_SUCCESS)
    rc = OTF2_GlobalDefWriter_WriteGroup(w, 1, name, OTF2_GROUP_TYPE_COMM_GROUP,
                                         OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                         defs->world_size, ranks);
  if (rc == OTF2_SUCCESS)
    rc = OTF2_GlobalDefWriter_WriteComm(w, 0, name, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  free(ranks);
  return rc;
}

OTF2_ErrorCode otf2_defs_write(const struct otf2_defs *defs, OTF2_GlobalDefWriter *w) {
  uint64_t first = defs->has_time ? defs->first : 0;
  CHECK(OTF2_GlobalDefWriter_WriteClockProperties(w, 1000000000u, first,
                                                  defs->has_time ? defs->last - first : 0,
                                                  defs->has_time ? first
                                                                 : OTF2_UNDEFINED_TIMESTAMP));
  for (uint32_t i = 0; i < defs->strings.count; i++)
    CHECK(OTF2_GlobalDefWriter_WriteString(w, i, name_table_name(&defs->strings, i)));
  for (uint32_t p = 0; p < 64; p++)
    if (defs->paradigms & (1ull << p) && p != OTF2_PARADIGM_UNKNOWN)
      CHECK(OTF2_GlobalDefWriter_WriteParadigm(w, (OTF2_Paradigm)p,
                                               known_string(defs, otf2_paradigm_name(p)),
                                               paradigm_class(p)));
  for (uint32_t i = 0; i < defs->attribute_count; i++) {
    const struct otf2_attribute *a = &defs->attributes[i];
    CHECK(OTF2_GlobalDefWriter_WriteAttribute(w, i, a->name, a->description, a->type));
  }
  for (uint32_t i = 0; i < defs->node_count; i++) {
    const struct otf2_node *n = &defs->nodes[i];
    CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, i, n->name, n->class_name, n->parent));
    if (n->domain >= 0)
      CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(w, i, (OTF2_SystemTreeDomain)n->domain));
  }
  for (uint32_t i = 0; i < defs->group_count; i++) {
    const struct otf2_location_group *g = &defs->groups[i];
    CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(w, i, g->name, g->type, g->node, g->creator));
  }
  for (uint64_t i = 0; i < defs->location_count; i++) {
    const struct otf2_location *l = &defs->locations[i];
    CHECK(OTF2_GlobalDefWriter_WriteLocation(w, l->id, l->name, l->type, l->events, l->group));
  }
  for (uint32_t i = 0; i < defs->region_count; i++) {
    const struct otf2_region *r = &defs->regions[i];
    CHECK(OTF2_GlobalDefWriter_WriteRegion(w, i, r->name, r->name, r->description, r->role,
                                           r->paradigm, OTF2_REGION_FLAG_NONE,
                                           OTF2_UNDEFINED_STRING, 0, 0));
  }
  for (uint32_t i = 0; i < defs->member_count; i++) {
    const struct otf2_metric_member *m = &defs->members[i];
    CHECK(OTF2_GlobalDefWriter_WriteMetricMember(w, i, m->name, m->description,
                                                 OTF2_METRIC_TYPE_OTHER,
                                                 OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_DOUBLE,
                                                 OTF2_BASE_DECIMAL, 0, m->unit));
  }
  /* Every class before any instance: an instance names its class. */
  for (uint32_t i = 0; i < defs->metric_count; i++) {
    const struct otf2_metric *m = &defs->metrics[i];
    OTF2_MetricMemberRef member = m->member;
    if (!m->instance)
      CHECK(OTF2_GlobalDefWriter_WriteMetricClass(w, i, 1, &member, OTF2_METRIC_ASYNCHRONOUS,
                                                  OTF2_RECORDER_KIND_ABSTRACT));
  }
  for (uint32_t i = 0; i < defs->metric_count; i++) {
    const struct otf2_metric *m = &defs->metrics[i];
    if (m->instance)
      CHECK(OTF2_GlobalDefWriter_WriteMetricInstance(w, i, m->of_class, m->recorder,
                                                     OTF2_SCOPE_SYSTEM_TREE_NODE, m->scope));
  }
  if (defs->world_size) {
    CHECK(write_world(defs, w));
    CHECK(otf2_comms_write(&defs->comms, w));
  }
  return OTF2_SUCCESS;
}

/* The strings otf2_defs_write() names must be there before it runs. */
int otf2_defs_prepare(struct otf2_defs *defs) {
  for (uint32_t p = 0; p < 64; p++)
    if (defs->paradigms & (1ull << p) &&
        otf2_defs_string(defs, otf2_paradigm_name(p)) == UINT32_MAX)
      return -1;
  if (defs->world_size && otf2_defs_string(defs, "MPI_COMM_WORLD") == UINT32_MAX)
    return -1;
  return 0;
}

void otf2_defs_free(struct otf2_defs *defs) {
  name_table_free(&defs->strings);
  free(defs->regions);
  free(defs->nodes);
  free(defs->attributes);
  free(defs->groups);
  free(defs->locations);
  free(defs->world);
  otf2_comms_free(&defs->comms);
  free(defs->members);
  free(defs->metrics);
  key_map_free(&defs->region_keys);
  key_map_free(&defs->node_keys);
  key_map_free(&defs->attribute_keys);
  memset(defs, 0, sizeof *defs);
}

static char last_error[512];

static OTF2_ErrorCode keep_error(void *user, const char *file, uint64_t line,
                                 const char *function, OTF2_ErrorCode code, const char *format,
                                 va_list args) {
  (void)user;
  (void)file;
  (void)line;
  (void)function;
  vsnprintf(last_error, sizeof last_error, format, args);
  return code;
}

void otf2_keep_errors(void) {
  static bool kept;
  if (!kept)
    OTF2_Error_RegisterCallback(keep_error, NULL);
  kept = true;
  last_error[0] = '\0'; /* an earlier archive's */
}

const char *otf2_describe(OTF2_ErrorCode code) {
  return last_error[0] ? last_error : OTF2_Error_GetDescription(code);
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef location,
                                void *caller, bool final) {
  (void)user;
  (void)type;
  (void)location;
  (void)caller;
  (void)final;
  return OTF2_FLUSH;
}

const OTF2_FlushCallbacks *otf2_flush_to_files(void) {
  /* No post-flush callback: OTF2 would record each flush as an event of the location. */
  static const OTF2_FlushCallbacks callbacks = {pre_flush, NULL};
  return &callbacks;
}
