/* backends: the backend descriptions the tracer knows, looked up by name or provider.
 *
 * Two kinds: those compiled in (generated/<b>/<b>_events.c, one per backend with an
 * interposer, listed in the build's backend_registry.c), and those found at run time on
 * TRACER_BACKEND_PATH, a colon-separated list of folders: each
 * libtracer_<b>_events.so there is a data-only library holding tracer_backend_<b>, with
 * the interposer libtracer_<b>.so beside it (scripts/build-backend.sh makes both). A
 * backend built in wins over one of the same name on the path.
 */
#ifndef TRACER_BACKENDS_H
#define TRACER_BACKENDS_H

#include <stddef.h>

#include "tracer_backend_desc.h"

/* NULL-terminated, in name order; defined in the build's backend_registry.c. */
extern const struct tracer_backend_desc *const tracer_backends_builtin[];
/* NULL-terminated: the built-in ones, then after backends_load_path() those of the path. */
extern const struct tracer_backend_desc *const *tracer_backends;

/* Adds the backends of TRACER_BACKEND_PATH (once; later calls do nothing). Folders or
 * libraries that cannot be read are skipped: the tracer then does not know them. */
void backends_load_path(void);
/* The folder a backend of the path was found in (its interposer lives there); NULL for
 * a built-in backend or an unknown name. */
const char *backends_path_dir(const char *name);

size_t backends_count(void);
/* The names of the backends known (backends_load_path() first for those of the path),
 * joined by separator, in out; "none" when there are none. */
void backends_names(const char *separator, char *out, size_t size);
const struct tracer_backend_desc *backends_find(const char *name);
const struct tracer_backend_desc *backends_find_provider(const char *provider, size_t len);
/* The title of b's tables, as in BACKEND_<title>: its symbol group's name in capitals
 * when it has one (MPICH's and Open MPI's are both "MPI"), else its label. */
void backends_title(const struct tracer_backend_desc *b, char *out, size_t size);
/* A function's meaning as the outputs name it (kernel_launch, transfer, command, alloc,
 * free, sync); NULL for none. */
const char *backends_meaning_name(enum tracer_meaning meaning);

/* Index of a function of b by name, -1 when b has none of that name. */
int backends_function_index(const struct tracer_backend_desc *b, const char *name, size_t len);

/* The name of a value in a names table (sorted by value), NULL when it has none or
 * names is NULL. */
const char *backends_value_name(const struct tracer_names *names, int64_t value);
/* How to show field (or record slot) `name` of function f (len bytes of it), NULL when
 * its description says nothing. */
const struct tracer_field_format *backends_field_format(const struct tracer_function_desc *f,
                                                        const char *name, size_t len);

#endif
