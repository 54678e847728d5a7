/* loaded_library: a shared library the tracer loads (dlopen) when a command first needs
 * it, instead of linking it, so that a command that never needs it neither pays for
 * loading and relocating it (`tracer -r` of a trace: liblttng-ctl pulls libstdc++,
 * libxml2 and ICU; libdw pulls libelf, libz, liblzma, libbz2) nor fails to start where
 * it is not installed (libotf2 on a GPU node that carries LTTng alone).
 *
 * One module per library holds its table: a struct of function pointers declared from
 * the library's own header by an X-macro list of the functions the tracer calls, and
 * defines that turn each call `f(...)` into `table.f(...)`, so that the callers' code
 * reads as with a linked library; a function missing from the list fails to link, since
 * nothing links the library. The module describes its library with LOADED_LIBRARY()
 * and calls loaded_library_load() before the first call:
 *
 *   #define NAME(name) #name,
 *   static const char *const names[] = {JANSSON_LIBRARY_FUNCTIONS(NAME)};
 *   struct jansson_library jansson_library;
 *   LOADED_LIBRARY(library, "libjansson.so.4", "libjansson4",
 *                  "libjansson is loaded for JSON results only", names, jansson_library);
 *
 * The library is loaded and every name resolved once, whichever thread asks first;
 * later calls return the first answer. It is never closed (the tracer calls it until
 * it exits). Library code: no messages, a cause in a struct diag. */
#ifndef TRACER_LOADED_LIBRARY_H
#define TRACER_LOADED_LIBRARY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

struct loaded_library {
  const char *soname;       /* what dlopen loads: "libjansson.so.4" */
  const char *package;      /* the Debian package that ships it: "libjansson4" */
  const char *purpose;      /* when it is loaded: "libjansson is loaded for JSON results only" */
  const char *const *names; /* the table's functions, in the order of its entries */
  size_t count;
  void *table;              /* count function pointers, filled by the load; borrowed */
  /* The load's state. */
  pthread_mutex_t lock;
  bool tried;
  char failure[512];        /* empty when loaded */
};

/* Defines `static struct loaded_library VAR` describing a library whose table is TABLE,
 * a struct of one function pointer per entry of NAMES (checked when compiled). */
#define LOADED_LIBRARY(var, soname, package, purpose, names, table)                         \
  _Static_assert(sizeof(table) == sizeof(names) / sizeof *(names) * sizeof(void (*)(void)), \
                 "the table holds one function pointer per name");                         \
  static struct loaded_library var = {(soname), (package), (purpose), (names),             \
                                      sizeof(names) / sizeof *(names), &(table),            \
                                      PTHREAD_MUTEX_INITIALIZER, false, ""}

/* Loads the library and resolves every name into the table, the first time. Returns 0,
 * or -1 with one cause in d, what could not be done (`doing`: "Cannot read a JSON
 * result") and why: "Cannot read a JSON result: libjansson.so.4: cannot open shared
 * object file: No such file or directory (libjansson is loaded for JSON results only:
 * install the Debian package libjansson4)", or "... libjansson.so.4 has no json_delete
 * (...)". */
int loaded_library_load(struct loaded_library *library, const char *doing, struct diag *d);

#endif
