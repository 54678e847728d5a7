/* jansson_library: see jansson_library.h. */
#define JANSSON_LIBRARY_LOADER /* the table's entries by their own names here */
#include "jansson_library.h"

#include "loaded_library.h"

/* The soname the build found and the Debian package that ships it (reports/CMakeLists.txt). */
#ifndef TRACER_JANSSON_SONAME
#define TRACER_JANSSON_SONAME "libjansson.so.4"
#endif
#ifndef TRACER_JANSSON_PACKAGE
#define TRACER_JANSSON_PACKAGE "libjansson4"
#endif

#define JANSSON_LIBRARY_NAME(name) #name,
static const char *const names[] = {JANSSON_LIBRARY_FUNCTIONS(JANSSON_LIBRARY_NAME)};
#undef JANSSON_LIBRARY_NAME

struct jansson_library jansson_library;
LOADED_LIBRARY(library, TRACER_JANSSON_SONAME, TRACER_JANSSON_PACKAGE,
               "libjansson is loaded for JSON results only", names, jansson_library);

const char *jansson_library_soname(void) { return TRACER_JANSSON_SONAME; }

int jansson_library_load(struct diag *d) {
  return loaded_library_load(&library, "Cannot read a JSON result", d);
}
