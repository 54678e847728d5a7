/* rel_count.h: the reliability apps' own count of their OpenCL calls, kept on disk.
 *
 * The apps of tests/reliability die in many ways (a fault, abort, _exit, SIGKILL), so
 * their count cannot wait for exit: rel_flush() rewrites the whole count file with one
 * pwrite(2) at offset 0, and the crash apps call it after every call. The file has fixed
 * width lines, so each rewrite replaces the previous one completely:
 *
 *   pid 0000012345
 *   pgid 0000012345
 *   clGetPlatformIDs 0000000042
 *   clGetPlatformInfo 0000000040
 *   clGetDeviceIDs 0000000004
 *
 * A function the app never called is still listed (with 0). The file is named by
 * $REL_COUNT; with it unset nothing is written. Counters are atomic and rel_flush() uses
 * only async-signal-safe calls, so a signal handler may count and flush too.
 *
 * Nothing here depends on the tracer: the tests compare its tally with this file.
 */
#ifndef REL_COUNT_H
#define REL_COUNT_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum rel_function {
  REL_GET_PLATFORM_IDS,
  REL_GET_PLATFORM_INFO,
  REL_GET_DEVICE_IDS,
  REL_FUNCTIONS
};

static const char *const rel_names[REL_FUNCTIONS] = {"clGetPlatformIDs", "clGetPlatformInfo",
                                                     "clGetDeviceIDs"};
static unsigned long rel_calls[REL_FUNCTIONS];
static int rel_fd = -2; /* -2: not opened yet; -1: no count file */

/* ocl-icd's answer when no ICD is installed (CL_PLATFORM_NOT_FOUND_KHR). */
#define REL_PLATFORM_NOT_FOUND (-1001)
/* Exit status that ctest reads as "skipped": no OpenCL runtime here. */
enum { REL_SKIP = 77 };

static inline void rel_note(enum rel_function f) {
  __atomic_add_fetch(&rel_calls[f], 1, __ATOMIC_SEQ_CST);
}

/* Appends name, a space, value in `width` digits and a newline; async-signal-safe. */
static inline size_t rel_line(char *out, const char *name, unsigned long value, int width) {
  size_t n = strlen(name);
  memcpy(out, name, n);
  out[n++] = ' ';
  for (int i = width - 1; i >= 0; i--) {
    out[n + (size_t)i] = (char)('0' + value % 10);
    value /= 10;
  }
  n += (size_t)width;
  out[n++] = '\n';
  return n;
}

/* Rewrites the count file (opened on first use); async-signal-safe after the first call,
 * which main() makes through rel_start(). */
static inline void rel_flush(void) {
  if (rel_fd == -2) {
    const char *path = getenv("REL_COUNT");
    rel_fd = path && *path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
  }
  if (rel_fd < 0)
    return;
  char buf[512];
  size_t n = rel_line(buf, "pid", (unsigned long)getpid(), 10);
  n += rel_line(buf + n, "pgid", (unsigned long)getpgrp(), 10);
  for (int f = 0; f < REL_FUNCTIONS; f++)
    n += rel_line(buf + n, rel_names[f], __atomic_load_n(&rel_calls[f], __ATOMIC_SEQ_CST), 10);
  ssize_t ignored = pwrite(rel_fd, buf, n, 0);
  (void)ignored;
}

/* The counted calls. Each returns the call's status. */
static inline cl_int rel_platform_ids(cl_uint entries, cl_platform_id *platforms, cl_uint *n) {
  cl_int status = clGetPlatformIDs(entries, platforms, n);
  rel_note(REL_GET_PLATFORM_IDS);
  return status;
}

static inline cl_int rel_platform_name(cl_platform_id platform, char *name, size_t size) {
  cl_int status = clGetPlatformInfo(platform, CL_PLATFORM_NAME, size, name, NULL);
  rel_note(REL_GET_PLATFORM_INFO);
  return status;
}

static inline cl_int rel_device_count(cl_platform_id platform, cl_uint *n) {
  cl_int status = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, n);
  rel_note(REL_GET_DEVICE_IDS);
  return status;
}

/* Opens the count file and finds the first platform (its first call loads the ICDs);
 * exits 77 when there is no OpenCL platform. */
static inline cl_platform_id rel_start(void) {
  rel_flush();
  cl_uint n = 0;
  cl_int status = rel_platform_ids(0, NULL, &n);
  rel_flush();
  if (status == REL_PLATFORM_NOT_FOUND || (status == CL_SUCCESS && n == 0)) {
    fprintf(stderr, "SKIP: no OpenCL platform\n");
    exit(REL_SKIP);
  }
  if (status != CL_SUCCESS) {
    fprintf(stderr, "error: clGetPlatformIDs failed with status %d\n", (int)status);
    exit(1);
  }
  cl_platform_id platform = NULL;
  status = rel_platform_ids(1, &platform, NULL);
  rel_flush();
  if (status != CL_SUCCESS) {
    fprintf(stderr, "error: clGetPlatformIDs failed with status %d\n", (int)status);
    exit(1);
  }
  return platform;
}

#endif
