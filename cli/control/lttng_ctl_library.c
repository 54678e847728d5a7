/* lttng_ctl_library: see lttng_ctl_library.h. */
#define LTTNG_CTL_LIBRARY_LOADER /* the table's entries by their own names here */
#include "lttng_ctl_library.h"

#include "loaded_library.h"

/* The soname the build found and the Debian package that ships it (control/CMakeLists.txt). */
#ifndef TRACER_LTTNG_CTL_SONAME
#define TRACER_LTTNG_CTL_SONAME "liblttng-ctl.so.0"
#endif
#ifndef TRACER_LTTNG_CTL_PACKAGE
#define TRACER_LTTNG_CTL_PACKAGE "liblttng-ctl0"
#endif

#define LTTNG_CTL_LIBRARY_NAME(name) #name,
static const char *const names[] = {LTTNG_CTL_LIBRARY_FUNCTIONS(LTTNG_CTL_LIBRARY_NAME)};
#undef LTTNG_CTL_LIBRARY_NAME

struct lttng_ctl_library lttng_ctl_library;
LOADED_LIBRARY(library, TRACER_LTTNG_CTL_SONAME, TRACER_LTTNG_CTL_PACKAGE,
               "liblttng-ctl is loaded to record and for --check",
               names, lttng_ctl_library);

const char *lttng_ctl_library_soname(void) { return TRACER_LTTNG_CTL_SONAME; }

int lttng_ctl_library_load(struct diag *d) {
  return loaded_library_load(&library, "Cannot talk to an LTTng session daemon", d);
}
