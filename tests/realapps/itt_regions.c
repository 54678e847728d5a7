/* itt_regions: named regions for a Python app that has no ITT of its own (Debian's
 * python3-torch is built without it), through ITT as an instrumented library calls it
 * (tests/apps/itt_loader.h). Loaded with ctypes: itt_regions_begin("Step.3") opens a task
 * on the calling thread, itt_regions_end() closes the innermost. Without a collector
 * (untraced), both do nothing. */
#include <pthread.h>

#include "itt_loader.h"

static struct itt_api api;
static __itt_domain *domain;
static pthread_once_t loaded = PTHREAD_ONCE_INIT;

static void load(void) {
  if (itt_load(&api) && api.domain_create)
    domain = api.domain_create("tests.realapps");
}

void itt_regions_begin(const char *name) {
  pthread_once(&loaded, load);
  __itt_string_handle *handle = api.string_handle_create ? api.string_handle_create(name) : NULL;
  ITT_DOMAIN_CALL(&api, domain, task_begin, __itt_null, __itt_null, handle);
}

void itt_regions_end(void) {
  pthread_once(&loaded, load);
  ITT_DOMAIN_CALL0(&api, domain, task_end);
}
