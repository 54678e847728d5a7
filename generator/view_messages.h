/* view_messages: what a call means as communication (trace.messages of the spec): the
 * slots its record gets for the analyses (the bytes it moves, the request a completion
 * call completes), and the `message` initializer of its event description, which says
 * where the bytes, peer, tag, communicator and request sit in the record.
 *
 * bytes = count x the size of one element of the datatype, which only the library knows
 * at run time: the hooks file defines <prefix>_element_size(<trace.element_size type>),
 * declared in <backend>_args.h (<prefix>: the hooks file's, <prefix>_hooks.c). A
 * completion call's bytes are those of the requests it completed: the runtime keeps each
 * request's bytes from the call that starts it (runtime/tracer_requests.h), by the
 * request's value in the starting call's record (`<request>_val`) and in the completing
 * call's (`<request>_in`), or for an array of requests, read before the call.
 *
 * The peer is a rank of the call's communicator; the analyses want a rank of the job
 * (the world). When the type of the call's `comm` param is one of trace.world_rank's,
 * the record gets a slot "<peer>_world" at exit, from the hooks'
 * <prefix>_<function>(status, comm, peer), and the description's peer is that slot.
 *
 * When it is one of trace.communicators', the record gets signed slots "comm_rank" and
 * "comm_size" at exit, from the hooks' <prefix>_<rank>(comm) and <prefix>_<size>(comm):
 * the communicator's n, which an entry's size_factor and bus_factor (nccl-tests' size
 * and bus bandwidth) are functions of. The description also says where the reduction
 * operation (`op`) and the root are.
 *
 * A send with a `recv` (MPI_Sendrecv) also gets "recv_bytes" and "<recv peer>_world",
 * and its description says where they and the receive's tag are. A complete call of an
 * array of requests reads the array before the call (tracer_requests_before) and has
 * the runtime say which it completed after (tracer_requests_after: all, the one at
 * `index`, or those at `indices`), which records them for the exports.
 *
 * trace.groups: a call that makes a communicator or a window calls the hooks'
 * <prefix>_<function>(status, start, from, made) of trace.group_made when it returns,
 * which records the new one's members (`group_call` of the function).
 */
#ifndef APIGEN_VIEW_MESSAGES_H
#define APIGEN_VIEW_MESSAGES_H

#include "diag.h"
#include "model.h"
#include "spec.h"
#include "tree.h"
#include "view_record.h"

/* The first trace.messages entry matching f (counting the match), or NULL. */
struct spec_message *view_message_of(const struct spec *s, const struct model_function *f);

/* The extra record slots of a message call; extra's strings are owned by the caller (free
 * them). Returns -1 with a located cause when the entry names a param f does not have. */
int view_message_slots(const struct spec *s, const char *prefix, const struct model_function *f,
                       const struct spec_message *msg, struct view_record_extra *extra,
                       struct diag *d);

/* Sets fn's `message`: the C initializer of its struct tracer_message, from the slots
 * view_record_build laid out (msg may be NULL: no message). */
void view_message_describe(const struct spec_message *msg, struct tree *fn);

/* Sets fn's `group_call` (a statement) when a trace.groups entry matches f. Returns -1
 * with a located cause when the entry's params do not fit. */
int view_group_call(const struct spec *s, const char *prefix, const struct model_function *f,
                    struct tree *fn, struct diag *d);

/* Adds `group_hooks` ({type, function, from_type} per trace.group_made entry), `element_size` ({type}) to root when the spec names one, `world_ranks`
 * ({type, function} per trace.world_rank entry), `communicators` ({type, rank, size}) and
 * `no_message` (the description of a call that is none), and reports entries that match
 * nothing. */
int view_messages_finish(const struct spec *s, struct tree *root, struct diag *d);

#endif
