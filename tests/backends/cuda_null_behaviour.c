/* A behaviour for the null CUDA driver (generated/cuda/cuda_null_library.c), for the
 * tracer's tests: just enough of a driver for the hooks to do their real work.
 * - cuGetProcAddress hands out the driver's own functions (this library is linked with
 *   -Bsymbolic-functions, so they are its own, as a vendor driver's internal pointers
 *   are, never the interposer's), at their latest version: "cuMemAlloc" -> cuMemAlloc_v2.
 * - Device memory has addresses of its own; host memory from cuMemAllocHost is pinned:
 *   cuPointerGetAttributes tells them apart, and says nothing of other (pageable) memory.
 * - Functions and library kernels have handles that know their names (cuFuncGetName,
 *   cuKernelGetName).
 * - Kernel launches are told to an observer (null_cuda_observe_launches), and copies and
 *   memsets to another (null_cuda_observe_copies), as a stand-in CUPTI (cupti_standin.c)
 *   hears of them.
 * - Two devices, "Null GPU 0" and "Null GPU 1" (cuDeviceGetName), each with a primary
 *   context of its own; the thread's current context (cuCtxSetCurrent, push and pop)
 *   says which device cuCtxGetDevice answers, as the real driver does.
 * Every other function is the generated null one: it succeeds and does nothing.
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- memory ---- */

enum { DEVICE_BASE = 0x10000000, PINNED_MAX = 64 };
static CUdeviceptr device_next = DEVICE_BASE;
static struct {
  void *pointer;
  size_t bytes;
} pinned[PINNED_MAX];

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize) {
  pthread_mutex_lock(&lock);
  *dptr = device_next;
  device_next += (bytesize + 255) / 256 * 256 + 256;
  pthread_mutex_unlock(&lock);
  return CUDA_SUCCESS;
}

CUresult cuMemAllocHost_v2(void **pp, size_t bytesize) {
  *pp = NULL;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < PINNED_MAX && !*pp; i++)
    if (!pinned[i].pointer && (pinned[i].pointer = calloc(1, bytesize ? bytesize : 1)))
      pinned[i].bytes = bytesize, *pp = pinned[i].pointer;
  pthread_mutex_unlock(&lock);
  return *pp ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemFreeHost(void *p) {
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < PINNED_MAX; i++)
    if (p && pinned[i].pointer == p)
      free(p), pinned[i].pointer = NULL;
  pthread_mutex_unlock(&lock);
  return CUDA_SUCCESS;
}

static CUmemorytype memory_type(CUdeviceptr pointer) {
  if (pointer >= DEVICE_BASE && pointer < device_next)
    return CU_MEMORYTYPE_DEVICE;
  CUmemorytype type = 0; /* unknown to the driver: pageable host memory */
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < PINNED_MAX; i++)
    if (pinned[i].pointer && pointer >= (CUdeviceptr)pinned[i].pointer &&
        pointer < (CUdeviceptr)pinned[i].pointer + pinned[i].bytes)
      type = CU_MEMORYTYPE_HOST;
  pthread_mutex_unlock(&lock);
  return type;
}

/* As the real one: a pointer the driver does not know gets zeroes, and success. */
CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes,
                                void **data, CUdeviceptr ptr) {
  for (unsigned i = 0; i < numAttributes; i++) {
    if (attributes[i] == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
      *(unsigned *)data[i] = (unsigned)memory_type(ptr);
    else if (attributes[i] == CU_POINTER_ATTRIBUTE_IS_MANAGED)
      *(unsigned *)data[i] = 0;
    else
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

/* ---- devices and their contexts ---- */

enum { DEVICES = 2 };
/* A context is the address of its device's slot: its device is its index. */
static char primary_contexts[DEVICES];
static __thread CUcontext current;

CUresult cuDeviceGetCount(int *count) {
  *count = DEVICES;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal < 0 || ordinal >= DEVICES)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  if (dev < 0 || dev >= DEVICES || len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  snprintf(name, (size_t)len, "Null GPU %d", dev);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  if (dev < 0 || dev >= DEVICES)
    return CUDA_ERROR_INVALID_DEVICE;
  *pctx = (CUcontext)&primary_contexts[dev];
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  current = ctx;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *pctx) {
  *pctx = current;
  return CUDA_SUCCESS;
}

/* One level of pushing is all the tracer's hooks need. */
static __thread CUcontext pushed;
CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  pushed = current, current = ctx;
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent_v2(CUcontext *pctx) {
  if (pctx)
    *pctx = current;
  current = pushed;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *device) {
  const char *c = (const char *)current;
  if (!c) /* no context made current: the first device's primary one, as the runtime does */
    c = &primary_contexts[0];
  if (c < primary_contexts || c >= primary_contexts + DEVICES)
    return CUDA_ERROR_INVALID_CONTEXT;
  *device = (CUdevice)(c - primary_contexts);
  return CUDA_SUCCESS;
}

/* ---- functions and kernels, named ---- */

enum { NAMED_MAX = 64 };
struct named {
  char name[128];
  int is_library_kernel;
};
static struct named named[NAMED_MAX];
static size_t named_count;

static struct named *name_handle(const char *name, int is_library_kernel) {
  struct named *found = NULL;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < named_count && !found; i++)
    if (strcmp(named[i].name, name) == 0 && named[i].is_library_kernel == is_library_kernel)
      found = &named[i];
  if (!found && named_count < NAMED_MAX) {
    found = &named[named_count++];
    strncpy(found->name, name, sizeof found->name - 1);
    found->is_library_kernel = is_library_kernel;
  }
  pthread_mutex_unlock(&lock);
  return found;
}

static struct named *named_of(const void *handle) {
  const struct named *h = handle;
  return h >= named && h < named + named_count ? (struct named *)h : NULL;
}

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
  (void)hmod;
  *hfunc = (CUfunction)name_handle(name, 0);
  return *hfunc ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name) {
  (void)library;
  *pKernel = (CUkernel)name_handle(name, 1);
  return *pKernel ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

CUresult cuFuncGetName(const char **name, CUfunction hfunc) {
  struct named *n = named_of(hfunc);
  if (!n || n->is_library_kernel)
    return CUDA_ERROR_INVALID_HANDLE;
  *name = n->name;
  return CUDA_SUCCESS;
}

CUresult cuKernelGetName(const char **name, CUkernel hfunc) {
  struct named *n = named_of(hfunc);
  if (!n || !n->is_library_kernel)
    return CUDA_ERROR_INVALID_HANDLE;
  *name = n->name;
  return CUDA_SUCCESS;
}

/* ---- entry points ---- */

#define ENTRY(asked, function) {asked, (void *)function}
static const struct {
  const char *name;
  void *function;
} entries[] = {
    ENTRY("cuInit", cuInit),
    ENTRY("cuDriverGetVersion", cuDriverGetVersion),
    ENTRY("cuDeviceGet", cuDeviceGet),
    ENTRY("cuDeviceGetCount", cuDeviceGetCount),
    ENTRY("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain),
    ENTRY("cuCtxSetCurrent", cuCtxSetCurrent),
    ENTRY("cuCtxSynchronize", cuCtxSynchronize),
    ENTRY("cuCtxGetDevice", cuCtxGetDevice),
    ENTRY("cuModuleLoadData", cuModuleLoadData),
    ENTRY("cuModuleGetFunction", cuModuleGetFunction),
    ENTRY("cuMemAlloc", cuMemAlloc_v2),
    ENTRY("cuMemFree", cuMemFree_v2),
    ENTRY("cuMemAllocHost", cuMemAllocHost_v2),
    ENTRY("cuMemFreeHost", cuMemFreeHost),
    ENTRY("cuMemcpy", cuMemcpy),
    ENTRY("cuMemcpyAsync", cuMemcpyAsync),
    ENTRY("cuMemcpyHtoD", cuMemcpyHtoD_v2),
    ENTRY("cuMemcpyDtoH", cuMemcpyDtoH_v2),
    ENTRY("cuMemcpyDtoD", cuMemcpyDtoD_v2),
    ENTRY("cuMemcpyHtoDAsync", cuMemcpyHtoDAsync_v2),
    ENTRY("cuMemcpyDtoHAsync", cuMemcpyDtoHAsync_v2),
    ENTRY("cuMemsetD8", cuMemsetD8_v2),
    ENTRY("cuMemsetD32", cuMemsetD32_v2),
    ENTRY("cuLaunchKernel", cuLaunchKernel),
    ENTRY("cuLaunchKernelEx", cuLaunchKernelEx),
    ENTRY("cuStreamCreate", cuStreamCreate),
    ENTRY("cuStreamDestroy", cuStreamDestroy_v2),
    ENTRY("cuStreamQuery", cuStreamQuery),
    ENTRY("cuStreamSynchronize", cuStreamSynchronize),
    ENTRY("cuGetProcAddress", cuGetProcAddress_v2),
};

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *symbolStatus) {
  (void)cudaVersion, (void)flags;
  *pfn = NULL;
  for (size_t i = 0; i < sizeof entries / sizeof *entries && !*pfn; i++)
    if (strcmp(entries[i].name, symbol) == 0)
      *pfn = entries[i].function;
  if (symbolStatus)
    *symbolStatus = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return *pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

/* ---- events: each remembers when it was recorded, on CLOCK_MONOTONIC_RAW ---- */

enum { EVENTS_MAX = 4096 };
static struct event {
  int used;
  uint64_t recorded_ns;
} events[EVENTS_MAX];

static struct event *event_of(CUevent handle) {
  struct event *e = (struct event *)handle;
  return e >= events && e < events + EVENTS_MAX && e->used ? e : NULL;
}

CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags) {
  (void)Flags;
  *phEvent = NULL;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < EVENTS_MAX && !*phEvent; i++)
    if (!events[i].used)
      events[i] = (struct event){1, 0}, *phEvent = (CUevent)&events[i];
  pthread_mutex_unlock(&lock);
  return *phEvent ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuEventDestroy_v2(CUevent hEvent) {
  struct event *e = event_of(hEvent);
  if (!e)
    return CUDA_ERROR_INVALID_HANDLE;
  pthread_mutex_lock(&lock);
  e->used = 0;
  pthread_mutex_unlock(&lock);
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
  (void)hStream;
  struct event *e = event_of(hEvent);
  if (!e)
    return CUDA_ERROR_INVALID_HANDLE;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC_RAW, &now);
  e->recorded_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
  return CUDA_SUCCESS;
}

CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd) {
  struct event *start = event_of(hStart), *end = event_of(hEnd);
  if (!start || !end || !start->recorded_ns || !end->recorded_ns)
    return CUDA_ERROR_INVALID_HANDLE;
  *pMilliseconds = (float)((double)((int64_t)(end->recorded_ns - start->recorded_ns)) / 1e6);
  return CUDA_SUCCESS;
}

/* ---- launches, seen by a stand-in CUPTI (tests/backends/cupti_standin.c) ---- */

static void (*launch_observer)(const char *name, uintptr_t stream, int device);

/* The stand-in CUPTI asks to hear of every kernel launch, as CUPTI hears of them from the
 * driver: the kernel's name, its stream and the device of the thread's context. */
void null_cuda_observe_launches(void (*observer)(const char *name, uintptr_t stream,
                                                 int device)) {
  launch_observer = observer;
}

static void launched(CUfunction f, CUstream stream) {
  struct named *n = named_of(f);
  const char *c = current ? (const char *)current : &primary_contexts[0];
  int device = c >= primary_contexts && c < primary_contexts + DEVICES ? (int)(c - primary_contexts)
                                                                       : 0;
  if (launch_observer)
    launch_observer(n ? n->name : "kernel", (uintptr_t)stream, device);
}

/* Copies and memsets, told to an observer as CUPTI hears of them: the driver function,
 * the bytes, the stream and the device of the thread's context. */
static void (*copy_observer)(const char *api, uint64_t bytes, uintptr_t stream, int device);

void null_cuda_observe_copies(void (*observer)(const char *api, uint64_t bytes, uintptr_t stream,
                                               int device)) {
  copy_observer = observer;
}

static CUresult copied(const char *api, uint64_t bytes, CUstream stream) {
  const char *c = current ? (const char *)current : &primary_contexts[0];
  int device = c >= primary_contexts && c < primary_contexts + DEVICES ? (int)(c - primary_contexts)
                                                                       : 0;
  if (copy_observer)
    copy_observer(api, bytes, (uintptr_t)stream, device);
  return CUDA_SUCCESS;
}

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  (void)dst, (void)src;
  return copied("cuMemcpy", ByteCount, NULL);
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount) {
  (void)dstDevice, (void)srcHost;
  return copied("cuMemcpyHtoD_v2", ByteCount, NULL);
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
                              CUstream hStream) {
  (void)dstDevice, (void)srcHost;
  return copied("cuMemcpyHtoDAsync_v2", ByteCount, hStream);
}
CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  (void)dstHost, (void)srcDevice;
  return copied("cuMemcpyDtoH_v2", ByteCount, NULL);
}
CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                              CUstream hStream) {
  (void)dstHost, (void)srcDevice;
  return copied("cuMemcpyDtoHAsync_v2", ByteCount, hStream);
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  (void)dstDevice, (void)srcDevice;
  return copied("cuMemcpyDtoD_v2", ByteCount, NULL);
}
CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  (void)dstDevice, (void)ui;
  return copied("cuMemsetD32_v2", 4 * (uint64_t)N, NULL);
}

/* With NULL_CUDA_KERNEL_NS_PER_BLOCK=N, a kernel "runs" N ns a block of its grid, inside
 * its launch, between the events the tracer records around it: a test can make a kernel
 * longer (or slower) on purpose. */
static void run_blocks(unsigned long long blocks) {
  const char *ns = getenv("NULL_CUDA_KERNEL_NS_PER_BLOCK");
  unsigned long long total = ns ? strtoull(ns, NULL, 10) * blocks : 0;
  if (total) {
    struct timespec t = {(time_t)(total / 1000000000u), (long)(total % 1000000000u)};
    while (nanosleep(&t, &t) != 0) {
    }
  }
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                        unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                        unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                        void **kernelParams, void **extra) {
  (void)blockDimX, (void)blockDimY;
  (void)blockDimZ, (void)sharedMemBytes, (void)kernelParams, (void)extra;
  launched(f, hStream);
  run_blocks((unsigned long long)gridDimX * gridDimY * gridDimZ);
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams,
                          void **extra) {
  (void)kernelParams, (void)extra;
  launched(f, config ? config->hStream : NULL);
  return CUDA_SUCCESS;
}
