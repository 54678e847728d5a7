/* stacks_python: the calling thread's Python frames, for the stacks of the calls that
 * submit device work (tracer_stacks.h).
 *
 * Python is looked up at run time, in the process's already-loaded objects (the python
 * executable or libpython), never linked: a process without it pays one failed lookup
 * per new stack. The thread's own thread state comes from PyGILState_GetThisThreadState
 * (public, callable without the GIL); a thread without one (a thread Python never ran
 * on) gets no Python frames and nothing of Python is touched.
 *
 * Why the frames are not walked through PyThreadState_GetFrame, PyFrame_GetBack and
 * PyFrame_GetCode: all three return new references, and from 3.11 on the first two create
 * the frame objects they return (the interpreter keeps its frames in its own structs).
 * Both need the GIL: an object allocation or a reference count changed by a thread that
 * does not hold it races with the thread that does (code objects are shared by every
 * thread that runs the same function), and a lost count frees an object in use. The
 * calls that submit device work mostly run without the GIL (PyTorch and Triton release
 * it around their launches), and taking it there would stall the thread behind the one
 * that holds it, or deadlock it. So the frames are read as they lie, by the layouts of
 * CPython 3.9 to 3.13 (stacks_python.c): a thread's frames change only on that thread,
 * and this thread is inside a C call, so they hold still; nothing is allocated, no count
 * changes, no lock is taken. Only public functions that read are called:
 * PyGILState_GetThisThreadState, PyCode_Addr2Line (a code object's line table), and
 * Py_GetVersion. Where the layout of the running version is unknown (a version after
 * 3.13, a free-threading build), the public accessors are used, and only by a thread that
 * holds the GIL (its thread state is the current one); threads without it then get no
 * Python frames.
 *
 * A frame is its code object and the instruction's offset in it; the names and the line
 * are read only for a stack not seen before (stacks_python_describe).
 */
#ifndef TRACER_STACKS_PYTHON_H
#define TRACER_STACKS_PYTHON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracer_runtime.h"

struct python_frame {
  uintptr_t code; /* the code object */
  int32_t offset; /* the instruction's byte offset in its code; -1 when line says it */
  int32_t line;   /* the line, when the walk read it (public accessors before 3.11); else 0 */
};

/* Whether the process has Python loaded (looked up again when `again`, else once). */
bool stacks_python_present(bool again);

/* The calling thread's Python frames, innermost first, up to max (*truncated when there
 * were more): their count, 0 for a thread that runs no Python code now. *gil: whether
 * the thread holds the GIL (the describe step may then use the public accessors). */
int stacks_python_frames(struct python_frame *frames, int max, bool *truncated, bool *gil);

/* A frame as "LINE\tFUNCTION\tFILE" (its code's qualified name from 3.11 on, else its
 * name); false when the frame cannot be read. Called by the thread that walked it, with
 * the frame still on its stack. */
bool stacks_python_describe(const struct python_frame *frame, bool gil, char *out, size_t size);

/* The interpreter's code (the object that defines Python's API: the python program or
 * libpython), NULL while Python is not found: native frames there are Python's own,
 * folded away. */
const struct tracer_code *stacks_python_interpreter(void);

/* Which walk serves this process: "frames 3.11" (the layout read), "api" (the public
 * accessors, the GIL held), "none". For the debug log and tests. */
const char *stacks_python_walk(void);

#endif
