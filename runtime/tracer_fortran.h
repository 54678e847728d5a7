/* tracer_fortran: what the generated Fortran entry points (templates/fortran.c.tmpl) need
 * to fill a C record from Fortran arguments: a CHARACTER argument as a C string, and room
 * for C twins of Fortran arrays (handles turned into C handles, indices counted from 0).
 *
 * A Fortran string is not NUL-terminated: its length comes by value after the last
 * argument, and it is padded with blanks. The app's buffers are only read, never written.
 */
#ifndef TRACER_FORTRAN_H
#define TRACER_FORTRAN_H

#include <stddef.h>

/* The first length bytes at from (a CHARACTER of that length) without their trailing
 * blanks, as a C string in to (size bytes, cut to fit); returns to. */
const char *tracer_fortran_string(char *to, size_t size, const void *from, size_t length);

/* Room for count elements of size bytes, this thread's own, one per slot (0 to 3): kept
 * and grown, never shrunk, valid until the thread's next call for the same slot. NULL
 * when count is not positive or memory is short (the record then has no array). */
void *tracer_fortran_scratch(unsigned slot, long long count, size_t size);

/* A Fortran index (from base) as C's (from 0); a value below base (MPI_UNDEFINED) stays. */
static inline int tracer_fortran_index(int value, int base) {
  return value >= base ? value - base : value;
}

#endif
