/* itt_loader: the part of an ITT-instrumented app that finds the collector, for the tests.
 *
 * No Debian package ships Intel's ITT static part (ittnotify_static.c), so the test apps
 * do what its documentation and source say it does on Linux: read the collector's path
 * from INTEL_LIBITTNOTIFY64, dlopen it, require the symbol __itt_api_version (without it
 * only the legacy functions are looked up), then look each function up by its name.
 * Like Intel's macros, calls on a domain whose flags are 0 are skipped, and without a
 * collector every call does nothing. Types come from the project's own ittnotify.h.
 */
#ifndef ITT_LOADER_H
#define ITT_LOADER_H

#include <dlfcn.h>
#include <stdlib.h>

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

/* Fills api from the collector; returns 1 when one was loaded, 0 when none is named. */
static inline int itt_load(struct itt_api *api) {
  const char *path = getenv("INTEL_LIBITTNOTIFY64");
  void *lib = path && *path ? dlopen(path, RTLD_LAZY) : NULL;
  if (!lib || !dlsym(lib, "__itt_api_version"))
    return 0;
  *(void **)&api->domain_create = dlsym(lib, "__itt_domain_create");
  *(void **)&api->string_handle_create = dlsym(lib, "__itt_string_handle_create");
  *(void **)&api->task_begin = dlsym(lib, "__itt_task_begin");
  *(void **)&api->task_end = dlsym(lib, "__itt_task_end");
  *(void **)&api->frame_begin_v3 = dlsym(lib, "__itt_frame_begin_v3");
  *(void **)&api->frame_end_v3 = dlsym(lib, "__itt_frame_end_v3");
  *(void **)&api->marker = dlsym(lib, "__itt_marker");
  *(void **)&api->pause = dlsym(lib, "__itt_pause");
  *(void **)&api->resume = dlsym(lib, "__itt_resume");
  *(void **)&api->thread_set_name = dlsym(lib, "__itt_thread_set_name");
  return 1;
}

/* As Intel's macros: nothing without a collector or on a disabled domain. */
#define ITT_CALL(api, fn, ...) ((api)->fn ? (api)->fn(__VA_ARGS__) : (void)0)
#define ITT_DOMAIN_CALL(api, d, fn, ...) \
  ((d) && (d)->flags && (api)->fn ? (api)->fn((d), __VA_ARGS__) : (void)0)
#define ITT_DOMAIN_CALL0(api, d, fn) ((d) && (d)->flags && (api)->fn ? (api)->fn(d) : (void)0)

#endif
