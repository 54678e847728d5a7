/* stragglers: which rank of a job arrived last at each collective, and by how much
 * (docs/nccl.md), as Holistic Trace Analysis looks for straggler ranks.
 *
 * A collective is the seq-th collective call (kind collective of trace.messages) that
 * the ranks of one communicator make on it: every rank counts its own calls on the
 * communicator from 0, and a library such as NCCL requires all ranks to make them in
 * the same order. The communicator is named by an id that its ranks share (the
 * trace.communicators `id` slot: NCCL's hooks hash the ncclUniqueId it was made from);
 * calls whose communicator has no id are left out. A rank arrives when its call starts;
 * the straggler is the rank that arrived last, its lag the time from the first arrival to
 * its own: how long the first rank waited for it.
 *
 * Each collective keeps its first and last arrival, the last rank and the ranks that
 * arrived, which merge exactly (a rank's result, a node's, the job's): memory grows with
 * the collectives of one rank (STRAGGLERS_MAX at most, then `truncated`), never with the
 * ranks.
 */
#ifndef TRACER_STRAGGLERS_H
#define TRACER_STRAGGLERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "trace_consumer.h"

enum { STRAGGLERS_MAX = 1 << 20 };

struct straggler_collective {
  uint64_t comm;               /* the communicator's id, shared by its ranks; never 0 */
  uint64_t seq;                /* the collective's number on it, from 0 */
  uint32_t backend, function;  /* the call (of the first rank that reported it) */
  int64_t ranks;               /* the communicator's size; -1: unknown */
  uint64_t first, last;        /* the first and the last arrival, wall-clock ns */
  long last_rank;              /* the rank of the job that arrived last */
  uint32_t arrivals;           /* ranks that arrived */
};

struct stragglers {
  struct straggler_collective *rows; /* owned */
  size_t count, cap;
  size_t *index; /* open addressing over rows by (comm, seq); owned */
  size_t index_cap;
  bool truncated; /* a rank made more than STRAGGLERS_MAX collectives: later ones left out */
};

/* Adds an arrival of rank at (comm, seq), or a merged collective's arrivals. Returns 0,
 * or -1 when out of memory. */
int stragglers_add(struct stragglers *s, const struct straggler_collective *arrival);
int stragglers_merge(struct stragglers *into, const struct stragglers *from);
void stragglers_free(struct stragglers *s);

/* The arrivals of one rank's read: *reading's consumer goes into the read (in time
 * order), and stragglers_read_close() frees its state. Returns 0, or -1 with a cause. */
struct stragglers_reading;
int stragglers_read_open(struct stragglers *s, long rank, struct stragglers_reading **reading,
                         struct trace_consumer *consumer, struct diag *d);
int stragglers_read_close(struct stragglers_reading *reading, struct diag *d);

/* The straggler summary of backend's collectives (index in tracer_backends[]) after its
 * tables: per rank, the collectives it arrived last at, their lags and its worst one;
 * nothing when no collective was seen by 2 ranks or more. And all as a JSON object. */
void stragglers_print_text(const struct stragglers *s, size_t backend, FILE *out);
void stragglers_print_json(const struct stragglers *s, FILE *out);

#endif
