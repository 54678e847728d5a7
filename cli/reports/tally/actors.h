/* actors: a tally broken down per actor, the thread that made the calls (tracer -e,
 * docs/analysis-output.md): per (rank, host, process, thread) and backend, each
 * function's calls and times, and each device row whose command the thread recorded.
 * Rows are sparse (only what an actor called), so memory grows with actors x functions
 * called, never with the trace's length. An MPI job's per-rank times (--ranks) are its
 * actors' rows summed per rank.
 *
 * The struct actors owns its lists and the device rows' names; hosts are indices into
 * the hostnames of the tally that holds it.
 */
#ifndef TRACER_ACTORS_H
#define TRACER_ACTORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tally_stat.h"

struct actor {
  long rank; /* -1 outside an MPI job */
  int host;  /* index in the holding tally's hostnames */
  int64_t pid, tid;
};

struct actor_row {
  uint32_t actor, backend;
  int32_t function;       /* a host row's function index; -1 for a device row */
  int kind;               /* a device row's enum tracer_command_kind */
  char *name;             /* a device row's kernel or transfer name; owned; else NULL */
  struct tally_stat time;
  uint64_t bytes;         /* a device row's bytes */
};

struct actors_index;

struct actors {
  struct actor *list; /* owned */
  size_t count, cap;
  struct actor_row *rows; /* owned */
  size_t row_count, row_cap;
  struct actors_index *index; /* lookups; owned */
};

/* The index of the actor (added when new), or -1 when out of memory. */
long actors_find(struct actors *a, long rank, int host, int64_t pid, int64_t tid);

/* The row of a function (function >= 0) or of a device row (function -1, kind, name of
 * length len) of actor in backend, added empty when new; NULL when out of memory. */
struct actor_row *actors_row(struct actors *a, uint32_t actor, uint32_t backend,
                             int32_t function, int kind, const char *name, size_t len);

/* Adds from into into: from's host index h becomes host_map[h], and its actors' rank
 * becomes rank unless rank is ACTORS_KEEP_RANK. Returns 0, or -1 when out of memory. */
enum { ACTORS_KEEP_RANK = -2 };
int actors_merge(struct actors *into, const struct actors *from, const int *host_map,
                 long rank);

/* Gives the actors of process pid on host the rank `rank` (a launcher's rank, learned from
 * the trace after their rows were made). Returns 0, or -1 when out of memory. */
int actors_set_rank(struct actors *a, int host, int64_t pid, long rank);

/* Takes one clock read off every host row's calls (tally.h: take_off_clock_reads). */
void actors_take_off(struct actors *a, uint64_t clock_read_ns);

void actors_free(struct actors *a);

#endif
