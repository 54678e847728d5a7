/* view_record: the record of one call, the array of 64-bit slots that every event of a
 * call starts with (runtime/tracer_record.h, docs/trace-format.md). After the four head
 * slots come the arguments as passed (one slot per scalar param), the result when it is
 * not the status already packed in slot 3, and the values behind out-pointers to one
 * scalar. The view gets, per function:
 *   record_length             slots in all
 *   record_members            {name}: the members of the function's record struct after
 *                             its head (struct tracer_record_head), one per slot in
 *                             order, named after the slot
 *   in_slots, out_slots       {index, member, value}: C expressions filling the slots
 *                             before and after the call
 *   slots                     {name, index, size, kind, at_exit, present_if}: how the
 *                             analyses decode each named slot (events.c.tmpl)
 *   stack, stack_slot         whether the call keeps its stack, and that slot's index (0:
 *                             none; the head holds slot 0)
 */
#ifndef APIGEN_VIEW_RECORD_H
#define APIGEN_VIEW_RECORD_H

#include "model.h"
#include "tree.h"

/* Slots a spec adds for the analyses (trace.messages, view_messages.c): */
struct view_record_extra {
  const char *bytes;      /* C expression over tracer_args: a "bytes" slot at exit; or NULL */
  const char *value_in;   /* a param pointing to one scalar whose value before the call
                             gets a slot "<param>_in" (a request MPI_Wait completes); or
                             NULL */
  const char *world_name; /* a signed slot at exit, after bytes: the peer as a world rank
                             ("dest_world"), ... */
  const char *world;      /* ... and the C expression over tracer_args that gives it; or
                             NULL */
  const char *recv_bytes; /* a send that also receives: an unsigned slot "recv_bytes" at
                             exit, after the peer, from this C expression; or NULL */
  const char *recv_world_name; /* and a signed slot of this name, its peer as a world */
  const char *recv_world;      /* rank, from this C expression; or NULL */
  const char *before;     /* a statement before the call, whose local the slots read; or
                             NULL */
  const char *lock_shared; /* an RMA lock's (view_rma_sync.h): the C expression of an
                              unsigned slot "lock_shared" at exit, non-zero for a shared
                              lock; or NULL */
  const char *polls;      /* a poll's (view_polls.h): the C expression of an unsigned slot
                             "polls" at exit, the polls its call folded; or NULL */
  const char *comm_rank;  /* C expressions over tracer_args: signed slots "comm_rank" and */
  const char *comm_size;  /* "comm_size" at exit, after the others; or NULL */
  const char *comm_id;    /* C expression over tracer_args: unsigned slot "comm_id" at exit,
                             last; or NULL */
  bool stack;             /* a call that submits device work: an unsigned slot "stack" first,
                             after the head (its stack's id, runtime/stacks/tracer_stacks.h,
                             read from the local tracer_stack), where the reader finds it
                             without reading the rest */
};

/* status_in_head: the call's status is its result (so a result of at most 4 bytes needs
 * no slot of its own). status_param: the status out-param's name, or NULL. extra may be
 * NULL. */
void view_record_build(const struct model_function *f, bool status_in_head,
                       const char *status_param, const struct view_record_extra *extra,
                       struct tree *fn);

/* The index of the slot named name in fn's record (fn: a function's view, with the
 * "slots" view_record_build made), or -1. */
int view_record_slot_index(const struct tree *fn, const char *name);

#endif
