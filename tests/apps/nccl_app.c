/* An NCCL program for the tracer's NCCL test: one rank of a job (its rank and the job's
 * size from the launcher's RANK and WORLD_SIZE), with a communicator of the job's ranks
 * and one of 4 ranks (as a process that drives 2 GPUs of a larger job would hold: here
 * this process holds rank 2 x RANK + 1 of it), collectives of known counts, datatypes and
 * operations on both, sends and receives in groups, a group of two broadcasts of
 * different sizes, nccl-tests' warm-up pattern, and a kernel of its own outside NCCL.
 * With APP_SLOW_RANK=R, rank R arrives APP_SLOW_MS (default 200) ms late at the second
 * AllReduce: a straggler.
 *
 * It runs against the null NCCL and CUDA driver (tests/backends/nccl_null_behaviour.c),
 * so it checks only that each call succeeds. It counts its calls (manifest.h) and writes
 * every operation it made, with its parameters, to $APP_MANIFEST.ops (a JSON array of
 * {name, op, count, type_size, ranks, comm_rank, peer, group, comm, before, after}: comm
 * "world" or "wide", before and after the call's CLOCK_REALTIME ns), from which the test
 * works out the bytes, sizes, bandwidth factors and stragglers itself.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#include <cuda.h>
#include <nccl.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "manifest.h"

#define CU(function, ...) MANIFEST_CALL(function, function(__VA_ARGS__) == CUDA_SUCCESS)
/* An NCCL call, between two readings of the clock (the last call's, for note()). */
#define NCCL(function, ...)                                                              \
  do {                                                                                   \
    call_before = now_ns();                                                              \
    MANIFEST_CALL(function, function(__VA_ARGS__) == ncclSuccess);                       \
    call_after = now_ns();                                                               \
  } while (0)

static uint64_t call_before, call_after;
static ncclComm_t world, wide;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static FILE *ops;
static unsigned ops_written;
static int in_group; /* the group the next operations belong to; 0: none */

/* Notes one operation as the app made it: no figure of the tracer's in it. */
static void note(const char *name, const char *op, size_t count, size_t type_size,
                 ncclComm_t comm, int peer) {
  int ranks = 0, rank = 0;
  uint64_t before = call_before, after = call_after;
  ncclCommCount(comm, &ranks); /* through the tracer: it passes them on */
  ncclCommUserRank(comm, &rank);
  manifest_add(&manifest_calls, "ncclCommCount", 1);
  manifest_add(&manifest_calls, "ncclCommUserRank", 1);
  if (ops)
    fprintf(ops,
            "%s{\"name\": \"%s\", \"op\": %s%s%s, \"count\": %zu, \"type_size\": %zu, "
            "\"ranks\": %d, \"comm_rank\": %d, \"peer\": %d, \"group\": %d, \"comm\": \"%s\", "
            "\"before\": %llu, \"after\": %llu}\n",
            ops_written++ ? "," : "[", name, op ? "\"" : "", op ? op : "null", op ? "\"" : "",
            count, type_size, ranks, rank, peer, in_group, comm == world ? "world" : "wide",
            (unsigned long long)before, (unsigned long long)after);
}

static void group_start(int group) {
  NCCL(ncclGroupStart);
  in_group = group;
}

static void group_end(void) {
  NCCL(ncclGroupEnd);
  in_group = 0;
}

int main(void) {
  const char *rank_text = getenv("RANK"), *size_text = getenv("WORLD_SIZE");
  if (!rank_text || !size_text) {
    fprintf(stderr, "nccl_app: RANK and WORLD_SIZE must be set (one rank of a job)\n");
    return 2;
  }
  int rank = atoi(rank_text), size = atoi(size_text);
  const char *manifest = getenv("APP_MANIFEST");
  if (manifest) {
    char path[4096];
    snprintf(path, sizeof path, "%s.ops", manifest);
    ops = fopen(path, "w");
  }

  CU(cuInit, 0);
  /* One GPU per local rank, as DDP jobs place their ranks. */
  const char *local_rank = getenv("LOCAL_RANK");
  int devices = 1;
  CU(cuDeviceGetCount, &devices);
  CUdevice device;
  CU(cuDeviceGet, &device, local_rank && devices > 0 ? atoi(local_rank) % devices : 0);
  CUcontext context;
  CU(cuDevicePrimaryCtxRetain, &context, device);
  CU(cuCtxSetCurrent, context);
  CUstream cu_stream;
  CU(cuStreamCreate, &cu_stream, CU_STREAM_NON_BLOCKING);
  cudaStream_t stream = (cudaStream_t)cu_stream;
  CUdeviceptr send, recv;
  CU(cuMemAlloc, &send, 1 << 22);
  CU(cuMemAlloc, &recv, 1 << 22);
  static float inputs[4096];
  CU(cuMemcpyHtoD, send, inputs, sizeof inputs);
  manifest_transfer("cuMemcpyHtoD_v2(H2D pageable)", sizeof inputs);
  const void *sb = (const void *)(uintptr_t)send;
  void *rb = (void *)(uintptr_t)recv;

  ncclUniqueId id;
  NCCL(ncclGetUniqueId, &id);
  NCCL(ncclCommInitRank, &world, size, id, rank);
  /* Another communicator, another id (as every rank would receive it from the one that
   * made it: here each rank makes the same one). */
  ncclUniqueId wide_id = id;
  wide_id.internal[0] ^= 1;
  NCCL(ncclCommInitRank, &wide, 4, wide_id, 2 * rank + 1);
  int other = (rank + 1) % size;

  /* Collectives on the job's communicator. */
  const char *slow = getenv("APP_SLOW_RANK"), *slow_ms = getenv("APP_SLOW_MS");
  for (int i = 0; i < 3; i++) {
    if (i == 1 && slow && atoi(slow) == rank) {
      long ms = slow_ms ? atol(slow_ms) : 200;
      struct timespec late = {ms / 1000, (ms % 1000) * 1000000};
      nanosleep(&late, NULL);
    }
    NCCL(ncclAllReduce, sb, rb, 1024, ncclFloat32, ncclSum, world, stream);
    note("ncclAllReduce", "ncclSum", 1024, sizeof(float), world, -1);
  }
  for (int i = 0; i < 2; i++) {
    NCCL(ncclAllReduce, sb, rb, 262144, ncclFloat32, ncclSum, world, stream);
    note("ncclAllReduce", "ncclSum", 262144, sizeof(float), world, -1);
  }
  /* nccl-tests' pattern (-b 8K -e 64K -f 4): one warm-up call at every size from the
   * least to the most by 2, then the timed calls at the sizes it reports, by 4: the sizes
   * between are warm-up calls only. */
  for (size_t count = 2048; count <= 16384; count *= 2) {
    NCCL(ncclAllReduce, sb, rb, count, ncclFloat32, ncclProd, world, stream);
    note("ncclAllReduce", "ncclProd", count, sizeof(float), world, -1);
  }
  for (size_t count = 2048; count <= 16384; count *= 4)
    for (int i = 0; i < 8; i++) {
      NCCL(ncclAllReduce, sb, rb, count, ncclFloat32, ncclProd, world, stream);
      note("ncclAllReduce", "ncclProd", count, sizeof(float), world, -1);
    }
  NCCL(ncclAllReduce, sb, rb, 1000, ncclFloat64, ncclMax, world, stream);
  note("ncclAllReduce", "ncclMax", 1000, sizeof(double), world, -1);
  for (int i = 0; i < 2; i++) {
    NCCL(ncclBroadcast, sb, rb, 4096, ncclInt32, 0, world, stream);
    note("ncclBroadcast", NULL, 4096, sizeof(int32_t), world, -1);
  }
  NCCL(ncclReduce, sb, rb, 2048, ncclFloat16, ncclSum, 1 % size, world, stream);
  note("ncclReduce", "ncclSum", 2048, sizeof(uint16_t), world, -1);
  for (int i = 0; i < 2; i++) {
    NCCL(ncclAllGather, sb, rb, 1024, ncclFloat32, world, stream);
    note("ncclAllGather", NULL, 1024, sizeof(float), world, -1);
    NCCL(ncclReduceScatter, sb, rb, 512, ncclFloat32, ncclSum, world, stream);
    note("ncclReduceScatter", "ncclSum", 512, sizeof(float), world, -1);
  }
  NCCL(ncclAlltoAll, sb, rb, 256, ncclInt64, world, stream);
  note("ncclAlltoAll", NULL, 256, sizeof(int64_t), world, -1);

  /* Point to point, in groups as NCCL wants them: to the next rank, from the previous. */
  for (int g = 1; g <= 3; g++) {
    group_start(g);
    NCCL(ncclSend, sb, 2048, ncclFloat32, other, world, stream);
    note("ncclSend", NULL, 2048, sizeof(float), world, other);
    NCCL(ncclRecv, rb, 2048, ncclFloat32, (rank + size - 1) % size, world, stream);
    note("ncclRecv", NULL, 2048, sizeof(float), world, (rank + size - 1) % size);
    group_end();
  }
  /* A group of two operations of different sizes: one kernel, shared by size. */
  for (int g = 4; g <= 5; g++) {
    group_start(g);
    NCCL(ncclBroadcast, sb, rb, 1000, ncclUint8, 0, world, stream);
    note("ncclBroadcast", NULL, 1000, 1, world, -1);
    NCCL(ncclBroadcast, sb, rb, 3000, ncclUint8, 0, world, stream);
    note("ncclBroadcast", NULL, 3000, 1, world, -1);
    group_end();
  }

  /* The communicator of 4 ranks: other factors, and peers that are none of the job's. */
  for (int i = 0; i < 2; i++) {
    NCCL(ncclAllReduce, sb, rb, 1024, ncclFloat32, ncclSum, wide, stream);
    note("ncclAllReduce", "ncclSum", 1024, sizeof(float), wide, -1);
  }
  NCCL(ncclAllGather, sb, rb, 4096, ncclUint8, wide, stream);
  note("ncclAllGather", NULL, 4096, 1, wide, -1);
  /* To the other job rank's rank of it, and to a rank that no traced process holds. */
  group_start(6);
  NCCL(ncclSend, sb, 512, ncclBfloat16, (2 * rank + 3) % 4, wide, stream);
  note("ncclSend", NULL, 512, 2, wide, (2 * rank + 3) % 4);
  group_end();
  group_start(7);
  NCCL(ncclSend, sb, 512, ncclBfloat16, (2 * rank + 2) % 4, wide, stream);
  note("ncclSend", NULL, 512, 2, wide, (2 * rank + 2) % 4);
  group_end();

  /* A kernel of the app's own: no collective's. */
  static const char image[] = "not a cubin: the null driver never reads it";
  CUmodule module;
  CUfunction scale;
  CU(cuModuleLoadData, &module, image);
  CU(cuModuleGetFunction, &scale, module, "app_scale");
  CU(cuLaunchKernel, scale, 16, 1, 1, 256, 1, 1, 0, cu_stream, NULL, NULL);
  manifest_kernel("app_scale");
  CU(cuStreamSynchronize, cu_stream);

  NCCL(ncclCommDestroy, wide);
  NCCL(ncclCommDestroy, world);
  CU(cuMemFree, send);
  CU(cuMemFree, recv);
  if (ops) {
    fputs(ops_written ? "]\n" : "[]\n", ops);
    fclose(ops);
  }
  manifest_write();
  printf("nccl_app: rank %d of %d: %u operations\n", rank, size, ops_written);
  return 0;
}
