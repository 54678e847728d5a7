/* otf2_library: see otf2_library.h. */
#define OTF2_LIBRARY_LOADER /* the table's entries by their own names here */
#include "otf2_library.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* The soname the build found and the Debian package that ships it (exports/CMakeLists.txt). */
#ifndef TRACER_OTF2_SONAME
#define TRACER_OTF2_SONAME "libopen-trace-format2.so.10"
#endif
#ifndef TRACER_OTF2_PACKAGE
#define TRACER_OTF2_PACKAGE "libopen-trace-format2-10"
#endif

struct otf2_library otf2_library;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512]; /* empty when loaded */

static void load(void) {
  /* Never closed: archives may be written until the tracer exits. */
  void *handle = dlopen(TRACER_OTF2_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    snprintf(failure, sizeof failure, "%s", dlerror());
    return;
  }
#define OTF2_LIBRARY_RESOLVE(name)                                                           \
  if (!failure[0] && !(otf2_library.name = (__typeof__(otf2_library.name))dlsym(handle, #name))) \
    snprintf(failure, sizeof failure, "%s has no %s", TRACER_OTF2_SONAME, #name);
  OTF2_LIBRARY_FUNCTIONS(OTF2_LIBRARY_RESOLVE)
#undef OTF2_LIBRARY_RESOLVE
}

const char *otf2_library_soname(void) { return TRACER_OTF2_SONAME; }

int otf2_library_load(struct diag *d) {
  pthread_once(&once, load);
  if (!failure[0])
    return 0;
  return diag_error(d, "Cannot write the OTF2 archive: %s (libotf2 is loaded for --otf2 only: "
                       "install the Debian package " TRACER_OTF2_PACKAGE ")",
                    failure);
}
