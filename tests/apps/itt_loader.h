/* itt_loader: the part of an ITT-instrumented app that finds the collector, for the tests.
 *
 * No Debian package ships Intel's ITT static part (ittnotify_static.c), so the test apps
 * do what its documentation and source say it does on Linux: read the collector's path
 * from INTEL_LIBITTNOTIFY64, dlopen it, require the symbol __itt_api_version (without it
 * only the legacy functions are looked up), then look each function up by its name, but
 * only those of the groups that INTEL_ITTNOTIFY_GROUPS names: without it, only counters,
 * frames, stitches and heap calls (not domains, tasks, markers, pause or thread names),
 * as PyTorch's copy of the static part was seen to do (docs/itt-python.md).
 * Like Intel's macros, calls on a domain whose flags are 0 are skipped, and without a
 * collector every call does nothing. Types come from the project's own ittnotify.h.
 */
#ifndef ITT_LOADER_H
#define ITT_LOADER_H

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "ittnotify.h"

struct itt_api {
  __typeof__(__itt_domain_create) *domain_create;
  __typeof__(__itt_string_handle_create) *string_handle_create;
  __typeof__(__itt_task_begin) *task_begin;
  __typeof__(__itt_task_end) *task_end;
  __typeof__(__itt_frame_begin_v3) *frame_begin_v3;
  __typeof__(__itt_frame_end_v3) *frame_end_v3;
  __typeof__(__itt_marker) *marker;
  __typeof__(__itt_pause) *pause;
  __typeof__(__itt_resume) *resume;
  __typeof__(__itt_thread_set_name) *thread_set_name;
};

/* Whether the static part would look up functions of this group. */
static inline int itt_group_on(const char *group) {
  const char *groups = getenv("INTEL_ITTNOTIFY_GROUPS");
  if (!groups)
    return !strcmp(group, "counter") || !strcmp(group, "frame") || !strcmp(group, "stitch") ||
           !strcmp(group, "heap");
  size_t len = strlen(group);
  for (const char *g = groups; *g;) {
    size_t n = strcspn(g, ",; ");
    if ((n == 3 && !strncmp(g, "all", 3)) || (n == len && !strncmp(g, group, len)))
      return 1;
    g += n + (g[n] != '\0');
  }
  return 0;
}

#define ITT_LOOKUP(lib, api, fn, group)                                                    \
  (*(void **)&(api)->fn = itt_group_on(group) ? dlsym(lib, "__itt_" #fn) : NULL)

/* Fills api from the collector; returns 1 when one was loaded, 0 when none is named. */
static inline int itt_load(struct itt_api *api) {
  const char *path = getenv("INTEL_LIBITTNOTIFY64");
  void *lib = path && *path ? dlopen(path, RTLD_LAZY) : NULL;
  if (!lib || !dlsym(lib, "__itt_api_version"))
    return 0;
  ITT_LOOKUP(lib, api, domain_create, "structure");
  ITT_LOOKUP(lib, api, string_handle_create, "structure");
  ITT_LOOKUP(lib, api, task_begin, "structure");
  ITT_LOOKUP(lib, api, task_end, "structure");
  ITT_LOOKUP(lib, api, frame_begin_v3, "frame");
  ITT_LOOKUP(lib, api, frame_end_v3, "frame");
  ITT_LOOKUP(lib, api, marker, "structure");
  ITT_LOOKUP(lib, api, pause, "control");
  ITT_LOOKUP(lib, api, resume, "control");
  ITT_LOOKUP(lib, api, thread_set_name, "thread");
  return 1;
}

/* As Intel's macros: nothing without a collector or on a disabled domain. */
#define ITT_CALL(api, fn, ...) ((api)->fn ? (api)->fn(__VA_ARGS__) : (void)0)
#define ITT_DOMAIN_CALL(api, d, fn, ...) \
  ((d) && (d)->flags && (api)->fn ? (api)->fn((d), __VA_ARGS__) : (void)0)
#define ITT_DOMAIN_CALL0(api, d, fn) ((d) && (d)->flags && (api)->fn ? (api)->fn(d) : (void)0)

#endif
