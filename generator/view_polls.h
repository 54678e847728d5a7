/* view_polls: calls that answer "not ready" (docs/spec-format.md, `trace.polls` and
 * `status.not_ready`). HPC codes overlap work by polling (MPI_Test, cuStreamQuery,
 * zeEventQueryStatus) millions of times; a poll that found nothing is counted like a
 * counted function (runtime/tracer_runtime.h: tracer_count_poll) and not recorded; the
 * call that completes is recorded in full, its `polls` slot saying how many polls of its
 * function the thread made since its last recorded one.
 *
 * A function is a poll when its status has not-ready values, or when a trace.polls entry
 * matches it: then a call whose status is a success and whose `done` expression is 0
 * found nothing. A counted function is never a poll. A poll named by trace.polls or by a
 * status rule of its own is a query whose usual answer is "not yet": its calls are timed
 * as counted calls are (runtime/tracer_runtime.h: tracer_poll_found_nothing); a function
 * that is a poll by its backend's not-ready values (NCCL's ncclInProgress) is one that
 * rarely is, and every call is timed on the trace clock. The view gets, per poll function:
 *   poll  {counter, not_ready, lean_not_ready}: the thread's counter of folded polls
 *         (<backend>_polls_<function>) and the C conditions of a poll that found nothing,
 *         over tracer_args and over the params as passed (minimal mode's lean path)
 *   sampled_poll  {state, not_ready, lean_not_ready}, for a poll timed as counted calls
 *         are: its thread's tracer_poll_state (<backend>_poll_<function>), which counts
 *         and folds its polls in place of the counter
 */
#ifndef APIGEN_VIEW_POLLS_H
#define APIGEN_VIEW_POLLS_H

#include "diag.h"
#include "model.h"
#include "spec.h"
#include "tree.h"
#include "view_record.h"

/* Sets fn's `poll` and extra->polls (owned by the caller) when f is a poll. lean_status
 * is the status as minimal mode's lean path has it. Returns -1 with a located cause when
 * a `done` names no param of f. */
int view_poll_function(const struct spec *s, const char *backend, const struct model_function *f,
                       const char *lean_status, bool counted, struct view_record_extra *extra,
                       struct tree *fn, struct diag *d);

/* Every trace.polls entry must match a function: -1 with a located cause otherwise. */
int view_polls_finish(const struct spec *s, struct diag *d);

#endif
