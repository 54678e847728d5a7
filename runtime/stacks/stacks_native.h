/* stacks_native: the calling thread's native frames (libunwind, which reads the unwind
 * tables of code built without frame pointers), and the loaded objects they lie in.
 *
 * Frames are return addresses, innermost first, from the caller of the traced call: every
 * frame up to the outermost one in the tracer's own code (the runtime, any interposer:
 * an outer traced call's wrapper, with the vendor runtime's frames between it and this
 * call) is left out; the call chain names those calls. A thread that runs Python code
 * keeps the frames up to the first one in Python's interpreter; the Python frames stand
 * for the rest (stacks_python.h).
 *
 * Objects: each one a written stack's frames lie in is written once per process
 * (lttng_ust_tracer:object) before that stack, so that the tracer can name the frames
 * from the object's file when it reads the trace.
 */
#ifndef TRACER_STACKS_NATIVE_H
#define TRACER_STACKS_NATIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "tracer_runtime.h"

/* Up to max frames into pcs; returns their count. *truncated when the depth limit cut
 * the walk; *cut when python and the walk stopped at the interpreter. */
int stacks_native_frames(uint64_t *pcs, int max, const struct tracer_code *own, bool python,
                         bool *truncated, bool *cut);

/* Writes the objects of pcs[0, n) not written yet by this process. */
void stacks_objects_note(const uint64_t *pcs, int n);

/* In a fork child: nothing is written in the child's name yet. */
void stacks_objects_forget(void);

#endif
