/* tracer_given: what the generated code gives an app or a library in place of what a
 * hooks file would (the spec's trace.results and trace.add_flags): the handles that are a
 * tool's to give (interned names and objects, handles of their own) and a property list
 * with flags added.
 *
 * Interned names and objects are never freed: an app keeps the handles for its whole
 * life. One lock guards them; it is not on the path of calls that give nothing.
 */
#ifndef TRACER_GIVEN_H
#define TRACER_GIVEN_H

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

/* The one copy of text (NULL for NULL or when out of memory). */
const char *tracer_intern(const char *text);
/* The one copy of text, a wide string, in the multibyte encoding; at most 255 bytes. */
const char *tracer_intern_wide(const wchar_t *text);

/* The one object of its kind (a string literal: the type's name) named name: size bytes,
 * a copy of init whose char * at name_offset points to the object's own copy of name. */
void *tracer_intern_object(const char *kind, const char *name, const void *init, size_t size,
                           size_t name_offset);

/* A handle of its own, distinct from every other; only its address matters. */
void *tracer_unique_handle(void);

/* A copy of the zero-ended KEY, VALUE list props with flags added to the value of key
 * (the pair added when absent), in thread-local storage: it lasts until the thread's next
 * call. props itself when too long to copy. */
const uint64_t *tracer_properties_with(const uint64_t *props, uint64_t key, uint64_t flags);

#endif
