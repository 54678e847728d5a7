/* dw_library: see dw_library.h. */
#define DW_LIBRARY_LOADER /* the tables' entries by their own names here */
#include "dw_library.h"

#include "loaded_library.h"

/* The sonames the build found and the Debian packages that ship them (model/CMakeLists.txt). */
#ifndef TRACER_DW_SONAME
#define TRACER_DW_SONAME "libdw.so.1"
#endif
#ifndef TRACER_DW_PACKAGE
#define TRACER_DW_PACKAGE "libdw1"
#endif
#ifndef TRACER_STDCXX_SONAME
#define TRACER_STDCXX_SONAME "libstdc++.so.6"
#endif
#ifndef TRACER_STDCXX_PACKAGE
#define TRACER_STDCXX_PACKAGE "libstdc++6"
#endif

#define DW_LIBRARY_NAME(name) #name,
static const char *const names[] = {DW_LIBRARY_FUNCTIONS(DW_LIBRARY_NAME)};
static const char *const cxx_names[] = {DW_LIBRARY_CXX_FUNCTIONS(DW_LIBRARY_NAME)};
#undef DW_LIBRARY_NAME

struct dw_library dw_library;
struct dw_library_cxx dw_library_cxx;
LOADED_LIBRARY(library, TRACER_DW_SONAME, TRACER_DW_PACKAGE,
               "libdw is loaded to name native frames", names, dw_library);
LOADED_LIBRARY(cxx_library, TRACER_STDCXX_SONAME, TRACER_STDCXX_PACKAGE,
               "libstdc++ is loaded to demangle native frames' C++ names", cxx_names,
               dw_library_cxx);

int dw_library_load(struct diag *d) {
  return loaded_library_load(&library, "Cannot name native frames", d);
}

int dw_library_load_cxx(struct diag *d) {
  return loaded_library_load(&cxx_library, "Cannot demangle C++ names", d);
}
