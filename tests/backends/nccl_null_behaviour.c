/* A behaviour for the null NCCL (generated/nccl/nccl_null_library.c), for the tracer's
 * tests: just enough of NCCL for the hooks and the collectives report to do their real
 * work.
 * - A communicator knows the size and the rank ncclCommInitRank was given
 *   (ncclCommCount, ncclCommUserRank): the test app decides what they answer.
 * - Each collective and point-to-point call launches its kernel through the CUDA driver
 *   inside the call, on the call's stream, as NCCL does (cuModuleGetFunction and
 *   cuLaunchKernel of the null driver), named as NCCL names its kernels
 *   (ncclDevKernel_AllReduce_Sum_f32). Inside a group (ncclGroupStart ... ncclGroupEnd on
 *   the thread) calls only queue, and the outermost ncclGroupEnd launches one kernel for
 *   the group, named after its first operation.
 * - Each such call takes NCCL_NULL_CALL_US microseconds (default 0), so that its time
 *   is the test's to choose.
 * - The driver calls and kernels it made are counted and written at exit to
 *   $APP_MANIFEST.nccl, for the test's count of the driver's table.
 * Every other function is the generated null one: it succeeds and does nothing.
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <nccl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the count ---- */

enum { COUNTED_MAX = 64 };
struct counted {
  char name[96];
  unsigned long count;
};
static struct counted calls[COUNTED_MAX], kernels[COUNTED_MAX];
static size_t call_names, kernel_names;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void count(struct counted *list, size_t *n, const char *name) {
  pthread_mutex_lock(&lock);
  size_t i = 0;
  while (i < *n && strcmp(list[i].name, name) != 0)
    i++;
  if (i < COUNTED_MAX && i == *n)
    snprintf(list[(*n)++].name, sizeof list[i].name, "%s", name);
  if (i < COUNTED_MAX)
    list[i].count++;
  pthread_mutex_unlock(&lock);
}

static void write_list(FILE *f, const char *key, const struct counted *list, size_t n) {
  fprintf(f, "\"%s\": {", key);
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%s\"%s\": %lu", i ? ", " : "", list[i].name, list[i].count);
  fputc('}', f);
}

static void write_count(void) {
  const char *manifest = getenv("APP_MANIFEST");
  if (!manifest)
    return;
  char path[4096];
  snprintf(path, sizeof path, "%s.nccl", manifest);
  FILE *f = fopen(path, "w");
  if (!f)
    return;
  fputc('{', f);
  write_list(f, "calls", calls, call_names);
  fputs(", ", f);
  write_list(f, "kernels", kernels, kernel_names);
  fputs("}\n", f);
  fclose(f);
}

__attribute__((constructor)) static void count_at_exit(void) { atexit(write_count); }

/* ---- communicators ---- */

struct ncclComm {
  int nranks, rank;
};

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank) {
  (void)commId;
  if (!comm || nranks < 1 || rank < 0 || rank >= nranks)
    return ncclInvalidArgument;
  *comm = malloc(sizeof **comm);
  if (!*comm)
    return ncclSystemError;
  **comm = (struct ncclComm){nranks, rank};
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  free(comm);
  return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count) {
  if (!comm || !count)
    return ncclInvalidArgument;
  *count = comm->nranks;
  return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank) {
  if (!comm || !rank)
    return ncclInvalidArgument;
  *rank = comm->rank;
  return ncclSuccess;
}

/* ---- operations: a kernel each, or one for a group ---- */

static __thread int group_depth;
static __thread char group_kernel[96]; /* the open group's first operation's kernel */
static __thread CUstream group_stream;

static void take_time(void) {
  const char *us = getenv("NCCL_NULL_CALL_US");
  long n = us ? atol(us) : 0;
  if (n > 0) {
    struct timespec t = {n / 1000000, (n % 1000000) * 1000};
    nanosleep(&t, NULL);
  }
}

static ncclResult_t launch(const char *kernel, CUstream stream) {
  CUfunction function;
  count(calls, &call_names, "cuModuleGetFunction");
  if (cuModuleGetFunction(&function, NULL, kernel) != CUDA_SUCCESS)
    return ncclUnhandledCudaError;
  count(calls, &call_names, "cuLaunchKernel");
  count(kernels, &kernel_names, kernel);
  if (cuLaunchKernel(function, 1, 1, 1, 64, 1, 1, 0, stream, NULL, NULL) != CUDA_SUCCESS)
    return ncclUnhandledCudaError;
  return ncclSuccess;
}

static const char *type_name(ncclDataType_t t) {
  static const char *const names[] = {"i8", "u8", "i32", "u32", "i64", "u64",
                                      "f16", "f32", "f64", "bf16", "e4m3", "e5m2"};
  return (unsigned)t < sizeof names / sizeof *names ? names[t] : "unknown";
}

static const char *op_name(ncclRedOp_t op) {
  static const char *const names[] = {"Sum", "Prod", "Max", "Min", "Avg"};
  return (unsigned)op < sizeof names / sizeof *names ? names[op] : "PreMulSum";
}

/* An operation: its kernel now, or queued in the open group. */
static ncclResult_t operation(const char *kernel, ncclComm_t comm, cudaStream_t stream) {
  if (!comm)
    return ncclInvalidArgument;
  take_time();
  if (group_depth) {
    if (!group_kernel[0]) {
      snprintf(group_kernel, sizeof group_kernel, "%s", kernel);
      group_stream = (CUstream)stream;
    }
    return ncclSuccess;
  }
  return launch(kernel, (CUstream)stream);
}

static ncclResult_t reduction(const char *collective, ncclRedOp_t op, ncclDataType_t t,
                              ncclComm_t comm, cudaStream_t stream) {
  char kernel[96];
  snprintf(kernel, sizeof kernel, "ncclDevKernel_%s_%s_%s", collective, op_name(op),
           type_name(t));
  return operation(kernel, comm, stream);
}

ncclResult_t ncclGroupStart(void) {
  group_depth++;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void) {
  if (group_depth < 1)
    return ncclInvalidUsage;
  if (--group_depth || !group_kernel[0])
    return ncclSuccess;
  ncclResult_t status = launch(group_kernel, group_stream);
  group_kernel[0] = '\0';
  return status;
}

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream) {
  return reduction("AllReduce", op, datatype, comm, stream);
}

ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
                        ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm,
                        cudaStream_t stream) {
  return reduction("Reduce", op, datatype, comm, stream);
}

ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                               ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                               cudaStream_t stream) {
  return reduction("ReduceScatter", op, datatype, comm, stream);
}

ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, int root, ncclComm_t comm,
                           cudaStream_t stream) {
  return operation("ncclDevKernel_Broadcast", comm, stream);
}

ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                           ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream) {
  return operation("ncclDevKernel_AllGather", comm, stream);
}

ncclResult_t ncclAlltoAll(const void *sendbuff, void *recvbuff, size_t count,
                          ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream) {
  return operation("ncclDevKernel_AlltoAll", comm, stream);
}

ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype, int peer,
                      ncclComm_t comm, cudaStream_t stream) {
  return operation("ncclDevKernel_SendRecv", comm, stream);
}

ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
                      ncclComm_t comm, cudaStream_t stream) {
  return operation("ncclDevKernel_SendRecv", comm, stream);
}
