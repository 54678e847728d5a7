/* otf2_writer: see otf2_writer.h. */
#include "otf2_writer.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "device_label.h"
#include "otf2_defs.h"
#include "otf2_folder.h"
#include "otf2_library.h"
#include "otf2_mpi.h"
#include "otf2_mpi_events.h"
#include "tracer_runtime.h"

enum {
  /* Device commands kept per queue to put them in start order (they come as they
   * complete); one that comes later than that overlaps nothing written: a lane. */
  QUEUE_WINDOW = 64,
  CHUNK_EVENTS = 1 << 20,
  CHUNK_DEFINITIONS = 4 << 20,
};

struct location {
  uint64_t def;             /* index in defs.locations */
  uint64_t id;
  OTF2_EvtWriter *writer;
  uint64_t last;            /* a queue's lane: where its last command ended */
};

struct thread_location {
  int host;
  int64_t pid, tid;
  struct location *location;
};

struct command {
  uint64_t start, end;
  uint32_t region;
  bool has_submitter;
  uint64_t submitter, submitted; /* the submitting call's location and start */
};

/* A device as a process sees it: its accelerator location group. */
struct device_group {
  int host, backend, ordinal;
  int64_t pid;
  uint32_t group;
};

/* A queue of a process on one device (handles may repeat across devices: a driver's
 * default stream, a null driver's). */
struct queue {
  int host, backend, device;
  int64_t pid;
  uint64_t handle;
  uint32_t group;
  struct location **lanes;
  size_t lane_count;
  struct command *waiting;  /* a min-heap by start */
  size_t waiting_len;
};

/* A counter of a device the sampler read (tracer --sample): its metric instance, and the
 * device's metric location, which records every counter of the device. */
struct sampled {
  int host;
  uint32_t device;
  char *backend, *device_name, *counter;
  struct location *location;
  uint32_t metric;
};

struct otf2_export {
  struct otf2_options options;
  char tmp[PATH_MAX];
  OTF2_Archive *archive;
  struct otf2_defs defs;
  struct call_stacks *stacks;
  struct otf2_mpi mpi;
  OTF2_AttributeList *attributes;
  uint32_t attr_location, attr_time, attr_comm;
  struct location **locations;
  size_t location_count, location_cap;
  uint32_t root;                    /* the system tree's root */
  struct key_map hosts;             /* host -> node + 1 */
  struct key_map processes;         /* host << 32 | pid -> group + 1 */
  struct device_group *devices;     /* few: looked up along the list */
  size_t device_count, device_cap;
  struct thread_location *threads;
  size_t thread_count, thread_cap;
  struct key_map thread_keys;       /* hash -> index + 1 */
  struct queue **queues;
  size_t queue_count, queue_cap;
  struct key_map queue_keys;        /* hash -> index + 1 */
  struct sampled *sampled;          /* few: looked up along the list */
  size_t sampled_count, sampled_cap;
  uint32_t **function_regions;      /* [backend][function]: region + 1 */
  uint8_t *paradigms;               /* [backend]: its OTF2_Paradigm + 1 */
  int64_t rank_pid;                 /* a rank's first process */
  char clock_name[64];
  uint64_t clock_frequency;
  void *event_buffer;               /* an MPI event read here (otf2_mpi_events.h) */
  size_t event_cap;
  bool failed;                      /* an OTF2 call failed: error says which */
  char error[512];
};

static int fail(struct otf2_export *x, const char *what, OTF2_ErrorCode code) {
  if (!x->failed)
    snprintf(x->error, sizeof x->error, "%s: %s", what,
             code == OTF2_SUCCESS ? "out of memory" : otf2_describe(code));
  x->failed = true;
  return 0; /* the other outputs of the read go on; close reports it */
}

static int grow(void **items, size_t count, size_t *cap, size_t size) {
  if (count < *cap)
    return 0;
  size_t grown_cap = *cap ? *cap * 2 : 16;
  void *grown = realloc(*items, grown_cap * size);
  if (!grown)
    return -1;
  *items = grown;
  *cap = grown_cap;
  return 0;
}

/* ---- The archive ---------------------------------------------------------------------- */

static bool open_archive(struct otf2_export *x) {
  if (x->archive)
    return true;
  if (x->failed)
    return false;
  otf2_folder_remove(x->tmp); /* a killed run's */
  x->archive = OTF2_Archive_Open(x->tmp, OTF2_ARCHIVE_NAME, OTF2_FILEMODE_WRITE, CHUNK_EVENTS,
                                 CHUNK_DEFINITIONS, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!x->archive) {
    snprintf(x->error, sizeof x->error, "cannot create the folder %.400s", x->tmp);
    x->failed = true;
    return false;
  }
  OTF2_ErrorCode rc = OTF2_Archive_SetFlushCallbacks(x->archive, otf2_flush_to_files(), NULL);
  if (rc == OTF2_SUCCESS)
    rc = OTF2_Archive_SetSerialCollectiveCallbacks(x->archive);
  if (rc == OTF2_SUCCESS)
    rc = OTF2_Archive_SetCreator(x->archive, "tracer");
  if (rc == OTF2_SUCCESS)
    rc = OTF2_Archive_OpenEvtFiles(x->archive);
  if (rc != OTF2_SUCCESS) {
    fail(x, "cannot open the archive", rc);
    return false;
  }
  return true;
}

/* ---- Definitions ---------------------------------------------------------------------- */

static OTF2_Paradigm paradigm_of(const char *backend) {
  /* The paradigms OTF2 3.0 knows for the tracer's backends; the others are user code. */
  static const struct {
    const char *backend;
    OTF2_Paradigm paradigm;
  } known[] = {{"opencl", OTF2_PARADIGM_OPENCL}, {"cuda", OTF2_PARADIGM_CUDA},
               {"cudart", OTF2_PARADIGM_CUDA},   {"hip", OTF2_PARADIGM_HIP},
               {"mpich", OTF2_PARADIGM_MPI},     {"openmpi", OTF2_PARADIGM_MPI}};
  for (size_t i = 0; backend && i < sizeof known / sizeof *known; i++)
    if (strcmp(backend, known[i].backend) == 0)
      return known[i].paradigm;
  return OTF2_PARADIGM_USER;
}

/* paradigm_of() a frame's backend, looked up once. */
static OTF2_Paradigm backend_paradigm(struct otf2_export *x, const struct stack_frame *f) {
  uint8_t *p = &x->paradigms[f->backend];
  if (!*p)
    *p = (uint8_t)(paradigm_of(f->desc->name) + 1);
  return (OTF2_Paradigm)(*p - 1);
}

static uint32_t region(struct otf2_export *x, const char *name, const char *description,
                       OTF2_RegionRole role, OTF2_Paradigm paradigm) {
  struct otf2_region r = {otf2_defs_string(&x->defs, name),
                          otf2_defs_string(&x->defs, description), (uint8_t)role,
                          (uint8_t)paradigm};
  if (r.name == UINT32_MAX || r.description == UINT32_MAX)
    return UINT32_MAX;
  return otf2_defs_region(&x->defs, &r);
}

static OTF2_RegionRole call_role(const struct tracer_function_desc *f) {
  switch (f->meaning) {
  case TRACER_MEANING_ALLOC: return OTF2_REGION_ROLE_ALLOCATE;
  case TRACER_MEANING_FREE: return OTF2_REGION_ROLE_DEALLOCATE;
  default: return otf2_mpi_role(f);
  }
}

static uint32_t function_region(struct otf2_export *x, const struct stack_frame *f) {
  uint32_t **regions = &x->function_regions[f->backend];
  if (!*regions && !(*regions = calloc(f->desc->function_count + 1, sizeof **regions)))
    return UINT32_MAX;
  if ((*regions)[f->function])
    return (*regions)[f->function] - 1;
  char description[96];
  snprintf(description, sizeof description, "%s API", f->desc->name);
  uint32_t id = region(x, f->name, description, call_role(&f->desc->functions[f->function]),
                       backend_paradigm(x, f));
  if (id != UINT32_MAX)
    (*regions)[f->function] = id + 1;
  return id;
}

static uint32_t node(struct otf2_export *x, const char *name, const char *class_name,
                     uint32_t parent, int domain) {
  struct otf2_node n = {otf2_defs_string(&x->defs, name), otf2_defs_string(&x->defs, class_name),
                        parent, domain};
  if (n.name == UINT32_MAX || n.class_name == UINT32_MAX)
    return UINT32_MAX;
  return otf2_defs_node(&x->defs, &n);
}

static uint32_t host_node(struct otf2_export *x, int host, const char *host_name) {
  bool added;
  uint64_t *slot = key_map_put(&x->hosts, (uint64_t)(uint32_t)host, &added);
  if (!slot)
    return UINT32_MAX;
  if (!added)
    return (uint32_t)(*slot - 1);
  uint32_t id = node(x, host_name, "node", x->root, OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY);
  *slot = (uint64_t)id + 1;
  return id;
}

static uint32_t location_group(struct otf2_export *x, const char *name, uint8_t type,
                               uint32_t parent, uint32_t creator) {
  struct otf2_location_group g = {otf2_defs_string(&x->defs, name), type, parent, creator};
  if (g.name == UINT32_MAX || parent == UINT32_MAX)
    return UINT32_MAX;
  return otf2_defs_group(&x->defs, &g);
}

/* The process's group: `rank N` (a forked one: `rank N pid P`), else `APP (pid N)`. */
static uint32_t process_group(struct otf2_export *x, int host, const char *host_name,
                              int64_t pid) {
  bool added;
  uint64_t *slot = key_map_put(&x->processes, (uint64_t)(uint32_t)host << 32 | (uint32_t)pid,
                               &added);
  if (!slot)
    return UINT32_MAX;
  if (!added)
    return (uint32_t)(*slot - 1);
  char name[300];
  long rank = x->options.rank;
  if (rank >= 0 && !x->rank_pid)
    x->rank_pid = pid;
  if (rank >= 0 && pid == x->rank_pid)
    snprintf(name, sizeof name, "rank %ld", rank);
  else if (rank >= 0)
    snprintf(name, sizeof name, "rank %ld pid %" PRId64, rank, pid);
  else if (x->options.app_name)
    snprintf(name, sizeof name, "%s (pid %" PRId64 ")", x->options.app_name, pid);
  else
    snprintf(name, sizeof name, "pid %" PRId64, pid);
  uint32_t id = location_group(x, name, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                               host_node(x, host, host_name), OTF2_UNDEFINED_LOCATION_GROUP);
  *slot = (uint64_t)id + 1;
  return id;
}

/* A new location of the archive, its event writer opened. */
static struct location *new_location(struct otf2_export *x, const char *name, uint8_t type,
                                     uint32_t group) {
  if (group == UINT32_MAX || !open_archive(x))
    return NULL;
  uint64_t base = x->options.rank >= 0 ? (uint64_t)x->options.rank << 32 : 0;
  struct location *l = calloc(1, sizeof *l);
  struct otf2_location def = {base + x->location_count, otf2_defs_string(&x->defs, name), type,
                              group, 0};
  if (!l || def.name == UINT32_MAX ||
      grow((void **)&x->locations, x->location_count, &x->location_cap, sizeof *x->locations) ||
      (l->def = otf2_defs_location(&x->defs, &def)) == UINT64_MAX) {
    free(l);
    fail(x, "cannot define a location", OTF2_SUCCESS);
    return NULL;
  }
  l->id = def.id;
  l->writer = OTF2_Archive_GetEvtWriter(x->archive, l->id);
  x->locations[x->location_count++] = l;
  if (!l->writer) {
    fail(x, "cannot open a location's events", OTF2_SUCCESS);
    return NULL;
  }
  return l;
}

static uint64_t thread_hash(int host, int64_t pid, int64_t tid) {
  return key_mix((uint64_t)(uint32_t)host << 32 | (uint32_t)pid, (uint64_t)tid);
}

static struct location *thread_location(struct otf2_export *x, int host, const char *host_name,
                                        int64_t pid, int64_t tid) {
  for (uint64_t key = thread_hash(host, pid, tid);; key = key_mix(key, 1)) {
    bool added;
    uint64_t *slot = key_map_put(&x->thread_keys, key, &added);
    if (!slot)
      return NULL;
    if (!added) {
      struct thread_location *t = &x->threads[*slot - 1];
      if (t->host == host && t->pid == pid && t->tid == tid)
        return t->location;
      continue;
    }
    char name[64];
    snprintf(name, sizeof name, "thread %" PRId64, tid);
    struct location *l = grow((void **)&x->threads, x->thread_count, &x->thread_cap,
                              sizeof *x->threads)
                             ? NULL
                             : new_location(x, name, OTF2_LOCATION_TYPE_CPU_THREAD,
                                            process_group(x, host, host_name, pid));
    if (!l) {
      key_map_remove(&x->thread_keys, key);
      return NULL;
    }
    x->threads[x->thread_count++] = (struct thread_location){host, pid, tid, l};
    *slot = x->thread_count;
    return l;
  }
}

/* ---- Calls and regions (the stacks' sink) --------------------------------------------- */

static struct location *location_of(struct otf2_export *x, struct stack_thread *t) {
  if (!t->user)
    t->user = thread_location(x, t->host, t->host_name, t->pid, t->tid);
  return t->user;
}

static uint32_t frame_region(struct otf2_export *x, const struct stack_frame *f) {
  if (f->kind == STACK_CALL)
    return function_region(x, f);
  return region(x, f->name, f->region_backend, OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER);
}

/* The location and the region of a frame; false (and the export failed) without them. */
static bool frame_target(struct otf2_export *x, struct stack_thread *t,
                         const struct stack_frame *f, struct location **l, uint32_t *r) {
  if (x->failed)
    return false;
  *l = location_of(x, t);
  *r = frame_region(x, f);
  if (*l && *r != UINT32_MAX)
    return true;
  fail(x, "cannot define a call", OTF2_SUCCESS);
  return false;
}

static bool is_mpi(struct otf2_export *x, const struct stack_frame *f) {
  return f->kind == STACK_CALL && backend_paradigm(x, f) == OTF2_PARADIGM_MPI;
}

static int on_enter(void *context, struct stack_thread *t, const struct stack_frame *f,
                    const struct stack_frame *const *stack, size_t depth) {
  (void)stack;
  (void)depth;
  struct otf2_export *x = context;
  struct location *l;
  uint32_t r;
  if (!frame_target(x, t, f, &l, &r))
    return 0;
  OTF2_ErrorCode rc = OTF2_EvtWriter_Enter(l->writer, NULL, f->start, r);
  otf2_defs_time(&x->defs, f->start);
  if (rc == OTF2_SUCCESS && is_mpi(x, f)) {
    /* The world speaks through the first thread that calls MPI. */
    if (!x->defs.world_size && otf2_defs_world(&x->defs, 1) == 0)
      x->defs.world[0] = l->id;
    rc = otf2_mpi_enter(&x->mpi, l->writer, l->id, f, x->attributes, x->attr_comm);
  }
  return rc == OTF2_SUCCESS ? 0 : fail(x, "cannot write an enter", rc);
}

static int on_leave(void *context, struct stack_thread *t, const struct stack_frame *f,
                    const struct stack_frame *const *stack, size_t depth) {
  (void)stack;
  (void)depth;
  struct otf2_export *x = context;
  struct location *l;
  uint32_t r;
  if (!frame_target(x, t, f, &l, &r))
    return 0;
  OTF2_ErrorCode rc = OTF2_SUCCESS;
  if (is_mpi(x, f))
    rc = otf2_mpi_leave(&x->mpi, l->writer, l->id, t->pid, t->tid, f, x->attributes,
                        x->attr_comm);
  if (rc == OTF2_SUCCESS)
    rc = OTF2_EvtWriter_Leave(l->writer, NULL, f->end, r);
  otf2_defs_time(&x->defs, f->end);
  return rc == OTF2_SUCCESS ? 0 : fail(x, "cannot write a leave", rc);
}

static void on_forget(void *context, struct stack_thread *t) {
  (void)context;
  t->user = NULL; /* the location is the export's */
}

/* ---- Device commands ------------------------------------------------------------------- */

static uint64_t queue_hash(int host, int64_t pid, int backend, int device, uint64_t handle) {
  return key_mix(key_mix((uint64_t)(uint32_t)host << 32 | (uint32_t)pid,
                         (uint64_t)(uint32_t)device << 32 | (uint32_t)backend),
                 handle);
}

/* The device as the process of d sees it: an accelerator location group named as the
 * reports and the timeline name the device (device_label.h: "GPU 0: NVIDIA H200"),
 * created by the process's group, under a system tree node of that name below its host. */
static uint32_t device_group(struct otf2_export *x, const struct trace_device *d) {
  for (size_t i = 0; i < x->device_count; i++) {
    const struct device_group *g = &x->devices[i];
    if (g->host == d->from.host && g->backend == d->backend && g->pid == d->pid &&
        g->ordinal == d->device)
      return g->group;
  }
  if (grow((void **)&x->devices, x->device_count, &x->device_cap, sizeof *x->devices))
    return UINT32_MAX;
  char name[DEVICE_LABEL_SIZE];
  device_label(d->desc->name, d->device, d->device_name, name, sizeof name);
  uint32_t host = host_node(x, d->from.host, d->from.host_name);
  uint32_t device = host == UINT32_MAX
                        ? UINT32_MAX
                        : node(x, name, "accelerator", host,
                               OTF2_SYSTEM_TREE_DOMAIN_ACCELERATOR_DEVICE);
  uint32_t process = process_group(x, d->from.host, d->from.host_name, d->pid);
  uint32_t id = location_group(x, name, OTF2_LOCATION_GROUP_TYPE_ACCELERATOR, device, process);
  if (id != UINT32_MAX)
    x->devices[x->device_count++] =
        (struct device_group){d->from.host, d->backend, d->device, d->pid, id};
  return id;
}

static struct queue *queue_of(struct otf2_export *x, const struct trace_device *d) {
  for (uint64_t key = queue_hash(d->from.host, d->pid, d->backend, d->device, d->queue);;
       key = key_mix(key, 1)) {
    bool added;
    uint64_t *slot = key_map_put(&x->queue_keys, key, &added);
    if (!slot)
      return NULL;
    if (!added) {
      struct queue *q = x->queues[*slot - 1];
      if (q->host == d->from.host && q->pid == d->pid && q->backend == d->backend &&
          q->device == d->device && q->handle == d->queue)
        return q;
      continue;
    }
    struct queue *q = calloc(1, sizeof *q);
    if (q)
      q->waiting = malloc((QUEUE_WINDOW + 1) * sizeof *q->waiting);
    uint32_t group = device_group(x, d);
    if (!q || !q->waiting || group == UINT32_MAX ||
        grow((void **)&x->queues, x->queue_count, &x->queue_cap, sizeof *x->queues)) {
      if (q)
        free(q->waiting);
      free(q);
      key_map_remove(&x->queue_keys, key);
      return NULL;
    }
    *q = (struct queue){.host = d->from.host, .backend = d->backend, .device = d->device,
                        .pid = d->pid, .handle = d->queue, .group = group,
                        .waiting = q->waiting};
    x->queues[x->queue_count++] = q;
    *slot = x->queue_count;
    return q;
  }
}

/* The first lane of the queue free at start (a new one when none is). */
static struct location *lane_for(struct otf2_export *x, struct queue *q, uint64_t start) {
  for (size_t i = 0; i < q->lane_count; i++)
    if (q->lanes[i]->last <= start)
      return q->lanes[i];
  struct location **lanes = realloc(q->lanes, (q->lane_count + 1) * sizeof *lanes);
  if (!lanes)
    return NULL;
  q->lanes = lanes;
  /* Named as the timeline names the queue; its second lane and later numbered. */
  char name[DEVICE_QUEUE_LABEL_SIZE + 16];
  device_queue_label(q->handle, q->pid, name, sizeof name);
  if (q->lane_count)
    snprintf(name + strlen(name), sizeof name - strlen(name), " #%zu", q->lane_count + 1);
  struct location *l = new_location(x, name, OTF2_LOCATION_TYPE_ACCELERATOR_STREAM, q->group);
  if (l)
    q->lanes[q->lane_count++] = l;
  return l;
}

static int write_command(struct otf2_export *x, struct queue *q, const struct command *c) {
  struct location *l = lane_for(x, q, c->start);
  if (!l)
    return fail(x, "cannot define a queue", OTF2_SUCCESS);
  if (c->has_submitter) {
    OTF2_AttributeList_AddLocationRef(x->attributes, x->attr_location, c->submitter);
    OTF2_AttributeList_AddUint64(x->attributes, x->attr_time, c->submitted);
  }
  OTF2_ErrorCode rc = OTF2_EvtWriter_Enter(l->writer, c->has_submitter ? x->attributes : NULL,
                                           c->start, c->region);
  if (rc == OTF2_SUCCESS)
    rc = OTF2_EvtWriter_Leave(l->writer, NULL, c->end, c->region);
  otf2_defs_time(&x->defs, c->start);
  otf2_defs_time(&x->defs, c->end);
  l->last = c->end;
  return rc == OTF2_SUCCESS ? 0 : fail(x, "cannot write a device command", rc);
}

static void heap_push(struct queue *q, const struct command *c) {
  size_t i = q->waiting_len++;
  while (i > 0 && c->start < q->waiting[(i - 1) / 2].start) {
    q->waiting[i] = q->waiting[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  q->waiting[i] = *c;
}

static struct command heap_pop(struct queue *q) {
  struct command top = q->waiting[0], last = q->waiting[--q->waiting_len];
  size_t i = 0, n = q->waiting_len;
  for (size_t child; (child = 2 * i + 1) < n; i = child) {
    if (child + 1 < n && q->waiting[child + 1].start < q->waiting[child].start)
      child++;
    if (q->waiting[child].start >= last.start)
      break;
    q->waiting[i] = q->waiting[child];
  }
  if (n)
    q->waiting[i] = last;
  return top;
}

static int on_device(void *context, const struct trace_device *d) {
  struct otf2_export *x = context;
  if (x->failed || call_stacks_collecting(x->stacks) || !d->desc || !d->has_ids)
    return 0;
  struct queue *q = queue_of(x, d);
  const char *what = d->kind == TRACER_COMMAND_KERNEL     ? "kernel"
                     : d->kind == TRACER_COMMAND_TRANSFER ? "copy"
                                                          : "command";
  /* Its own region, apart from its call's (same name, other region: Vampir's function
   * summary would add the device's time to the call's). */
  char description[96], name[512];
  snprintf(description, sizeof description, "%s device %s", d->desc->name, what);
  device_command_label(d->desc, d->kind, d->name, name, sizeof name);
  struct command c = {d->start, d->end < d->start ? d->start : d->end,
                      region(x, name, description,
                             d->kind == TRACER_COMMAND_TRANSFER ? OTF2_REGION_ROLE_DATA_TRANSFER
                                                                : OTF2_REGION_ROLE_FUNCTION,
                             paradigm_of(d->desc->name)),
                      false, 0, 0};
  if (d->call_tid) {
    struct location *submitter =
        thread_location(x, d->from.host, d->from.host_name, d->pid, d->call_tid);
    if (submitter)
      c = (struct command){c.start, c.end, c.region, true, submitter->id, d->call_start};
  }
  if (!q || c.region == UINT32_MAX)
    return fail(x, "cannot define a device command", OTF2_SUCCESS);
  heap_push(q, &c);
  if (q->waiting_len <= QUEUE_WINDOW)
    return 0;
  struct command first = heap_pop(q);
  return write_command(x, q, &first);
}

/* ---- The reader's consumer ------------------------------------------------------------- */

/* ---- Device counters (tracer --sample; otf2_defs.h's metrics) ------------------------ */

static bool same_device(const struct sampled *a, const struct trace_sample *s) {
  return a->host == s->from.host && a->device == s->device && strcmp(a->backend, s->backend) == 0 &&
         strcmp(a->device_name, s->device_name) == 0;
}

/* The device's metric location: a metric-only location (OTF2's type for an external
 * device) in a location group of its own (a process or accelerator group must hold a
 * thread or a stream), under a system tree node for the device, below its host. */
static struct location *device_location(struct otf2_export *x, const struct trace_sample *s,
                                        uint32_t *device_node) {
  for (size_t i = 0; i < x->sampled_count; i++)
    if (same_device(&x->sampled[i], s)) {
      *device_node = x->defs.groups[x->defs.locations[x->sampled[i].location->def].group].node;
      return x->sampled[i].location;
    }
  char name[300];
  snprintf(name, sizeof name, "%s %u: %s", s->backend, s->device, s->device_name);
  uint32_t host = host_node(x, s->from.host, s->from.host_name);
  *device_node = host == UINT32_MAX ? UINT32_MAX
                                    : node(x, name, "accelerator", host,
                                           OTF2_SYSTEM_TREE_DOMAIN_ACCELERATOR_DEVICE);
  uint32_t group = *device_node == UINT32_MAX
                       ? UINT32_MAX
                       : location_group(x, name, OTF2_LOCATION_GROUP_TYPE_UNKNOWN, *device_node,
                                        OTF2_UNDEFINED_LOCATION_GROUP);
  return new_location(x, name, OTF2_LOCATION_TYPE_METRIC, group);
}

/* The metric instance of a reading's device and counter, defined when new; NULL when
 * out of memory. */
static struct sampled *sampled_counter(struct otf2_export *x, const struct trace_sample *s) {
  for (size_t i = 0; i < x->sampled_count; i++)
    if (same_device(&x->sampled[i], s) && strcmp(x->sampled[i].counter, s->counter) == 0)
      return &x->sampled[i];
  uint32_t device_node;
  struct location *l = device_location(x, s, &device_node);
  if (!l || grow((void **)&x->sampled, x->sampled_count, &x->sampled_cap, sizeof *x->sampled))
    return NULL;
  char description[300];
  snprintf(description, sizeof description, "%s device counter", s->backend);
  struct otf2_metric_member member = {otf2_defs_string(&x->defs, s->counter),
                                      otf2_defs_string(&x->defs, description),
                                      otf2_defs_string(&x->defs, s->unit)};
  if (member.name == UINT32_MAX || member.description == UINT32_MAX || member.unit == UINT32_MAX)
    return NULL;
  uint32_t metric_class = otf2_defs_metric_class(&x->defs, &member);
  uint32_t metric = metric_class == UINT32_MAX
                        ? UINT32_MAX
                        : otf2_defs_metric_instance(&x->defs, metric_class, l->id, device_node);
  struct sampled *n = &x->sampled[x->sampled_count];
  *n = (struct sampled){s->from.host, s->device, strdup(s->backend), strdup(s->device_name),
                        strdup(s->counter), l, metric};
  x->sampled_count++; /* counted now so that it is freed, whatever failed */
  if (metric == UINT32_MAX || !n->backend || !n->device_name || !n->counter)
    return NULL;
  return n;
}

static void sampled_free(struct otf2_export *x) {
  for (size_t i = 0; i < x->sampled_count; i++) {
    free(x->sampled[i].backend);
    free(x->sampled[i].device_name);
    free(x->sampled[i].counter);
  }
  x->sampled_count = 0;
}

/* A reading: a metric event of its instance, at its time, on its device's location. A
 * job's archive has none yet (its merge, otf2_merge.h, does not carry metrics). */
static int on_sample(void *context, const struct trace_sample *s) {
  struct otf2_export *x = context;
  if (x->failed || s->why || x->options.rank >= 0)
    return 0;
  struct sampled *c = sampled_counter(x, s);
  if (!c)
    return fail(x, "cannot define a device counter", OTF2_SUCCESS);
  OTF2_Type type = OTF2_TYPE_DOUBLE;
  OTF2_MetricValue value = {.floating_point = s->value};
  OTF2_ErrorCode rc =
      OTF2_EvtWriter_Metric(c->location->writer, NULL, s->from.time, c->metric, 1, &type, &value);
  otf2_defs_time(&x->defs, s->from.time);
  return rc == OTF2_SUCCESS ? 0 : fail(x, "cannot write a device counter", rc);
}

/* The trace clock's name and frequency, from the first record's stream. */
static void note_clock(struct otf2_export *x, const struct trace_source *from) {
  if (x->clock_name[0] || !from->event || !from->event->stream)
    return;
  const struct ctf_subtrace *s = from->event->stream->subtrace;
  if (s && s->clock_count) {
    snprintf(x->clock_name, sizeof x->clock_name, "%s", s->clocks[0].name);
    x->clock_frequency = s->clocks[0].frequency;
  }
}

static void drop_archive(struct otf2_export *x);
static int define_fixed(struct otf2_export *x);

/* call_stacks' answer to a call or region: 1, start over (call_stacks.h). */
static int stacks_said(struct otf2_export *x, int rc) {
  if (rc < 0)
    return fail(x, "cannot keep the calls", OTF2_SUCCESS);
  if (rc == 1) { /* written without what encloses it: a second read writes it again */
    drop_archive(x);
    if (define_fixed(x))
      return fail(x, "cannot start the archive again", OTF2_SUCCESS);
  }
  return 0;
}

static int on_call(void *context, const struct trace_call *c) {
  struct otf2_export *x = context;
  if (x->failed)
    return 0;
  note_clock(x, &c->from);
  uint64_t payload[STACK_PAYLOAD];
  otf2_mpi_payload(&x->mpi, c, payload);
  return stacks_said(x, call_stacks_call(x->stacks, c, payload));
}

/* The runtime's MPI events (otf2_mpi_events.h): as prepared on the decoding thread, or
 * read here in a read on one thread. */
static int on_other(void *context, const struct trace_source *from) {
  struct otf2_export *x = context;
  if (x->failed)
    return 0;
  const struct otf2_mpi_event *e = from->prepared;
  if (!e) {
    if (!otf2_mpi_event_is(from->event))
      return 0;
    int rc = otf2_mpi_event_read(from->event, &x->event_buffer, &x->event_cap);
    if (rc)
      return rc < 0 ? fail(x, "cannot read an MPI event", OTF2_SUCCESS) : 0;
    e = x->event_buffer;
  } else if (from->prepared_size < sizeof *e) {
    return 0;
  }
  return otf2_mpi_event(&x->mpi, &x->defs, e, (const uint64_t *)(e + 1))
             ? fail(x, "cannot keep an MPI event", OTF2_SUCCESS)
             : 0;
}

static int prepare_other(void *worker, const struct trace_source *from,
                         struct trace_bytes *out) {
  (void)worker;
  return otf2_mpi_event_is(from->event) ? otf2_mpi_event_prepare(from->event, out) : 0;
}

/* The decoding threads' contexts: prepare_other keeps nothing. */
static void *fork_nothing(void *context) { return context; }

static int join_nothing(void *context, void *worker) {
  (void)context, (void)worker;
  return 0;
}

static int on_region(void *context, const struct trace_region *r) {
  struct otf2_export *x = context;
  return x->failed ? 0 : stacks_said(x, call_stacks_region(x->stacks, r));
}

static int on_horizon(void *context, uint64_t until) {
  struct otf2_export *x = context;
  return call_stacks_horizon(x->stacks, until) < 0 ? fail(x, "cannot keep the calls", OTF2_SUCCESS)
                                                   : 0;
}

static int on_finish(void *context, const struct trace_summary *summary) {
  (void)summary;
  struct otf2_export *x = context;
  int rc = call_stacks_finish(x->stacks);
  if (rc == TRACE_READ_AGAIN)
    return rc;
  if (rc)
    fail(x, "cannot write the calls", OTF2_SUCCESS);
  for (size_t i = 0; i < x->queue_count && !x->failed; i++)
    while (x->queues[i]->waiting_len && !x->failed) {
      struct command c = heap_pop(x->queues[i]);
      write_command(x, x->queues[i], &c);
    }
  return 0;
}

/* Forgets everything written: the archive, its definitions, its locations. */
static void drop_archive(struct otf2_export *x) {
  if (x->archive) {
    OTF2_Archive_Close(x->archive);
    x->archive = NULL;
  }
  otf2_folder_remove(x->tmp);
  for (size_t i = 0; i < x->location_count; i++)
    free(x->locations[i]);
  x->location_count = x->thread_count = 0;
  for (size_t i = 0; i < x->queue_count; i++) {
    free(x->queues[i]->lanes);
    free(x->queues[i]->waiting);
    free(x->queues[i]);
  }
  x->queue_count = 0;
  sampled_free(x);
  for (size_t i = 0; tracer_backends[i]; i++) {
    free(x->function_regions[i]);
    x->function_regions[i] = NULL;
  }
  key_map_clear(&x->hosts);
  key_map_clear(&x->processes);
  x->device_count = 0;
  key_map_clear(&x->thread_keys);
  key_map_clear(&x->queue_keys);
  otf2_mpi_reset(&x->mpi);
  otf2_defs_free(&x->defs);
  x->rank_pid = 0;
  x->root = UINT32_MAX;
}

static int define_fixed(struct otf2_export *x) {
  struct otf2_attribute location = {
      otf2_defs_string(&x->defs, "submitting thread"),
      otf2_defs_string(&x->defs, "the location of the call that submitted this device work"),
      OTF2_TYPE_LOCATION};
  struct otf2_attribute time = {
      otf2_defs_string(&x->defs, "submitting call start"),
      otf2_defs_string(&x->defs, "the time of that call's enter on that location"),
      OTF2_TYPE_UINT64};
  struct otf2_attribute comm = {
      otf2_defs_string(&x->defs, "MPI communicator handle"),
      otf2_defs_string(&x->defs, "the communicator the call was given, as the app's MPI has it"),
      OTF2_TYPE_UINT64};
  x->attr_location = otf2_defs_attribute(&x->defs, &location);
  x->attr_time = otf2_defs_attribute(&x->defs, &time);
  x->attr_comm = otf2_defs_attribute(&x->defs, &comm);
  x->root = node(x, "machine", "machine", OTF2_UNDEFINED_SYSTEM_TREE_NODE, -1);
  return x->attr_location == UINT32_MAX || x->attr_time == UINT32_MAX ||
                 x->attr_comm == UINT32_MAX || x->root == UINT32_MAX
             ? -1
             : 0;
}

static void free_export(struct otf2_export *x) {
  if (!x)
    return;
  drop_archive(x);
  call_stacks_close(x->stacks);
  otf2_mpi_free(&x->mpi);
  if (x->attributes)
    OTF2_AttributeList_Delete(x->attributes);
  free(x->locations);
  free(x->threads);
  free(x->queues);
  free(x->sampled);
  free(x->devices);
  free(x->function_regions);
  free(x->paradigms);
  free(x->event_buffer);
  key_map_free(&x->hosts);
  key_map_free(&x->processes);
  key_map_free(&x->thread_keys);
  key_map_free(&x->queue_keys);
  free(x);
}

int otf2_export_open(const struct otf2_options *options, struct otf2_export **out,
                     struct trace_consumer *consumer, struct diag *d) {
  *out = NULL;
  if (otf2_folder_usable(options->path, d) || otf2_library_load(d))
    return -1;
  otf2_keep_errors();
  struct otf2_export *x = calloc(1, sizeof *x);
  size_t backends = 0;
  while (tracer_backends[backends])
    backends++;
  if (x) {
    x->options = *options;
    struct stack_sink sink = {x, on_enter, on_leave, on_forget};
    x->stacks = call_stacks_open(&sink);
    x->attributes = OTF2_AttributeList_New();
    x->function_regions = calloc(backends + 1, sizeof *x->function_regions);
    x->paradigms = calloc(backends + 1, sizeof *x->paradigms);
  }
  if (!x || !x->stacks || !x->attributes || !x->function_regions || !x->paradigms ||
      define_fixed(x)) {
    free_export(x);
    return diag_error(d, "Cannot write the OTF2 archive: out of memory");
  }
  if (otf2_folder_tmp(options->path, x->tmp, sizeof x->tmp)) {
    free_export(x);
    return diag_error(d, "Cannot write the OTF2 archive: %s: name too long", options->path);
  }
  *consumer = (struct trace_consumer){
      .name = "otf2",
      /* No TRACE_NEEDS_EVENT nor prepare_call: calls come with their slots copied; the
       * MPI events are read in prepare_other, or here in a read on one thread. */
      .needs = TRACE_NEEDS_ORDER | TRACE_NEEDS_TIMES | TRACE_NEEDS_HORIZON | TRACE_NEEDS_SLOTS,
      .context = x,
      .fork = fork_nothing,
      .join = join_nothing,
      .prepare_other = prepare_other,
      .call = on_call,
      .other = on_other,
      .device = on_device,
      .region = on_region,
      .sample = on_sample,
      .horizon = on_horizon,
      .finish = on_finish,
  };
  *out = x;
  return 0;
}

/* Closes the event writers and writes the local and global definitions. */
static OTF2_ErrorCode finish_archive(struct otf2_export *x, struct otf2_stats *stats) {
  OTF2_ErrorCode rc = OTF2_SUCCESS;
  for (size_t i = 0; i < x->location_count && rc == OTF2_SUCCESS; i++) {
    struct location *l = x->locations[i];
    uint64_t events = 0;
    OTF2_EvtWriter_GetNumberOfEvents(l->writer, &events);
    x->defs.locations[l->def].events = events;
    stats->events += events;
    rc = OTF2_Archive_CloseEvtWriter(x->archive, l->writer);
    l->writer = NULL;
  }
  if (rc == OTF2_SUCCESS)
    rc = OTF2_Archive_CloseEvtFiles(x->archive);
  /* Local definitions: none, but readers look for the files. */
  if (rc == OTF2_SUCCESS)
    rc = OTF2_Archive_OpenDefFiles(x->archive);
  for (size_t i = 0; i < x->location_count && rc == OTF2_SUCCESS; i++) {
    OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(x->archive, x->locations[i]->id);
    rc = w ? OTF2_Archive_CloseDefWriter(x->archive, w) : OTF2_ERROR_MEM_ALLOC_FAILED;
  }
  if (rc == OTF2_SUCCESS)
    rc = OTF2_Archive_CloseDefFiles(x->archive);
  if (rc == OTF2_SUCCESS && x->clock_name[0]) {
    char frequency[32];
    snprintf(frequency, sizeof frequency, "%" PRIu64, x->clock_frequency);
    rc = OTF2_Archive_SetProperty(x->archive, "TRACER::CLOCK", x->clock_name, true);
    if (rc == OTF2_SUCCESS)
      rc = OTF2_Archive_SetProperty(x->archive, "TRACER::CLOCK_FREQUENCY", frequency, true);
  }
  if (rc == OTF2_SUCCESS && otf2_defs_prepare(&x->defs))
    rc = OTF2_ERROR_MEM_ALLOC_FAILED;
  OTF2_GlobalDefWriter *g = rc == OTF2_SUCCESS ? OTF2_Archive_GetGlobalDefWriter(x->archive) : NULL;
  if (rc == OTF2_SUCCESS)
    rc = g ? otf2_defs_write(&x->defs, g) : OTF2_ERROR_MEM_ALLOC_FAILED;
  OTF2_ErrorCode closed = OTF2_Archive_Close(x->archive);
  x->archive = NULL;
  return rc == OTF2_SUCCESS ? closed : rc;
}

int otf2_export_close(struct otf2_export *x, bool read_failed, struct otf2_stats *stats,
                      struct diag *d) {
  struct otf2_stats mine = {0};
  int rc = 0;
  if (!x)
    return -1;
  if (read_failed) {
    rc = diag_error(d, "Cannot write the OTF2 archive: %s: the trace could not be read",
                    x->options.path);
  } else if (open_archive(x)) {
    mine.locations = x->location_count;
    mine.mpi_records = x->mpi.records;
    mine.stacks = *call_stacks_counts(x->stacks);
    OTF2_ErrorCode code = finish_archive(x, &mine);
    if (code != OTF2_SUCCESS)
      fail(x, "cannot finish the archive", code);
  }
  if (!read_failed && x->failed)
    rc = diag_error(d, "Cannot write the OTF2 archive: %s: %s", x->options.path, x->error);
  else if (!read_failed && otf2_folder_install(x->tmp, x->options.path, d))
    rc = -1;
  if (stats)
    *stats = mine;
  free_export(x);
  return rc;
}
