/* otf2_library: see otf2_library.h. */
#define OTF2_LIBRARY_LOADER /* the table's entries by their own names here */
#include "otf2_library.h"

#include "loaded_library.h"

/* The soname the build found and the Debian package that ships it (exports/CMakeLists.txt). */
#ifndef TRACER_OTF2_SONAME
#define TRACER_OTF2_SONAME "libopen-trace-format2.so.10"
#endif
#ifndef TRACER_OTF2_PACKAGE
#define TRACER_OTF2_PACKAGE "libopen-trace-format2-10"
#endif

#define OTF2_LIBRARY_NAME(name) #name,
static const char *const names[] = {OTF2_LIBRARY_FUNCTIONS(OTF2_LIBRARY_NAME)};
#undef OTF2_LIBRARY_NAME

struct otf2_library otf2_library;
LOADED_LIBRARY(library, TRACER_OTF2_SONAME, TRACER_OTF2_PACKAGE,
               "libotf2 is loaded for --otf2 only", names, otf2_library);

const char *otf2_library_soname(void) { return TRACER_OTF2_SONAME; }

int otf2_library_load(struct diag *d) {
  return loaded_library_load(&library, "Cannot write the OTF2 archive", d);
}
