/* jansson_library: Jansson (libjansson), loaded when a JSON result is read (dlopen), not
 * linked, as libotf2 (exports/otf2/otf2_library.h): the tracer starts where LTTng alone
 * was brought (docs/cuda.md), and only `tracer diff` of a JSON result needs Jansson.
 *
 * The reader includes this header instead of <jansson.h>: the Jansson functions it calls
 * are names of the table's entries (the defines at the end), filled by
 * jansson_library_load(). A call of a function missing from the list fails to link, since
 * nothing links libjansson; so do the header's inline functions that call one
 * (json_decref: the reader calls json_delete on the root, which it alone holds). Library
 * code: no messages. */
#ifndef TRACER_JANSSON_LIBRARY_H
#define TRACER_JANSSON_LIBRARY_H

#include <jansson.h>

#include "diag.h"

/* The functions the reader calls, each resolved by its own name. */
#define JANSSON_LIBRARY_FUNCTIONS(X) \
  X(json_array_get) \
  X(json_array_size) \
  X(json_delete) \
  X(json_integer_value) \
  X(json_load_file) \
  X(json_object_get) \
  X(json_string_value) \
  X(json_unpack_ex)

struct jansson_library {
#define JANSSON_LIBRARY_ENTRY(name) __typeof__(name) *name;
  JANSSON_LIBRARY_FUNCTIONS(JANSSON_LIBRARY_ENTRY)
#undef JANSSON_LIBRARY_ENTRY
};

extern struct jansson_library jansson_library;

/* Loads libjansson and resolves the table, once (later calls return the first answer):
 * 0, or -1 with a cause in d (`libjansson.so.4: cannot open shared object file: ...
 * (install the Debian package libjansson4)`). */
int jansson_library_load(struct diag *d);
/* The soname it loads ("libjansson.so.4"). */
const char *jansson_library_soname(void);

#ifndef JANSSON_LIBRARY_LOADER
#define json_array_get jansson_library.json_array_get
#define json_array_size jansson_library.json_array_size
#define json_delete jansson_library.json_delete
#define json_integer_value jansson_library.json_integer_value
#define json_load_file jansson_library.json_load_file
#define json_object_get jansson_library.json_object_get
#define json_string_value jansson_library.json_string_value
#define json_unpack_ex jansson_library.json_unpack_ex
#endif

#endif
