/* view_fortran: the Fortran entry points of a library whose Fortran bindings call the
 * library's internals instead of its C functions (trace.fortran of the spec), traced from
 * the same model and into the same events as the C functions.
 *
 * The gfortran name of F is F in lower case with `_` added. Every C param is passed by
 * address, a CHARACTER param (trace.fortran.character) adds its length (size_t) at the
 * end, and a last param receives the error code, which is the call's status; a function
 * without a status (MPI_Wtime) returns its value as C's does. A wrapper forwards its
 * arguments untouched; for the record it fills the C args struct: integers read through
 * their address, handles turned into C handles by the spec's f2c functions, strings
 * copied into C strings, the arrays of requests and indices a message names turned into
 * C's (indices from 0), buffers by address, values the call writes read back after it;
 * what has no C meaning (statuses, arrays of strings) stays 0. Adds to root
 * `fortran_bindings` ({library, converters}), and to each function's view item `fortran`
 * ({symbol, prototype, typedef, passthrough, real_call, locals, convert_in, convert_out,
 * set_result, returns_value}) unless the spec excludes it.
 */
#ifndef APIGEN_VIEW_FORTRAN_H
#define APIGEN_VIEW_FORTRAN_H

#include "diag.h"
#include "model.h"
#include "spec.h"
#include "tree.h"

int view_fortran(const struct model *m, const struct spec *s, struct tree *root,
                 const struct model_function *const *traced, size_t count, struct diag *d);

#endif
