/* otf2_mpi: see otf2_mpi.h. */
#include "otf2_mpi.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "event_map.h"
#include "tracer_runtime.h"

/* payload[0]: what the frame carries; the values in the slots after it. */
enum {
  HAS_VALUES = 1u << 8, /* the record's values were read */
  HAS_REQUEST = 1u << 9,
  HAS_PEER = 1u << 10,
  PEER = 1, TAG = 2, COMM = 3, BYTES = 4, REQUEST = 5,
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
  case TRACER_MESSAGE_COMPLETE: return true;
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

void otf2_mpi_payload(const struct trace_call *c, uint64_t payload[STACK_PAYLOAD]) {
  memset(payload, 0, STACK_PAYLOAD * sizeof *payload);
  const struct tracer_function_desc *f = &c->desc->functions[c->function];
  const struct tracer_message *m = &f->message;
  if (!otf2_mpi_has_records(f) || c->batched || c->failed)
    return;
  uint64_t slots[256];
  size_t n = trace_call_record(c, slots, sizeof slots / sizeof *slots);
  if (n <= TRACER_RECORD_HEAD)
    return;
  payload[0] = m->kind | HAS_VALUES;
  if (slot_value(f, slots, n, m->peer, &payload[PEER]))
    payload[0] |= HAS_PEER;
  slot_value(f, slots, n, m->tag, &payload[TAG]);
  slot_value(f, slots, n, m->comm, &payload[COMM]);
  slot_value(f, slots, n, m->bytes, &payload[BYTES]);
  if (slot_value(f, slots, n, m->request, &payload[REQUEST]))
    payload[0] |= HAS_REQUEST;
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

OTF2_ErrorCode otf2_mpi_enter(struct otf2_mpi *m, OTF2_EvtWriter *w, uint64_t location,
                              const struct stack_frame *f, OTF2_AttributeList *list,
                              OTF2_AttributeRef attribute) {
  const uint64_t *p = f->payload;
  if (!(p[0] & HAS_VALUES))
    return OTF2_SUCCESS;
  OTF2_ErrorCode rc = OTF2_SUCCESS;
  uint32_t peer = rank_of(p[0], p[PEER]);
  switch (p[0] & 0xff) {
  case TRACER_MESSAGE_SEND:
    if (peer == OTF2_UNDEFINED_UINT32)
      return OTF2_SUCCESS; /* MPI_PROC_NULL: no message */
    if (p[0] & HAS_REQUEST) {
      if (remember_request(m, location, p, f))
        return OTF2_ERROR_MEM_ALLOC_FAILED;
      rc = OTF2_EvtWriter_MpiIsend(w, with_comm(list, attribute, p[COMM]), f->start, peer, 0,
                                   (uint32_t)p[TAG], p[BYTES], p[REQUEST]);
    } else {
      rc = OTF2_EvtWriter_MpiSend(w, with_comm(list, attribute, p[COMM]), f->start, peer, 0,
                                  (uint32_t)p[TAG], p[BYTES]);
    }
    break;
  case TRACER_MESSAGE_RECV:
    if (!(p[0] & HAS_REQUEST))
      return OTF2_SUCCESS; /* when it ends */
    if (remember_request(m, location, p, f))
      return OTF2_ERROR_MEM_ALLOC_FAILED;
    rc = OTF2_EvtWriter_MpiIrecvRequest(w, with_comm(list, attribute, p[COMM]), f->start,
                                        p[REQUEST]);
    break;
  case TRACER_MESSAGE_COLLECTIVE:
    if (p[0] & HAS_REQUEST) { /* non-blocking: completed by the call that completes it */
      if (remember_request(m, location, p, f))
        return OTF2_ERROR_MEM_ALLOC_FAILED;
      rc = OTF2_EvtWriter_NonBlockingCollectiveRequest(w, with_comm(list, attribute, p[COMM]),
                                                       f->start, p[REQUEST]);
    } else {
      rc = OTF2_EvtWriter_MpiCollectiveBegin(w, with_comm(list, attribute, p[COMM]), f->start);
    }
    break;
  default: return OTF2_SUCCESS;
  }
  m->records += rc == OTF2_SUCCESS;
  return rc;
}

OTF2_ErrorCode otf2_mpi_leave(struct otf2_mpi *m, OTF2_EvtWriter *w, uint64_t location,
                              const struct stack_frame *f, OTF2_AttributeList *list,
                              OTF2_AttributeRef attribute) {
  const uint64_t *p = f->payload;
  if (!(p[0] & HAS_VALUES))
    return OTF2_SUCCESS;
  OTF2_ErrorCode rc = OTF2_SUCCESS;
  switch (p[0] & 0xff) {
  case TRACER_MESSAGE_RECV:
    if (p[0] & HAS_REQUEST)
      return OTF2_SUCCESS;
    rc = OTF2_EvtWriter_MpiRecv(w, with_comm(list, attribute, p[COMM]), f->end,
                                rank_of(p[0], p[PEER]), 0, (uint32_t)p[TAG], p[BYTES]);
    break;
  case TRACER_MESSAGE_COMPLETE: {
    struct otf2_request *r = p[0] & HAS_REQUEST ? find_request(m, location, p[REQUEST]) : NULL;
    if (!r)
      return OTF2_SUCCESS;
    if (r->kind == TRACER_MESSAGE_SEND)
      rc = OTF2_EvtWriter_MpiIsendComplete(w, with_comm(list, attribute, r->comm), f->end,
                                           r->request);
    else if (r->kind == TRACER_MESSAGE_COLLECTIVE)
      rc = OTF2_EvtWriter_NonBlockingCollectiveComplete(
          w, with_comm(list, attribute, r->comm), f->end, r->op, 0,
          rank_of(r->has_root ? HAS_PEER : 0, r->peer), r->bytes, r->bytes, r->request);
    else
      rc = OTF2_EvtWriter_MpiIrecv(w, with_comm(list, attribute, r->comm), f->end,
                                   rank_of(HAS_PEER, r->peer), 0, (uint32_t)r->tag, r->bytes,
                                   r->request);
    forget_request(m, r);
    break;
  }
  case TRACER_MESSAGE_COLLECTIVE: {
    if (p[0] & HAS_REQUEST)
      return OTF2_SUCCESS; /* when a call completes it */
    int op = collective_op(f->desc->functions[f->function].name);
    rc = OTF2_EvtWriter_MpiCollectiveEnd(w, with_comm(list, attribute, p[COMM]), f->end,
                                         (OTF2_CollectiveOp)(op < 0 ? 0 : op), 0,
                                         rank_of(p[0], p[PEER]), p[BYTES], p[BYTES]);
    break;
  }
  default: return OTF2_SUCCESS;
  }
  m->records += rc == OTF2_SUCCESS;
  return rc;
}

void otf2_mpi_reset(struct otf2_mpi *m) {
  key_map_clear(&m->by_request);
  m->count = 0;
  m->free_head = 0;
  m->records = 0;
}

void otf2_mpi_free(struct otf2_mpi *m) {
  key_map_free(&m->by_request);
  free(m->requests);
  memset(m, 0, sizeof *m);
}
