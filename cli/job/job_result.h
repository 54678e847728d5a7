/* job_result: what the report of an MPI job needs from a set of its ranks, reduced once
 * from their events (docs/multi-rank.md):
 *   - the tally over those ranks (a tally of tallies is a tally);
 *   - how the ranks' time spreads: per backend the share of each rank's wall time in host
 *     calls and in device work, per function each rank's time in it, kept as least, most
 *     (with their ranks), sum and count, which merge exactly;
 *   - message sizes in a fixed set of buckets, per function;
 *   - the rank-to-rank matrix (bytes and messages sent, by sender and peer);
 *   - the collectives table (reports/collectives/collectives.h), over all ranks, and
 *     each collective's first and last arrival (stragglers.h);
 *   - the ranks that were covered, and those whose app failed or whose end was not seen;
 *   - the device counters of the ranks that sampled them (tracer --sample: each node's
 *     first local rank), per device as reports/samples/ reduces them, tagged with the rank;
 *   - the top source lines (reports/sources/sources_table.h): each line's and kernel's
 *     device time and commands over the ranks, in how many ranks and the most of one.
 * A rank's result, a node's (its ranks' merged) and the job's (the nodes' merged) are the
 * same thing, so merging costs grow with ranks and nodes, never with events.
 *
 * The merged tally keeps counts, not ids, of processes and threads: its id_sets hold a
 * length and no slots (nothing adds to them afterwards); hosts are kept by name.
 * A rank's result also holds its tally per actor (tally.actors, the actor's rank set),
 * kept when want_actors says so.
 */
#ifndef TRACER_JOB_RESULT_H
#define TRACER_JOB_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "collectives.h"
#include "comm_peers.h"
#include "stragglers.h"
#include "diag.h"
#include "hta.h"
#include "samples.h"
#include "sources_table.h"
#include "tally.h"
#include "window_build.h"

/* Message sizes: bucket 0 holds empty messages, bucket k (1..) sizes up to 64 x 4^(k-1)
 * bytes (64 B, 256 B, 1 KiB, ... 64 MiB), the last one everything larger. */
enum { JOB_SIZE_BUCKETS = 13 };

struct job_spread {
  uint64_t min, max, sum, count;
  long min_rank, max_rank; /* ties go to the lower rank, whatever the merge order */
};

struct job_size_row {
  uint32_t backend, function, bucket;
  uint64_t calls, bytes;
};

/* A peer as a call named it: a rank of the job (MPI: translated by the hooks), or of the
 * call's communicator where the trace says the communicator is not the job's (NCCL: its
 * size and the sender's rank in it differ from the job's), and then so is the sender. */
struct job_matrix_row {
  long from, to; /* sender's rank; peer's */
  uint64_t bytes, messages;
};

struct job_rank_status {
  long rank;
  bool end_seen;    /* its tracer saw the app end (else it was stopped before) */
  bool running;     /* end not seen, and its tracer still runs (on this host) */
  char status[128]; /* "exited with status 3", "killed by signal 9 (SIGKILL)", ... */
  uint64_t ended_at_ns; /* when the app ended, wall-clock ns; 0: unknown */
};

struct job_result {
  struct tally tally;           /* over the covered ranks; owned */
  long *ranks;                  /* the covered ranks, unsorted until job_result_sort(); owned */
  size_t rank_count, rank_cap;
  size_t ranks_timed;           /* of them, those whose wall time is known */
  struct job_rank_status *failed; /* ranks whose app did not exit 0; owned */
  size_t failed_count;
  /* By backend index (tally.backend_count): shares of wall time in parts per million. */
  struct job_spread *host_share, *device_share;        /* owned */
  struct job_spread **function_ns; /* [backend][function]: a rank's time in it; owned */
  struct job_size_row *sizes;   /* owned */
  size_t size_count;
  struct job_matrix_row *matrix; /* owned */
  size_t matrix_count, matrix_cap;
  struct collectives collectives; /* owned */
  struct stragglers stragglers;   /* owned */
  struct samples_report samples;  /* the sampling ranks' devices and reasons; owned */
  struct hta_report hta;          /* each rank's GPUs as HTA defines their time; owned */
  struct sources_table sources;   /* the top source lines over the ranks; owned */
  /* Sends whose peers are ranks of communicators with an id (comm_peers.h), until
   * job_result_resolve_peers(); then the bytes and messages of those whose peer no
   * traced rank holds, which the matrix leaves out. */
  struct comm_peers peers; /* owned */
  uint64_t untraced_peer_bytes, untraced_peer_messages;
  struct job_index *index;      /* lookups while merging; owned */
  /* Whether tally.actors is kept: the per-actor rows (one per rank, host, process,
   * thread and function) are read and merged only for the views that need them (-e,
   * --ranks) and by the node leaders that pass them on; else skipped. */
  bool want_actors;
  /* The part of each rank's run to reduce (window_build.h), borrowed; NULL: all of it.
   * steps_pattern: --steps PATTERN for the steps a window counts (NULL: the outermost
   * repeating region). window_error: the first rank's reason when its window failed. */
  const struct window_request *window;
  const char *steps_pattern;
  char window_error[256];
  /* A replay's own reading of the ranks (tracer -r JOB): each rank reduced again from
   * its trace, not taken from its saved result (a window, or runtime_calls asked);
   * runtime_calls: a library's own calls count as the app's (tally.runtime_calls), as
   * --runtime-calls asks, whatever each rank's run said. */
  bool reduce_again;
  bool runtime_calls;
};

/* The row of b for src's kernel or transfer on device (device_label: "GPU 0: NVIDIA H100
 * on node7", NULL for none), added empty when b has none; looked for from position hint
 * first, since results list much the same rows in the same order. NULL when out of
 * memory. */
struct tally_device *job_result_device_row(struct tally_backend *b,
                                          const struct tally_device *src, const char *device,
                                          size_t hint);

/* An empty result. Returns 0, or -1 when out of memory. */
int job_result_init(struct job_result *r);
void job_result_free(struct job_result *r);

/* Reduces the trace of one rank (its folder rank_dir, with its run record) into r, which
 * job_result_init() made (its actors too, when r->want_actors), in one read of the
 * trace: its tally and its messages; and when the tally counted operations of the
 * collectives table, in a second read, in time order, that table and the arrivals at
 * each collective (stragglers.h). threads as
 * trace_read_options. Returns 0, or -1 with a cause in d when the trace cannot be read. */
int job_result_reduce(const char *rank_dir, long rank, unsigned threads, struct job_result *r,
                      struct diag *d);

/* Adds from into into. Returns 0, or -1 when out of memory. */
int job_result_merge(struct job_result *into, const struct job_result *from);

/* Puts the sends to ranks of communicators with an id into the matrix, in the job's
 * ranks, once every rank's result is in r (the job's report). Returns 0, or -1 when out
 * of memory. */
int job_result_resolve_peers(struct job_result *r);

/* Sorts the ranks, the failed ranks, the matrix and the collectives for printing. */
void job_result_sort(struct job_result *r);

/* The bucket of a message of `bytes`, and the largest size it holds (UINT64_MAX for the
 * last). */
unsigned job_size_bucket(uint64_t bytes);
uint64_t job_size_bucket_limit(unsigned bucket);

/* Per-rank additions, for the reduction and the file reader. */
int job_result_add_rank(struct job_result *r, long rank);
struct run_record;
/* How a rank that did not end cleanly ended, from its run record (NULL: none). */
void job_rank_status_of(long rank, const struct run_record *run, struct job_rank_status *s);
int job_result_add_failed(struct job_result *r, const struct job_rank_status *s);
int job_result_add_size(struct job_result *r, const struct job_size_row *row);
int job_result_add_matrix(struct job_result *r, long from, long to, uint64_t bytes,
                          uint64_t messages);
/* The index of hostname in r->tally.hostnames, added when new; -1 when out of memory. */
int job_result_host(struct job_result *r, const char *hostname);
void job_spread_merge(struct job_spread *into, const struct job_spread *from);

#endif
