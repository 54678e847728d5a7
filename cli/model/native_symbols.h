/* native_symbols: the names of a traced process's native code addresses, read when the
 * trace is read, from the ELF objects the process had loaded (the runtime wrote each
 * one's path, build id and load address: lttng_ust_tracer:object, docs/trace-format.md).
 *
 * Through elfutils' libdwfl, which reads the objects' symbol tables and, where the object
 * has them (in itself or in a debug file found by its build id under /usr/lib/debug), its
 * DWARF line tables. libdw is loaded at the first address named (dw_library.h), not
 * before: a trace without native frames never loads it. An object whose file is gone, or
 * whose build id differs from the one the process had loaded (the file was replaced
 * since, or the trace is read on another machine), is not read: its addresses are named
 * `OBJECT+0xOFFSET`, as are all of them where libdw cannot be loaded. C++ names are
 * demangled (libstdc++'s __cxa_demangle, loaded likewise), their parameter lists left out.
 *
 * One set per process; not thread-safe (the caller locks).
 */
#ifndef TRACER_NATIVE_SYMBOLS_H
#define TRACER_NATIVE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct native_symbols;

struct native_symbols *native_symbols_new(void);
void native_symbols_free(struct native_symbols *s);

/* An object the process had loaded: its file, GNU build id (may be empty), what the
 * loader added to its addresses, and the span [start, end) of its loaded segments.
 * Returns false when out of memory. */
bool native_symbols_add(struct native_symbols *s, const char *path, const uint8_t *build_id,
                        size_t build_id_size, uint64_t base, uint64_t start, uint64_t end);

/* A code address's function (demangled, without parameters), or OBJECT+0xOFFSET, or
 * 0xADDRESS outside every object, into name; its source file and line where the object's
 * debug information says (else file "" and line 0). `call_site`: a return address, whose
 * call is the instruction before it (looked up at address - 1). */
void native_symbols_name(struct native_symbols *s, uint64_t address, bool call_site, char *name,
                         size_t name_size, char *file, size_t file_size, int *line);

/* A C++ name demangled, its trailing parameter list (and qualifiers after it) left out;
 * other names as they are. */
void native_symbols_demangle(const char *symbol, char *out, size_t size);

#endif
