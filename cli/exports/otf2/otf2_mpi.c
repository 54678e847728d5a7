/* otf2_mpi: see otf2_mpi.h. */
#include "otf2_mpi.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "event_map.h"
#include "tracer_groups.h"
#include "tracer_runtime.h"

/* payload[0]: what the frame carries; the values in the slots after it. */
enum {
  HAS_VALUES = 1u << 8, /* the record's values were read */
  HAS_REQUEST = 1u << 9,
  HAS_PEER = 1u << 10,
  HAS_RECV = 1u << 11,  /* a send that also receives (MPI_Sendrecv) */
  HAS_SYNC = 1u << 12,  /* an RMA synchronization: the low byte is its enum
                           tracer_rma_sync_kind, not a message kind */
  SHARED = 2,           /* a lock's: shared (the low half of TAG's slot) */
  PEER = 1, TAG = 2, COMM = 3, BYTES = 4, REQUEST = 5, RECV_PEER = 6, RECV_TAG = 7,
  RECV_BYTES = 8,
};

/* The MPI standard's collective operations, by name less `MPI_` (and less the `I` of a
 * non-blocking one). */
static const struct {
  const char *name;
  OTF2_CollectiveOp op;
} collectives[] = {
    {"Barrier", OTF2_COLLECTIVE_OP_BARRIER},
    {"Bcast", OTF2_COLLECTIVE_OP_BCAST},
    {"Gather", OTF2_COLLECTIVE_OP_GATHER},
    {"Gatherv", OTF2_COLLECTIVE_OP_GATHERV},
    {"Scatter", OTF2_COLLECTIVE_OP_SCATTER},
    {"Scatterv", OTF2_COLLECTIVE_OP_SCATTERV},
    {"Allgather", OTF2_COLLECTIVE_OP_ALLGATHER},
    {"Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV},
    {"Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL},
    {"Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV},
    {"Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW},
    {"Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE},
    {"Reduce", OTF2_COLLECTIVE_OP_REDUCE},
    {"Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER},
    {"Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK},
    {"Scan", OTF2_COLLECTIVE_OP_SCAN},
    {"Exscan", OTF2_COLLECTIVE_OP_EXSCAN},
};

/* The operation of a collective function, or -1. */
static int collective_op(const char *function) {
  const char *name = strncmp(function, "MPI_", 4) == 0 ? function + 4 : function;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < sizeof collectives / sizeof *collectives; i++)
      if (strcasecmp(name, collectives[i].name) == 0)
        return collectives[i].op;
    if (name[0] != 'I' && name[0] != 'i')
      break;
    name++;
  }
  return -1;
}

bool otf2_mpi_has_records(const struct tracer_function_desc *f) {
  switch (f->message.kind) {
  case TRACER_MESSAGE_SEND:
  case TRACER_MESSAGE_RECV:
  case TRACER_MESSAGE_COMPLETE:
  case TRACER_MESSAGE_PUT:
  case TRACER_MESSAGE_GET: return true;
  case TRACER_MESSAGE_COLLECTIVE: return collective_op(f->name) >= 0;
  default: return false;
  }
}

OTF2_RegionRole otf2_mpi_role(const struct tracer_function_desc *f) {
  switch (f->message.kind) {
  case TRACER_MESSAGE_SEND:
  case TRACER_MESSAGE_RECV:
  case TRACER_MESSAGE_COMPLETE: return OTF2_REGION_ROLE_POINT2POINT;
  case TRACER_MESSAGE_PUT:
  case TRACER_MESSAGE_GET: return OTF2_REGION_ROLE_RMA;
  case TRACER_MESSAGE_COLLECTIVE: break;
  default: return OTF2_REGION_ROLE_FUNCTION;
  }
  switch (collective_op(f->name)) {
  case OTF2_COLLECTIVE_OP_BARRIER: return OTF2_REGION_ROLE_BARRIER;
  case OTF2_COLLECTIVE_OP_BCAST:
  case OTF2_COLLECTIVE_OP_SCATTER:
  case OTF2_COLLECTIVE_OP_SCATTERV: return OTF2_REGION_ROLE_COLL_ONE2ALL;
  case OTF2_COLLECTIVE_OP_GATHER:
  case OTF2_COLLECTIVE_OP_GATHERV:
  case OTF2_COLLECTIVE_OP_REDUCE: return OTF2_REGION_ROLE_COLL_ALL2ONE;
  case OTF2_COLLECTIVE_OP_SCAN:
  case OTF2_COLLECTIVE_OP_EXSCAN: return OTF2_REGION_ROLE_COLL_OTHER;
  case -1: return OTF2_REGION_ROLE_FUNCTION;
  default: return OTF2_REGION_ROLE_COLL_ALL2ALL;
  }
}

/* Slot index's value (signed as the slot says); false when absent. */
static bool slot_value(const struct tracer_function_desc *f, const uint64_t *slots, size_t n,
                       int16_t index, uint64_t *out) {
  if (index < 0 || (size_t)index >= n)
    return false;
  for (uint32_t k = 0; k < f->slot_count; k++)
    if (f->slots[k].index == (uint8_t)index) {
      *out = (uint64_t)event_map_slot_value(&f->slots[k], slots[index]);
      return true;
    }
  *out = slots[index];
  return true;
}

static struct otf2_group *group_of(struct otf2_mpi *m, int64_t pid, uint8_t kind,
                                   uint64_t handle);

/* The group (communicator or window) a handle names now, kept in the high half of the
 * TAG slot (index + 1; 0: none): the frame's records are written later, when a handle
 * freed meanwhile may name another one made since. */
static void resolve_group(struct otf2_mpi *m, int64_t pid, bool window, uint64_t *payload) {
  const struct otf2_group *g = group_of(
      m, pid, window ? TRACER_GROUP_WINDOW : TRACER_GROUP_COMMUNICATOR, payload[COMM]);
  payload[TAG] = (payload[TAG] & UINT32_MAX) | (uint64_t)(g ? g - m->groups + 1 : 0) << 32;
}

void otf2_mpi_payload(struct otf2_mpi *mpi, const struct trace_call *c,
                      uint64_t payload[STACK_PAYLOAD]) {
  memset(payload, 0, STACK_PAYLOAD * sizeof *payload);
  const struct tracer_function_desc *f = &c->desc->functions[c->function];
  const struct tracer_message *m = &f->message;
  const struct tracer_rma_sync *sync = &f->rma_sync;
  if ((!otf2_mpi_has_records(f) && sync->kind == TRACER_RMA_SYNC_NONE) || c->batched ||
      c->failed)
    return;
  uint64_t slots[256];
  size_t n = trace_call_record(c, slots, sizeof slots / sizeof *slots);
  if (n <= TRACER_RECORD_HEAD)
    return;
  if (sync->kind != TRACER_RMA_SYNC_NONE) {
    payload[0] = sync->kind | HAS_VALUES | HAS_SYNC;
    slot_value(f, slots, n, sync->win, &payload[COMM]);
    if (slot_value(f, slots, n, sync->peer, &payload[PEER]))
      payload[0] |= HAS_PEER;
    slot_value(f, slots, n, sync->shared, &payload[SHARED]);
    payload[SHARED] = payload[SHARED] != 0;
    resolve_group(mpi, c->pid, true, payload);
    return;
  }
  payload[0] = m->kind | HAS_VALUES;
  if (slot_value(f, slots, n, m->peer, &payload[PEER]))
    payload[0] |= HAS_PEER;
  slot_value(f, slots, n, m->tag, &payload[TAG]);
  slot_value(f, slots, n, m->comm, &payload[COMM]);
  slot_value(f, slots, n, m->bytes, &payload[BYTES]);
  if (slot_value(f, slots, n, m->request, &payload[REQUEST]))
    payload[0] |= HAS_REQUEST;
  if (slot_value(f, slots, n, m->recv_bytes, &payload[RECV_BYTES])) {
    payload[0] |= HAS_RECV;
    slot_value(f, slots, n, m->recv_peer, &payload[RECV_PEER]);
    slot_value(f, slots, n, m->recv_tag, &payload[RECV_TAG]);
  }
  resolve_group(mpi, c->pid, m->kind == TRACER_MESSAGE_PUT || m->kind == TRACER_MESSAGE_GET,
                payload);
}

/* ---- Requests in flight -------------------------------------------------------------- */

static uint64_t request_key(uint64_t location, uint64_t request) {
  return key_mix(location, request);
}

static struct otf2_request *find_request(struct otf2_mpi *m, uint64_t location,
                                         uint64_t request) {
  for (uint64_t key = request_key(location, request);; key = key_mix(key, 1)) {
    uint64_t *index = key_map_get(&m->by_request, key);
    if (!index)
      return NULL;
    struct otf2_request *r = &m->requests[*index - 1];
    if (r->kind && r->location == location && r->request == request)
      return r;
  }
}

static void forget_request(struct otf2_mpi *m, struct otf2_request *r) {
  for (uint64_t key = request_key(r->location, r->request);; key = key_mix(key, 1)) {
    uint64_t *index = key_map_get(&m->by_request, key);
    if (!index)
      break;
    if (&m->requests[*index - 1] == r) {
      key_map_remove(&m->by_request, key);
      break;
    }
  }
  r->kind = 0;
  r->peer = m->free_head; /* the free list runs through peer */
  m->free_head = (uint32_t)(r - m->requests) + 1;
}

static int remember_request(struct otf2_mpi *m, uint64_t location, const uint64_t *payload,
                            const struct stack_frame *f) {
  struct otf2_request *old = find_request(m, location, payload[REQUEST]);
  if (old) /* a handle reused without a completion seen (MPI_Waitall) */
    forget_request(m, old);
  uint32_t index;
  if (m->free_head) {
    index = m->free_head - 1;
    m->free_head = (uint32_t)m->requests[index].peer;
  } else {
    if (m->count == m->cap) {
      uint32_t cap = m->cap ? m->cap * 2 : 64;
      struct otf2_request *grown = realloc(m->requests, cap * sizeof *grown);
      if (!grown)
        return -1;
      m->requests = grown;
      m->cap = cap;
    }
    index = m->count++;
  }
  int op = collective_op(f->desc->functions[f->function].name);
  m->requests[index] = (struct otf2_request){location, payload[REQUEST], payload[PEER],
                                             payload[TAG], payload[BYTES], payload[COMM],
                                             (uint8_t)(payload[0] & 0xff),
                                             (OTF2_CollectiveOp)(op < 0 ? 0 : op),
                                             (payload[0] & HAS_PEER) != 0};
  for (uint64_t key = request_key(location, payload[REQUEST]);; key = key_mix(key, 1)) {
    bool added;
    uint64_t *slot = key_map_put(&m->by_request, key, &added);
    if (!slot)
      return -1;
    if (added) {
      *slot = index + 1;
      return 0;
    }
  }
}

/* ---- Communicators and windows made ---------------------------------------------------- */

static int grow_groups(struct otf2_mpi *m) {
  if (m->group_count < m->group_cap)
    return 0;
  uint32_t cap = m->group_cap ? m->group_cap * 2 : 8;
  struct otf2_group *grown = realloc(m->groups, cap * sizeof *grown);
  if (!grown)
    return -1;
  m->groups = grown;
  m->group_cap = cap;
  return 0;
}

static uint64_t handle_key(int64_t pid, uint8_t kind, uint64_t handle) {
  return key_mix(key_mix((uint64_t)pid, kind), handle);
}

static struct otf2_group *group_of(struct otf2_mpi *m, int64_t pid, uint8_t kind,
                                   uint64_t handle) {
  uint64_t *index = key_map_get(&m->by_handle, handle_key(pid, kind, handle));
  return index ? &m->groups[*index - 1] : NULL;
}

/* The name of a communicator: its parent's, then its members (a few, and how many), and
 * which of the parent's communicators of those members it is, when not the first; the
 * same on every member. */
static char *comm_name(const char *parent, const uint64_t *members, uint32_t size,
                       uint64_t ordinal) {
  char list[160] = "";
  size_t used = 0;
  for (uint32_t i = 0; i < size && i < 8 && used < sizeof list; i++)
    used += (size_t)snprintf(list + used, sizeof list - used, "%s%" PRId64, i ? "," : "",
                             (int64_t)members[i]);
  char *name = NULL;
  int n = ordinal > 1 ? asprintf(&name, "%s > ranks %s%s (%" PRIu32 ") #%" PRIu64, parent, list,
                                 size > 8 ? ",..." : "", size, ordinal)
                      : asprintf(&name, "%s > ranks %s%s (%" PRIu32 ")", parent, list,
                                 size > 8 ? ",..." : "", size);
  return n < 0 ? NULL : name;
}

int otf2_mpi_event(struct otf2_mpi *m, struct otf2_defs *defs, const struct otf2_mpi_event *e,
                   const uint64_t *values) {
  if (e->type == OTF2_MPI_EVENT_COMPLETED) {
    uint64_t key = key_mix(key_mix((uint64_t)e->pid, (uint64_t)e->tid), e->call_start) | 1;
    uint32_t i = 0;
    while (i < m->completion_count && m->completions[i].key)
      i++;
    if (i == m->completion_count) {
      if (m->completion_count == m->completion_cap) {
        uint32_t cap = m->completion_cap ? m->completion_cap * 2 : 8;
        struct otf2_completed *grown = realloc(m->completions, cap * sizeof *grown);
        if (!grown)
          return -1;
        m->completions = grown;
        m->completion_cap = cap;
      }
      m->completion_count++;
    }
    struct otf2_completed *c = &m->completions[i];
    c->requests = malloc((otf2_mpi_event_values(e) + 1) * sizeof *c->requests);
    bool added;
    uint64_t *slot = c->requests ? key_map_put(&m->by_call, key, &added) : NULL;
    if (!slot) {
      free(c->requests);
      c->key = 0;
      return -1;
    }
    if (!added) { /* an earlier list of that call never taken: replaced */
      struct otf2_completed *earlier = &m->completions[*slot - 1];
      free(earlier->requests);
      earlier->requests = NULL; /* the slot is free: freed again by no reset */
      earlier->key = 0;
    }
    memcpy(c->requests, values, otf2_mpi_event_values(e) * sizeof *values);
    c->count = e->count;
    c->key = key;
    *slot = i + 1;
    return 0;
  }
  if (e->size <= 0)
    return 0;
  uint32_t size = (uint32_t)e->size;
  uint64_t *members = malloc(size * sizeof *members);
  if (!members)
    return -1;
  for (uint32_t i = 0; i < size; i++)
    members[i] = e->count ? (i < e->count ? values[i] : (uint64_t)-1) : i;
  /* Made from a communicator the trace did not see made: the world's. */
  const struct otf2_group *from = group_of(m, e->pid, TRACER_GROUP_COMMUNICATOR, e->from);
  uint32_t parent = from ? from->id : 0;
  const char *parent_name = from ? from->name : "MPI_COMM_WORLD";
  uint64_t members_hash = size;
  for (uint32_t i = 0; i < size; i++)
    members_hash = key_mix(members_hash, members[i]);
  bool added;
  uint64_t *ordinal = key_map_put(
      &m->ordinals, key_mix(key_mix((uint64_t)e->pid, (uint64_t)parent << 1 | e->kind),
                            members_hash),
      &added);
  if (!ordinal) {
    free(members);
    return -1;
  }
  *ordinal = added ? 1 : *ordinal + 1;
  /* MPI_COMM_SELF: a communicator of the rank alone, one per rank (its members differ). */
  bool self = e->kind == TRACER_GROUP_SELF;
  char *name = self ? strdup("MPI_COMM_SELF") : comm_name(parent_name, members, size, *ordinal);
  if (name && e->kind == TRACER_GROUP_WINDOW) {
    char *window = NULL;
    if (asprintf(&window, "window #%" PRIu64 " of %s", *ordinal, parent_name) < 0)
      window = NULL;
    free(name);
    name = window;
  }
  uint32_t string = name ? otf2_defs_string(defs, name) : UINT32_MAX;
  uint32_t id = e->kind == TRACER_GROUP_WINDOW
                    ? (string == UINT32_MAX ? UINT32_MAX
                                            : otf2_comms_win(&defs->comms, string, parent))
                : string == UINT32_MAX ? UINT32_MAX
                                       : otf2_comms_comm(&defs->comms, string, parent, members,
                                                         size);
  if (id == UINT32_MAX || grow_groups(m)) {
    free(members);
    free(name);
    return -1;
  }
  uint8_t kind = self ? TRACER_GROUP_COMMUNICATOR : e->kind;
  uint64_t *index = key_map_put(&m->by_handle, handle_key(e->pid, kind, e->handle), &added);
  if (!index) {
    free(members);
    free(name);
    return -1;
  }
  m->groups[m->group_count] = (struct otf2_group){id, e->kind == TRACER_GROUP_WINDOW ? parent : id,
                                                  size, members, name};
  *index = ++m->group_count; /* a handle made again: the new one from now on */
  if (e->kind == TRACER_GROUP_WINDOW) { /* its RmaWinCreate when the making call ends */
    uint64_t *made = key_map_put(
        &m->windows_made, key_mix(key_mix((uint64_t)e->pid, (uint64_t)e->tid), e->call_start),
        &added);
    if (!made)
      return -1;
    *made = (uint64_t)id + 1;
  }
  return 0;
}

/* A world rank as a rank of group: its place among the members; undefined when not one. */
static uint32_t rank_in(const struct otf2_group *g, uint32_t world) {
  for (uint32_t i = 0; world != OTF2_UNDEFINED_UINT32 && i < g->size; i++)
    if (g->members[i] == world)
      return i;
  return OTF2_UNDEFINED_UINT32;
}

/* ---- Records ------------------------------------------------------------------------- */

static uint32_t rank_of(uint64_t flags, uint64_t value) {
  return flags & HAS_PEER && (int64_t)value >= 0 && value < UINT32_MAX ? (uint32_t)value
                                                                       : OTF2_UNDEFINED_UINT32;
}

static OTF2_AttributeList *with_comm(OTF2_AttributeList *list, OTF2_AttributeRef attribute,
                                     uint64_t comm) {
  OTF2_AttributeList_AddUint64(list, attribute, comm);
  return list;
}

/* Where a frame's record goes: the communicator (or window) its call passed, and a world
 * rank as a rank in it. */
struct target {
  const struct otf2_group *group; /* NULL: the world */
  uint32_t comm;                  /* comm id (a window's: its window id) */
};

static const struct otf2_group *resolved(struct otf2_mpi *m, const struct stack_frame *f) {
  uint64_t index = f->payload[TAG] >> 32;
  return index && index <= m->group_count ? &m->groups[index - 1] : NULL;
}

static struct target target_of(struct otf2_mpi *m, const struct stack_frame *f) {
  const struct otf2_group *g = resolved(m, f);
  return (struct target){g, g ? g->id : 0};
}

static uint32_t peer_in(const struct target *t, uint32_t world) {
  return t->group ? rank_in(t->group, world) : world;
}

/* ---- RMA synchronization and windows' lifetimes ----------------------------------------- */

static uint64_t call_key(int64_t pid, int64_t tid, uint64_t start_clock) {
  return key_mix(key_mix((uint64_t)pid, (uint64_t)tid), start_clock);
}

/* The window the frame's synchronization names, when the trace saw it made (OTF2 has no
 * window of its own for others). */
static const struct otf2_group *sync_window(struct otf2_mpi *m, const struct stack_frame *f) {
  return resolved(m, f);
}

/* A target rank of the window, or undefined (MPI_PROC_NULL). */
static uint32_t sync_target(const uint64_t *p) {
  return rank_of(p[0], p[PEER]);
}

/* What waits for the call to end: a fence is a collective operation of the window's
 * processes; a lock is requested when its call begins (MPI may grant it any time until
 * the unlock: the trace cannot say when, so there is no RmaAcquireLock). */
static OTF2_ErrorCode rma_sync_enter(struct otf2_mpi *m, OTF2_EvtWriter *w,
                                     const struct stack_frame *f, OTF2_AttributeList *list,
                                     OTF2_AttributeRef attribute) {
  const uint64_t *p = f->payload;
  const struct otf2_group *g = sync_window(m, f);
  if (!g)
    return OTF2_SUCCESS;
  OTF2_ErrorCode rc;
  switch (p[0] & 0xff) {
  case TRACER_RMA_SYNC_FENCE:
    rc = OTF2_EvtWriter_RmaCollectiveBegin(w, with_comm(list, attribute, p[COMM]), f->start);
    break;
  case TRACER_RMA_SYNC_LOCK:
    if (sync_target(p) == OTF2_UNDEFINED_UINT32)
      return OTF2_SUCCESS;
    rc = OTF2_EvtWriter_RmaRequestLock(w, with_comm(list, attribute, p[COMM]), f->start, g->id,
                                       sync_target(p), 0,
                                       p[SHARED] & UINT32_MAX ? OTF2_LOCK_SHARED : OTF2_LOCK_EXCLUSIVE);
    break;
  case TRACER_RMA_SYNC_LOCK_ALL: /* every rank of the window, shared (MPI says so) */
    rc = OTF2_EvtWriter_RmaRequestLock(w, with_comm(list, attribute, p[COMM]), f->start, g->id,
                                       OTF2_UNDEFINED_UINT32, 0, OTF2_LOCK_SHARED);
    break;
  default: return OTF2_SUCCESS;
  }
  m->records += rc == OTF2_SUCCESS;
  return rc;
}

static OTF2_ErrorCode rma_sync_leave(struct otf2_mpi *m, OTF2_EvtWriter *w,
                                     const struct stack_frame *f, OTF2_AttributeList *list,
                                     OTF2_AttributeRef attribute) {
  const uint64_t *p = f->payload;
  const struct otf2_group *g = sync_window(m, f);
  if (!g)
    return OTF2_SUCCESS;
  OTF2_ErrorCode rc;
  switch (p[0] & 0xff) {
  case TRACER_RMA_SYNC_FENCE: /* synchronizes the processes and completes their accesses */
    rc = OTF2_EvtWriter_RmaCollectiveEnd(w, with_comm(list, attribute, p[COMM]), f->end,
                                         OTF2_COLLECTIVE_OP_BARRIER,
                                         OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY,
                                         g->id, OTF2_UNDEFINED_UINT32, 0, 0);
    break;
  case TRACER_RMA_SYNC_UNLOCK:
    if (sync_target(p) == OTF2_UNDEFINED_UINT32)
      return OTF2_SUCCESS;
    rc = OTF2_EvtWriter_RmaReleaseLock(w, with_comm(list, attribute, p[COMM]), f->end, g->id,
                                       sync_target(p), 0);
    break;
  case TRACER_RMA_SYNC_UNLOCK_ALL:
    rc = OTF2_EvtWriter_RmaReleaseLock(w, with_comm(list, attribute, p[COMM]), f->end, g->id,
                                       OTF2_UNDEFINED_UINT32, 0);
    break;
  case TRACER_RMA_SYNC_FLUSH: /* the target's memory holds what was put */
    if (sync_target(p) == OTF2_UNDEFINED_UINT32)
      return OTF2_SUCCESS;
    rc = OTF2_EvtWriter_RmaSync(w, with_comm(list, attribute, p[COMM]), f->end, g->id,
                                sync_target(p), OTF2_RMA_SYNC_TYPE_MEMORY);
    break;
  case TRACER_RMA_SYNC_FREE:
    rc = OTF2_EvtWriter_RmaWinDestroy(w, with_comm(list, attribute, p[COMM]), f->end, g->id);
    break;
  default: return OTF2_SUCCESS;
  }
  m->records += rc == OTF2_SUCCESS;
  return rc;
}

/* RmaWinCreate when the call that made a window (lttng_ust_tracer:group, read before the
 * call) ends. */
static OTF2_ErrorCode window_made(struct otf2_mpi *m, OTF2_EvtWriter *w, int64_t pid,
                                  int64_t tid, const struct stack_frame *f,
                                  OTF2_AttributeList *list) {
  if (!m->windows_made.len)
    return OTF2_SUCCESS;
  uint64_t key = call_key(pid, tid, f->start_clock);
  uint64_t *win = key_map_get(&m->windows_made, key);
  if (!win)
    return OTF2_SUCCESS;
  uint32_t id = (uint32_t)(*win - 1);
  key_map_remove(&m->windows_made, key);
  OTF2_AttributeList_RemoveAllAttributes(list);
  OTF2_ErrorCode rc = OTF2_EvtWriter_RmaWinCreate(w, list, f->end, id);
  m->records += rc == OTF2_SUCCESS;
  return rc;
}

OTF2_ErrorCode otf2_mpi_enter(struct otf2_mpi *m, OTF2_EvtWriter *w, uint64_t location,
                              const struct stack_frame *f,
                              OTF2_AttributeList *list, OTF2_AttributeRef attribute) {
  const uint64_t *p = f->payload;
  if (!(p[0] & HAS_VALUES))
    return OTF2_SUCCESS;
  if (p[0] & HAS_SYNC)
    return rma_sync_enter(m, w, f, list, attribute);
  OTF2_ErrorCode rc = OTF2_SUCCESS;
  struct target t = target_of(m, f);
  uint32_t peer = rank_of(p[0], p[PEER]);
  uint64_t remembered[STACK_PAYLOAD];
  memcpy(remembered, p, sizeof remembered);
  remembered[COMM] = t.comm;
  remembered[PEER] = peer_in(&t, peer);
  switch (p[0] & 0xff) {
  case TRACER_MESSAGE_SEND:
    if (peer == OTF2_UNDEFINED_UINT32)
      return OTF2_SUCCESS; /* MPI_PROC_NULL: no message */
    if (p[0] & HAS_REQUEST) {
      if (remember_request(m, location, remembered, f))
        return OTF2_ERROR_MEM_ALLOC_FAILED;
      rc = OTF2_EvtWriter_MpiIsend(w, with_comm(list, attribute, p[COMM]), f->start,
                                   peer_in(&t, peer), t.comm, (uint32_t)(p[TAG] & UINT32_MAX), p[BYTES],
                                   p[REQUEST]);
    } else {
      rc = OTF2_EvtWriter_MpiSend(w, with_comm(list, attribute, p[COMM]), f->start,
                                  peer_in(&t, peer), t.comm, (uint32_t)(p[TAG] & UINT32_MAX), p[BYTES]);
    }
    break;
  case TRACER_MESSAGE_RECV:
    if (!(p[0] & HAS_REQUEST))
      return OTF2_SUCCESS; /* when it ends */
    if (remember_request(m, location, remembered, f))
      return OTF2_ERROR_MEM_ALLOC_FAILED;
    rc = OTF2_EvtWriter_MpiIrecvRequest(w, with_comm(list, attribute, p[COMM]), f->start,
                                        p[REQUEST]);
    break;
  case TRACER_MESSAGE_COLLECTIVE:
    if (p[0] & HAS_REQUEST) { /* non-blocking: completed by the call that completes it */
      if (remember_request(m, location, remembered, f))
        return OTF2_ERROR_MEM_ALLOC_FAILED;
      rc = OTF2_EvtWriter_NonBlockingCollectiveRequest(w, with_comm(list, attribute, p[COMM]),
                                                       f->start, p[REQUEST]);
    } else {
      rc = OTF2_EvtWriter_MpiCollectiveBegin(w, with_comm(list, attribute, p[COMM]), f->start);
    }
    break;
  case TRACER_MESSAGE_PUT:
  case TRACER_MESSAGE_GET:
    /* Only on a window the trace saw made: OTF2 has no world window. */
    if (!t.group || peer == OTF2_UNDEFINED_UINT32)
      return OTF2_SUCCESS;
    if ((p[0] & 0xff) == TRACER_MESSAGE_PUT)
      rc = OTF2_EvtWriter_RmaPut(w, with_comm(list, attribute, p[COMM]), f->start, t.comm,
                                 peer_in(&t, peer), p[BYTES], ++m->rma_ops);
    else
      rc = OTF2_EvtWriter_RmaGet(w, with_comm(list, attribute, p[COMM]), f->start, t.comm,
                                 peer_in(&t, peer), p[BYTES], ++m->rma_ops);
    break;
  default: return OTF2_SUCCESS;
  }
  m->records += rc == OTF2_SUCCESS;
  return rc;
}

/* The completion record of a request r started; forgets it. */
static OTF2_ErrorCode complete(struct otf2_mpi *m, OTF2_EvtWriter *w, struct otf2_request *r,
                               uint64_t time, OTF2_AttributeList *list,
                               OTF2_AttributeRef attribute, uint64_t handle) {
  OTF2_ErrorCode rc;
  if (r->kind == TRACER_MESSAGE_SEND)
    rc = OTF2_EvtWriter_MpiIsendComplete(w, with_comm(list, attribute, handle), time,
                                         r->request);
  else if (r->kind == TRACER_MESSAGE_COLLECTIVE)
    rc = OTF2_EvtWriter_NonBlockingCollectiveComplete(
        w, with_comm(list, attribute, handle), time, r->op, (uint32_t)r->comm,
        r->has_root ? (uint32_t)r->peer : OTF2_UNDEFINED_UINT32, r->bytes, r->bytes,
        r->request);
  else
    rc = OTF2_EvtWriter_MpiIrecv(w, with_comm(list, attribute, handle), time, (uint32_t)r->peer,
                                 (uint32_t)r->comm, (uint32_t)r->tag, r->bytes, r->request);
  forget_request(m, r);
  m->records += rc == OTF2_SUCCESS;
  return rc;
}

/* The requests a call completed through an array, kept for it (otf2_mpi_event). */
static OTF2_ErrorCode complete_array(struct otf2_mpi *m, OTF2_EvtWriter *w, uint64_t location,
                                     int64_t pid, int64_t tid, const struct stack_frame *f,
                                     OTF2_AttributeList *list, OTF2_AttributeRef attribute) {
  uint64_t key = key_mix(key_mix((uint64_t)pid, (uint64_t)tid), f->start_clock) | 1;
  uint64_t *index = key_map_get(&m->by_call, key);
  if (!index)
    return OTF2_SUCCESS;
  struct otf2_completed *c = &m->completions[*index - 1];
  key_map_remove(&m->by_call, key);
  OTF2_ErrorCode rc = OTF2_SUCCESS;
  const uint64_t *sources = c->requests + c->count, *received = sources + c->count;
  for (uint32_t i = 0; i < c->count && rc == OTF2_SUCCESS; i++) {
    struct otf2_request *r = find_request(m, location, c->requests[i]);
    /* A receive's sender and bytes as its status says, as MPI_Wait's (otf2_mpi_leave). */
    if (r && r->kind == TRACER_MESSAGE_RECV && (int64_t)sources[i] >= 0) {
      r->peer = sources[i];
      r->bytes = received[i];
    }
    if (r)
      rc = complete(m, w, r, f->end, list, attribute, f->payload[COMM]);
  }
  free(c->requests);
  c->requests = NULL;
  c->key = 0;
  return rc;
}

OTF2_ErrorCode otf2_mpi_leave(struct otf2_mpi *m, OTF2_EvtWriter *w, uint64_t location,
                              int64_t pid, int64_t tid, const struct stack_frame *f,
                              OTF2_AttributeList *list, OTF2_AttributeRef attribute) {
  const uint64_t *p = f->payload;
  OTF2_ErrorCode rc = window_made(m, w, pid, tid, f, list);
  if (rc != OTF2_SUCCESS || !(p[0] & HAS_VALUES))
    return rc;
  if (p[0] & HAS_SYNC)
    return rma_sync_leave(m, w, f, list, attribute);
  struct target t = target_of(m, f);
  switch (p[0] & 0xff) {
  case TRACER_MESSAGE_SEND:
    if (!(p[0] & HAS_RECV) || rank_of(HAS_PEER, p[RECV_PEER]) == OTF2_UNDEFINED_UINT32)
      return OTF2_SUCCESS; /* its send was written when it began */
    rc = OTF2_EvtWriter_MpiRecv(w, with_comm(list, attribute, p[COMM]), f->end,
                                peer_in(&t, rank_of(HAS_PEER, p[RECV_PEER])), t.comm,
                                (uint32_t)(p[RECV_TAG] & UINT32_MAX), p[RECV_BYTES]);
    break;
  case TRACER_MESSAGE_RECV:
    if (p[0] & HAS_REQUEST)
      return OTF2_SUCCESS;
    rc = OTF2_EvtWriter_MpiRecv(w, with_comm(list, attribute, p[COMM]), f->end,
                                peer_in(&t, rank_of(p[0], p[PEER])), t.comm, (uint32_t)(p[TAG] & UINT32_MAX),
                                p[BYTES]);
    break;
  case TRACER_MESSAGE_COMPLETE: {
    if (!(p[0] & HAS_REQUEST))
      return complete_array(m, w, location, pid, tid, f, list, attribute);
    struct otf2_request *r = find_request(m, location, p[REQUEST]);
    /* A receive's sender and bytes as its status says (a rank of its communicator, as
     * OTF2 wants; -1: the status was ignored), over those its start named. */
    if (r && r->kind == TRACER_MESSAGE_RECV && p[0] & HAS_RECV && (int64_t)p[RECV_PEER] >= 0) {
      r->peer = p[RECV_PEER];
      r->bytes = p[RECV_BYTES];
    }
    return r ? complete(m, w, r, f->end, list, attribute, p[COMM]) : OTF2_SUCCESS;
  }
  case TRACER_MESSAGE_COLLECTIVE: {
    if (p[0] & HAS_REQUEST)
      return OTF2_SUCCESS; /* when a call completes it */
    int op = collective_op(f->desc->functions[f->function].name);
    rc = OTF2_EvtWriter_MpiCollectiveEnd(w, with_comm(list, attribute, p[COMM]), f->end,
                                         (OTF2_CollectiveOp)(op < 0 ? 0 : op), t.comm,
                                         peer_in(&t, rank_of(p[0], p[PEER])), p[BYTES],
                                         p[BYTES]);
    break;
  }
  case TRACER_MESSAGE_PUT:
  case TRACER_MESSAGE_GET:
    if (!t.group || rank_of(p[0], p[PEER]) == OTF2_UNDEFINED_UINT32)
      return OTF2_SUCCESS;
    rc = p[0] & HAS_REQUEST
             ? OTF2_EvtWriter_RmaOpCompleteNonBlocking(w, with_comm(list, attribute, p[COMM]),
                                                      f->end, t.comm, m->rma_ops)
             : OTF2_EvtWriter_RmaOpCompleteBlocking(w, with_comm(list, attribute, p[COMM]),
                                                   f->end, t.comm, m->rma_ops);
    break;
  default: return OTF2_SUCCESS;
  }
  m->records += rc == OTF2_SUCCESS;
  return rc;
}

static void drop_groups(struct otf2_mpi *m) {
  for (uint32_t i = 0; i < m->group_count; i++) {
    free(m->groups[i].members);
    free(m->groups[i].name);
  }
  m->group_count = 0;
  for (uint32_t i = 0; i < m->completion_count; i++)
    free(m->completions[i].requests);
  m->completion_count = 0;
}

void otf2_mpi_reset(struct otf2_mpi *m) {
  key_map_clear(&m->by_request);
  key_map_clear(&m->by_handle);
  key_map_clear(&m->ordinals);
  key_map_clear(&m->by_call);
  key_map_clear(&m->windows_made);
  drop_groups(m);
  m->count = 0;
  m->free_head = 0;
  m->records = 0;
  m->rma_ops = 0;
}

void otf2_mpi_free(struct otf2_mpi *m) {
  drop_groups(m);
  key_map_free(&m->by_request);
  key_map_free(&m->by_handle);
  key_map_free(&m->ordinals);
  key_map_free(&m->by_call);
  key_map_free(&m->windows_made);
  free(m->requests);
  free(m->groups);
  free(m->completions);
  memset(m, 0, sizeof *m);
}
