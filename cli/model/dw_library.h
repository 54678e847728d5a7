/* dw_library: elfutils' libdw (its libdwfl part), and the C++ runtime's demangler, loaded
 * when the first native frame is named (dlopen, loaded_library.h), not linked: a trace
 * without native stacks never needs them, and libdw pulls libelf, libz, liblzma and
 * libbz2, libstdc++ a large relocation of its own, into every start of the tracer
 * (issue 48).
 *
 * native_symbols.c includes this header instead of <elfutils/libdwfl.h>: the functions it
 * calls (and the callbacks it hands libdwfl) are names of the tables' entries (the
 * defines at the end). A function missing from the list fails to link, since nothing
 * links libdw. Library code: no messages. */
#ifndef TRACER_DW_LIBRARY_H
#define TRACER_DW_LIBRARY_H

#include <elfutils/libdwfl.h>
#include <stddef.h>

#include "diag.h"

/* The C++ ABI's demangler (libstdc++, <cxxabi.h> in C++). */
char *__cxa_demangle(const char *mangled, char *out, size_t *length, int *status);

/* The functions native_symbols.c calls, each resolved by its own name. */
#define DW_LIBRARY_FUNCTIONS(X) \
  X(dwfl_begin) \
  X(dwfl_build_id_find_elf) \
  X(dwfl_end) \
  X(dwfl_lineinfo) \
  X(dwfl_module_addrinfo) \
  X(dwfl_module_build_id) \
  X(dwfl_module_getsrc) \
  X(dwfl_offline_section_address) \
  X(dwfl_report_begin_add) \
  X(dwfl_report_elf) \
  X(dwfl_report_end) \
  X(dwfl_standard_find_debuginfo)

#define DW_LIBRARY_CXX_FUNCTIONS(X) X(__cxa_demangle)

struct dw_library {
#define DW_LIBRARY_ENTRY(name) __typeof__(name) *name;
  DW_LIBRARY_FUNCTIONS(DW_LIBRARY_ENTRY)
};
struct dw_library_cxx {
  DW_LIBRARY_CXX_FUNCTIONS(DW_LIBRARY_ENTRY)
#undef DW_LIBRARY_ENTRY
};

extern struct dw_library dw_library;
extern struct dw_library_cxx dw_library_cxx;

/* Loads libdw and resolves its table, once (later calls return the first answer): 0, or
 * -1 with a cause in d (`Cannot name native frames: libdw.so.1: cannot open shared
 * object file: ... (... install the Debian package libdw1)`). */
int dw_library_load(struct diag *d);
/* The same for libstdc++'s demangler. */
int dw_library_load_cxx(struct diag *d);

#ifndef DW_LIBRARY_LOADER
#define dwfl_begin dw_library.dwfl_begin
#define dwfl_build_id_find_elf dw_library.dwfl_build_id_find_elf
#define dwfl_end dw_library.dwfl_end
#define dwfl_lineinfo dw_library.dwfl_lineinfo
#define dwfl_module_addrinfo dw_library.dwfl_module_addrinfo
#define dwfl_module_build_id dw_library.dwfl_module_build_id
#define dwfl_module_getsrc dw_library.dwfl_module_getsrc
#define dwfl_offline_section_address dw_library.dwfl_offline_section_address
#define dwfl_report_begin_add dw_library.dwfl_report_begin_add
#define dwfl_report_elf dw_library.dwfl_report_elf
#define dwfl_report_end dw_library.dwfl_report_end
#define dwfl_standard_find_debuginfo dw_library.dwfl_standard_find_debuginfo
#define __cxa_demangle dw_library_cxx.__cxa_demangle
#endif

#endif
