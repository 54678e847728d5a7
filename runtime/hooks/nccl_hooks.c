/* NCCL hooks: what no spec can say about NCCL's calls.
 *
 * - The bytes of a message are its count times the size of one element of its datatype
 *   (trace.messages in the spec): NCCL's datatypes are an enum whose sizes nccl.h does
 *   not state, so they are listed here.
 * - The rank and size of a call's communicator (trace.communicators), which the
 *   collectives report needs for nccl-tests' bus bandwidth and the job's message matrix.
 *   Asked of NCCL when the call returns, with nccl_depth raised so that these calls go
 *   straight to the library, untraced.
 *
 * NCCL has no device work of its own to time: its kernels are launched through the CUDA
 * driver inside the calls, where the cuda backend records them, each naming the call
 * that launched it (docs/cuda.md, docs/analysis-output.md).
 */
#include "nccl_args.h"

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
