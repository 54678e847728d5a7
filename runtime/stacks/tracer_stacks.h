/* tracer_stacks: where the calls that submit device work come from: the calling thread's
 * Python frames and native frames at each such call, for flame graphs, the timeline, -t
 * and the report's source lines (docs/flame.md).
 *
 * Which calls submit work is a spec fact: the generated wrapper of a command
 * (trace.commands) or of a collective (trace.messages with a bus_factor) calls
 * tracer_stack_capture() and puts the id it returns in the call's record (its `stack`
 * slot); the device commands of the call carry it too (tracer_call_returned). Other calls
 * do nothing of this.
 *
 * A stack is interned per process: the first submission from a place writes it once, as
 * one lttng_ust_tracer:stack event (its Python frames by name and line, its native frames
 * as return addresses) with the objects those lie in (lttng_ust_tracer:object, once
 * each); a later one from the same place costs the walk, a hash of the frames and a
 * lookup. Native symbols are not resolved here: the tracer names them when it reads the
 * trace. The id is the hash itself, never 0.
 *
 * Off (0 for every call) when the session did not enable lttng_ust_tracer:stack
 * (`tracer --no-stacks`), once the trace reached its bound, and in minimal mode, whose
 * batches keep no record slots. TRACER_STACKS_NATIVE=0 in the app's environment keeps
 * the Python frames only (no native walk), to tell its cost apart. Safe from any thread;
 * not from a signal handler.
 */
#ifndef TRACER_STACKS_H
#define TRACER_STACKS_H

#include <stdint.h>

#include "tracer_runtime.h"

enum {
  TRACER_STACK_NATIVE_MAX = 64, /* native frames kept, innermost first */
  TRACER_STACK_PYTHON_MAX = 128,
};

/* The stack of the call at `depth` of the calling thread (tracer_inflight_push's), whose
 * wrapper lies in own (the interposer's code, whose frames are left out), kept in the
 * call's inflight entry for its device commands and returned: a call made inside a
 * submission (a runtime's launch calling its driver's) takes the enclosing one's. 0 when
 * stacks are off. */
uint64_t tracer_stack_capture(unsigned depth, const struct tracer_code *own);

#endif
