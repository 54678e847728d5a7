/* jansson_library: see jansson_library.h. */
#define JANSSON_LIBRARY_LOADER /* the table's entries by their own names here */
#include "jansson_library.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* The soname the build found and the Debian package that ships it (reports/CMakeLists.txt). */
#ifndef TRACER_JANSSON_SONAME
#define TRACER_JANSSON_SONAME "libjansson.so.4"
#endif
#ifndef TRACER_JANSSON_PACKAGE
#define TRACER_JANSSON_PACKAGE "libjansson4"
#endif

struct jansson_library jansson_library;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512]; /* empty when loaded */

static void load(void) {
  /* Never closed: the tracer reads its results until it exits. */
  void *handle = dlopen(TRACER_JANSSON_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    snprintf(failure, sizeof failure, "%s", dlerror());
    return;
  }
#define JANSSON_LIBRARY_RESOLVE(name)                                                        \
  if (!failure[0] &&                                                                         \
      !(jansson_library.name = (__typeof__(jansson_library.name))dlsym(handle, #name)))      \
    snprintf(failure, sizeof failure, "%s has no %s", TRACER_JANSSON_SONAME, #name);
  JANSSON_LIBRARY_FUNCTIONS(JANSSON_LIBRARY_RESOLVE)
#undef JANSSON_LIBRARY_RESOLVE
}

const char *jansson_library_soname(void) { return TRACER_JANSSON_SONAME; }

int jansson_library_load(struct diag *d) {
  pthread_once(&once, load);
  if (!failure[0])
    return 0;
  return diag_error(d, "Cannot read a JSON result: %s (libjansson is loaded for JSON results "
                       "only: install the Debian package " TRACER_JANSSON_PACKAGE ")",
                    failure);
}
