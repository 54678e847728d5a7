/* NCCL hooks: what no spec can say about NCCL's calls.
 *
 * - The bytes of a message are its count times the size of one element of its datatype
 *   (trace.messages in the spec): NCCL's datatypes are an enum whose sizes nccl.h does
 *   not state, so they are listed here.
 * - The rank and size of a call's communicator (trace.communicators), which the
 *   collectives report needs for nccl-tests' bus bandwidth and the job's message matrix.
 *   Asked of NCCL when the call returns, with nccl_depth raised so that these calls go
 *   straight to the library, untraced.
 * - An id that all ranks of a communicator share (trace.communicators' `id`), for the
 *   job's stragglers and message matrix (docs/nccl.md): a hash of the ncclUniqueId the ranks created it from,
 *   or of its parent's id and the color they split it by. Kept per handle from its
 *   creation (after hooks) to its destruction, in a map of COMM_IDS; a communicator
 *   made before the tracer loaded, or beyond the table, has none (0).
 *
 * NCCL has no device work of its own to time: its kernels are launched through the CUDA
 * driver inside the calls, where the cuda backend records them, each naming the call
 * that launched it (docs/cuda.md, docs/analysis-output.md).
 */
#include "nccl_args.h"

#include <pthread.h>

#include "tracer_map.h"

uint64_t nccl_element_size(ncclDataType_t datatype) {
  switch (datatype) {
  case ncclInt8:
  case ncclUint8:
  case ncclFloat8e4m3:
  case ncclFloat8e5m2: return 1;
  case ncclFloat16:
  case ncclBfloat16: return 2;
  case ncclInt32:
  case ncclUint32:
  case ncclFloat32: return 4;
  case ncclInt64:
  case ncclUint64:
  case ncclFloat64: return 8;
  default: return 0; /* a datatype newer than this nccl.h: no bytes rather than wrong ones */
  }
}

int64_t nccl_comm_rank(ncclComm_t comm) {
  int rank = -1;
  if (!comm)
    return -1;
  nccl_depth++;
  ncclResult_t status = ncclCommUserRank(comm, &rank);
  nccl_depth--;
  return status == ncclSuccess ? rank : -1;
}

int64_t nccl_comm_size(ncclComm_t comm) {
  int count = -1;
  if (!comm)
    return -1;
  nccl_depth++;
  ncclResult_t status = ncclCommCount(comm, &count);
  nccl_depth--;
  return status == ncclSuccess ? count : -1;
}

/* ---- communicators' ids ---- */

enum { COMM_IDS = 1024 };
static struct tracer_map comm_ids = TRACER_MAP_INIT(uint64_t, COMM_IDS); /* by handle */
static pthread_mutex_t comm_ids_lock = PTHREAD_MUTEX_INITIALIZER;

/* FNV-1a over bytes, from h; never 0, which means "no id". */
static uint64_t hash_bytes(uint64_t h, const void *bytes, size_t size) {
  const unsigned char *p = bytes;
  for (size_t i = 0; i < size; i++)
    h = (h ^ p[i]) * 1099511628211ull;
  return h ? h : 1;
}

static const uint64_t hash_seed = 14695981039346656037ull;

static void remember(ncclComm_t comm, uint64_t id) {
  pthread_mutex_lock(&comm_ids_lock);
  tracer_map_put(&comm_ids, (uintptr_t)comm, &id);
  pthread_mutex_unlock(&comm_ids_lock);
}

static void forget(ncclComm_t comm) {
  pthread_mutex_lock(&comm_ids_lock);
  tracer_map_take(&comm_ids, (uintptr_t)comm, NULL);
  pthread_mutex_unlock(&comm_ids_lock);
}

uint64_t nccl_comm_id(ncclComm_t comm) {
  uint64_t id = 0;
  pthread_mutex_lock(&comm_ids_lock);
  tracer_map_get(&comm_ids, (uintptr_t)comm, &id);
  pthread_mutex_unlock(&comm_ids_lock);
  return id;
}

/* A non-blocking communicator is handed out while it is still being made. */
static bool made(int64_t status) { return status == ncclSuccess || status == ncclInProgress; }

static void remember_made(int64_t status, ncclComm_t *comm, const ncclUniqueId *id) {
  if (made(status) && comm && *comm && id)
    remember(*comm, hash_bytes(hash_seed, id, sizeof *id));
}

void nccl_hook_ncclCommInitRank_after(struct nccl_ncclCommInitRank_args *args) {
  remember_made(args->tracer_status, args->comm, &args->commId);
}

void nccl_hook_ncclCommInitRankConfig_after(struct nccl_ncclCommInitRankConfig_args *args) {
  remember_made(args->tracer_status, args->comm, &args->commId);
}

void nccl_hook_ncclCommInitRankScalable_after(struct nccl_ncclCommInitRankScalable_args *args) {
  if (args->nId > 0)
    remember_made(args->tracer_status, args->newcomm, args->commIds);
}

void nccl_hook_ncclCommSplit_after(struct nccl_ncclCommSplit_args *args) {
  if (!made(args->tracer_status) || !args->newcomm || !*args->newcomm)
    return;
  uint64_t parent = nccl_comm_id(args->comm);
  int color = args->color;
  remember(*args->newcomm,
           hash_bytes(hash_bytes(hash_seed, &parent, sizeof parent), &color, sizeof color));
}

void nccl_hook_ncclCommDestroy_after(struct nccl_ncclCommDestroy_args *args) {
  forget(args->comm);
}

void nccl_hook_ncclCommAbort_after(struct nccl_ncclCommAbort_args *args) {
  forget(args->comm);
}
