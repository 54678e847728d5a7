/* cl_count.h: the test apps' own, independent count of the OpenCL calls they make.
 *
 * Every OpenCL call in tests/apps goes through one of the macros below. Each macro calls
 * the function, then notes: one call of that function; whether it failed (its status, or
 * the value it wrote to errcode_ret, is not CL_SUCCESS; with errcode_ret NULL, a NULL
 * result); the bytes a successful transfer moved; the kernel a successful launch ran.
 * clc_finish() writes it all as a JSON manifest to the file named by $APP_MANIFEST:
 *
 *   {"processes": 1, "threads": 1,
 *    "calls": {"clGetPlatformIDs": 2, ...}, "errors": 0, "failed": {"clCreateBuffer": 1},
 *    "bytes": {"clEnqueueWriteBuffer": 8192, ...}, "transfers": {"clEnqueueWriteBuffer": 2},
 *    "kernels": {"vadd": 1}}
 *
 * "threads" counts the threads that made at least one OpenCL call. "bytes" and
 * "transfers" count successful transfer commands only (a failed enqueue moves nothing);
 * clEnqueueUnmapMemObject counts as a transfer of 0 bytes (the bytes are counted once, by
 * the map). Nothing here depends on the tracer: the tests compare its tally with this.
 *
 * Macros (errcode_ret is always the last parameter of an OpenCL function):
 *   CL(fn, args...)                       fn returns its status: CL(clFinish, q)
 *   CL_OBJ(dst, errp, fn, args...)        dst = fn(args..., errp); errp may be NULL
 *                                         (a statement, like CL_MAP)
 *   CL_XFER(bytes, fn, args...)           an enqueue that returns its status and moves bytes
 *   CL_MAP(dst, bytes, errp, fn, args...) clEnqueueMapBuffer
 *   CL_LAUNCH(name, fn, args...)          an enqueue that runs the kernel called name
 */
#ifndef CL_COUNT_H
#define CL_COUNT_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CLC_MAX_NAMES = 128 };

struct clc_function {
  const char *name; /* a string literal (#fn) */
  unsigned long calls;
  unsigned long failed;
  unsigned long transfers;   /* successful transfer commands */
  unsigned long long bytes;  /* bytes they moved */
  int is_transfer;
};

struct clc_kernel {
  char name[64];
  unsigned long launches;
};

static struct {
  pthread_mutex_t lock;
  struct clc_function functions[CLC_MAX_NAMES];
  size_t nfunctions;
  struct clc_kernel kernels[CLC_MAX_NAMES];
  size_t nkernels;
  unsigned long threads;
} clc_state = {.lock = PTHREAD_MUTEX_INITIALIZER};

static _Thread_local int clc_thread_counted;

/* Under clc_state.lock. */
static inline struct clc_function *clc_function_locked(const char *name) {
  for (size_t i = 0; i < clc_state.nfunctions; i++)
    if (strcmp(clc_state.functions[i].name, name) == 0)
      return &clc_state.functions[i];
  if (clc_state.nfunctions == CLC_MAX_NAMES) {
    fprintf(stderr, "cl_count: more than %d functions\n", CLC_MAX_NAMES);
    abort();
  }
  struct clc_function *f = &clc_state.functions[clc_state.nfunctions++];
  f->name = name;
  return f;
}

/* Notes one call of name; returns its entry with the lock held. */
static inline struct clc_function *clc_note_locked(const char *name, int failed) {
  pthread_mutex_lock(&clc_state.lock);
  if (!clc_thread_counted) {
    clc_thread_counted = 1;
    clc_state.threads++;
  }
  struct clc_function *f = clc_function_locked(name);
  f->calls++;
  if (failed)
    f->failed++;
  return f;
}

static inline cl_int clc_status(const char *name, cl_int status) {
  clc_note_locked(name, status != CL_SUCCESS);
  pthread_mutex_unlock(&clc_state.lock);
  return status;
}

static inline int clc_object_failed(const cl_int *errcode_ret, int have_result) {
  return errcode_ret ? *errcode_ret != CL_SUCCESS : !have_result;
}

static inline void clc_object(const char *name, const cl_int *errcode_ret, int have_result) {
  clc_note_locked(name, clc_object_failed(errcode_ret, have_result));
  pthread_mutex_unlock(&clc_state.lock);
}

static inline void clc_transfer_locked(struct clc_function *f, int failed,
                                       unsigned long long bytes) {
  f->is_transfer = 1;
  if (!failed) {
    f->transfers++;
    f->bytes += bytes;
  }
}

static inline cl_int clc_transfer(const char *name, unsigned long long bytes, cl_int status) {
  int failed = status != CL_SUCCESS;
  clc_transfer_locked(clc_note_locked(name, failed), failed, bytes);
  pthread_mutex_unlock(&clc_state.lock);
  return status;
}

static inline void clc_map(const char *name, unsigned long long bytes, const cl_int *errcode_ret,
                           int have_result) {
  int failed = clc_object_failed(errcode_ret, have_result);
  clc_transfer_locked(clc_note_locked(name, failed), failed, bytes);
  pthread_mutex_unlock(&clc_state.lock);
}

static inline cl_int clc_launch(const char *name, const char *kernel, cl_int status) {
  clc_note_locked(name, status != CL_SUCCESS);
  if (status == CL_SUCCESS) {
    size_t i = 0;
    while (i < clc_state.nkernels && strcmp(clc_state.kernels[i].name, kernel) != 0)
      i++;
    if (i == clc_state.nkernels) {
      if (i == CLC_MAX_NAMES || strlen(kernel) >= sizeof clc_state.kernels[i].name) {
        fprintf(stderr, "cl_count: too many kernels, or name too long: %s\n", kernel);
        abort();
      }
      strcpy(clc_state.kernels[clc_state.nkernels++].name, kernel);
    }
    clc_state.kernels[i].launches++;
  }
  pthread_mutex_unlock(&clc_state.lock);
  return status;
}

#define CL(fn, ...) clc_status(#fn, fn(__VA_ARGS__))
#define CL_OBJ(dst, errp, fn, ...)                 \
  do {                                             \
    (dst) = fn(__VA_ARGS__, (errp));               \
    clc_object(#fn, (errp), (dst) != NULL);        \
  } while (0)
#define CL_XFER(bytes, fn, ...) clc_transfer(#fn, (bytes), fn(__VA_ARGS__))
#define CL_MAP(dst, bytes, errp, fn, ...)          \
  do {                                             \
    (dst) = fn(__VA_ARGS__, (errp));               \
    clc_map(#fn, (bytes), (errp), (dst) != NULL);  \
  } while (0)
#define CL_LAUNCH(kernel_name, fn, ...) clc_launch(#fn, (kernel_name), fn(__VA_ARGS__))

/* Forgets every count: a forked child counts only what it does itself. */
static inline void clc_reset(void) {
  pthread_mutex_lock(&clc_state.lock);
  memset(clc_state.functions, 0, sizeof clc_state.functions);
  memset(clc_state.kernels, 0, sizeof clc_state.kernels);
  clc_state.nfunctions = 0;
  clc_state.nkernels = 0;
  clc_state.threads = 0;
  clc_thread_counted = 0;
  pthread_mutex_unlock(&clc_state.lock);
}

/* Writes the manifest to path; returns 0, or -1 with a message. Names are C identifiers
 * and kernel names, so they need no JSON escaping beyond what is checked here. */
static inline int clc_write_manifest(const char *path) {
  FILE *out = fopen(path, "w");
  if (!out) {
    perror(path);
    return -1;
  }
  pthread_mutex_lock(&clc_state.lock);
  unsigned long errors = 0;
  fprintf(out, "{\"processes\": 1, \"threads\": %lu,\n \"calls\": {", clc_state.threads);
  for (size_t i = 0; i < clc_state.nfunctions; i++) {
    fprintf(out, "%s\"%s\": %lu", i ? ", " : "", clc_state.functions[i].name,
            clc_state.functions[i].calls);
    errors += clc_state.functions[i].failed;
  }
  fprintf(out, "},\n \"errors\": %lu,\n \"failed\": {", errors);
  const char *sep = "";
  for (size_t i = 0; i < clc_state.nfunctions; i++)
    if (clc_state.functions[i].failed) {
      fprintf(out, "%s\"%s\": %lu", sep, clc_state.functions[i].name,
              clc_state.functions[i].failed);
      sep = ", ";
    }
  fprintf(out, "},\n \"bytes\": {");
  sep = "";
  for (size_t i = 0; i < clc_state.nfunctions; i++)
    if (clc_state.functions[i].is_transfer) {
      fprintf(out, "%s\"%s\": %llu", sep, clc_state.functions[i].name,
              clc_state.functions[i].bytes);
      sep = ", ";
    }
  fprintf(out, "},\n \"transfers\": {");
  sep = "";
  for (size_t i = 0; i < clc_state.nfunctions; i++)
    if (clc_state.functions[i].is_transfer) {
      fprintf(out, "%s\"%s\": %lu", sep, clc_state.functions[i].name,
              clc_state.functions[i].transfers);
      sep = ", ";
    }
  fprintf(out, "},\n \"kernels\": {");
  for (size_t i = 0; i < clc_state.nkernels; i++)
    fprintf(out, "%s\"%s\": %lu", i ? ", " : "", clc_state.kernels[i].name,
            clc_state.kernels[i].launches);
  fprintf(out, "}}\n");
  pthread_mutex_unlock(&clc_state.lock);
  if (fclose(out) != 0) {
    perror(path);
    return -1;
  }
  return 0;
}

/* Writes the manifest where $APP_MANIFEST says (nothing when unset); returns status, or 1
 * when the manifest could not be written. */
static inline int clc_finish(int status) {
  const char *path = getenv("APP_MANIFEST");
  if (path && *path && clc_write_manifest(path) != 0)
    return 1;
  return status;
}

#endif
