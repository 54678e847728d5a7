/* tracer_wrappers: from a real API function pointer to the interposer's wrapper of it.
 *
 * An app does not always call an API through the symbols LD_PRELOAD interposes: it may
 * resolve them with dlsym  on a handle of the library it dlopen'd (as JIT launchers do), or
 * ask the library for entry points by name (a get-proc-address function).
 * These functions hand such callers the wrapper instead, when a preloaded interposer
 * (a libtracer_<backend>.so) exports one for that very function. Backend-agnostic: the
 * wrapper is found by the exported name of the real function.
 */
#ifndef TRACER_WRAPPERS_H
#define TRACER_WRAPPERS_H

#include "tracer_runtime.h"

/* The wrapper of real, or real itself when no interposer wraps it. name, when not NULL,
 * is the name the caller asked for; the name the library exports at that address is
 * used when they differ (an entry-point query for "f" may hand out the versioned f_v2). */
void *tracer_wrapper_of(void *real, const char *name);

/* An API function that a library handed out for name (a get-proc-address call, the spec's
 * trace.entry_points): its wrapper (tracer_wrapper_of), else, when library (the soname the
 * interposer at address interposer wraps) exports name too, the interposer's wrapper of
 * that export, which reaches the same function through the library's dispatch (Level
 * Zero's extension functions, handed out by a driver); else address itself. */
void *tracer_entry_point(void *address, const char *name, const void *interposer,
                         const char *library);

/* Called by each interposer when it loads: its wrappers call the functions of library (a
 * soname); address is any address in the interposer. A wrapper is handed out only for a
 * function of that library, so that one that has the same name in another library (an
 * OpenCL driver's clGetPlatformIDs behind the ICD loader's) is left alone. */
void tracer_interposer_register(const char *library, const void *address);

/* How many interposers registered so far: it only grows (an interposer never unloads). */
unsigned tracer_interposer_count(void);

/* The executable code of the first max interposers registered, into codes: their count. */
unsigned tracer_interposer_code(struct tracer_code *codes, unsigned max);

/* dlsym as the C library implements it, never handing out wrappers. */
void *tracer_real_dlsym(void *handle, const char *name);

/* symbol as the next library after the one holding `after` in load order defines it,
 * the tracer's own libraries and the program left out, as RTLD_NEXT would find it for
 * that library; NULL when none does. For a function a header declares with the others
 * but that another library exports (FFTW's fftw_init_threads is in libfftw3_threads, not
 * libfftw3). A tool preloaded ahead of the tracer's (a PMPI-style counter forwarding to
 * the next definition) comes before it, and is not taken for the real function. */
void *tracer_find_elsewhere(const char *symbol, const void *after);

#endif
