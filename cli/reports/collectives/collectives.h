/* collectives: the collectives table, per operation and size, with the bandwidths
 * nccl-tests define (docs/analysis-output.md): calls, bytes, time, algorithm and bus
 * bandwidth, and the time on the device of the kernels each operation launched.
 *
 * Which calls count, and how, is the specs' business, never a name in cli/: a message
 * call (trace.messages) whose entry has a bus_factor is an operation of the table. Its
 * size S is its bytes times its size_factor, its algorithm bandwidth S x calls / time and
 * its bus bandwidth that times its bus_factor, both functions of the communicator's size
 * n that its record holds (trace.communicators). A row is one function, reduction
 * operation, n and S.
 *
 * The kernels an operation launched: a library such as NCCL launches them through
 * another backend (the CUDA driver) inside the call, or inside the call that ends a group
 * of calls (trace.calls' group_end), on the same thread. Each kernel's device command
 * names the call that submitted it (call_tid, call_start); that launch call, nested in
 * the operation (or the group's end), ties the kernel to it. A group's kernels are shared
 * among its operations by their sizes. A device command that names no call (CUDA timed
 * by CUPTI) is tied to the oldest launch of its process and backend not tied yet that
 * started no later than the command, as the timeline matches its flows.
 *
 * A consumer of the read in time order (trace_consumer.h); memory grows with the rows and
 * with the launches waiting for their kernels (COLLECTIVES_LAUNCHES at most), never with
 * the trace's length. A table of tables is a table: an MPI job's is its ranks' merged.
 */
#ifndef TRACER_COLLECTIVES_H
#define TRACER_COLLECTIVES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "trace_consumer.h"

enum { COLLECTIVES_LAUNCHES = 1 << 16 };

struct collective_row {
  uint32_t backend;            /* index in tracer_backends[] */
  uint32_t function;           /* index in its functions */
  int64_t op;                  /* the reduction operation's value; -1: none */
  int64_t ranks;               /* n, the communicator's size; -1: unknown */
  uint64_t size;               /* S of one call: its bytes times the size factor */
  uint64_t calls, time_ns;     /* the calls, and their own time */
  uint64_t kernels, device_ns; /* kernels tied to them, and their share of those kernels'
                                  time on the device */
};

struct collectives {
  struct collective_row *rows; /* owned */
  size_t count, cap;
  size_t *index;               /* open addressing over rows, by key; owned */
  size_t index_cap;
};

/* Whether calls of f are operations of the table. */
bool collectives_counts(const struct tracer_function_desc *f);
/* Whether a backend of the trace has a function that counts: without one, the table
 * stays empty whatever the read, and the collectives take no part in it. */
struct event_map;
bool collectives_in_trace(const struct event_map *map);
/* Whether any function with calls in the tally counts (the read is worth it). */
struct tally;
bool collectives_in_tally(const struct tally *tally);

/* The row of this key, added empty when new; NULL when out of memory. */
struct collective_row *collectives_row(struct collectives *c, uint32_t backend,
                                       uint32_t function, int64_t op, int64_t ranks,
                                       uint64_t size);
/* Adds from's rows into into. Returns 0, or -1 when out of memory. */
int collectives_merge(struct collectives *into, const struct collectives *from);
/* Sorts the rows for printing: backend, function, size, ranks, op. */
void collectives_sort(struct collectives *c);
void collectives_free(struct collectives *c);

/* A row's algorithm and bus bandwidths in bytes per second, from its kernels' device time
 * where it has one, else from the calls' own time (*from_device says which); false when
 * neither time is known. *bus is negative when the bus factor cannot be worked out (n
 * unknown). */
bool collectives_bandwidth(const struct collective_row *row, double *alg, double *bus,
                           bool *from_device);
/* The row's bus factor for its n; negative when n is unknown. */
double collectives_bus_factor(const struct collective_row *row);
/* Whether row i has under a quarter of the calls of its operation's busiest size (same
 * function, reduction and n): a warm-up or a one-off, such as nccl-tests' warm-up calls at
 * the sizes between those it reports, whose bandwidth is not a steady rate. */
bool collectives_few_calls(const struct collectives *c, size_t i);

/* The value of record slot index of the call c of f, as its slot's type reads; false
 * when the record lacks it (index -1, or a record of fewer slots). */
bool collectives_slot_value(const struct tracer_function_desc *f, const struct trace_call *c,
                            int16_t index, int64_t *value);

/* The table made by a read: *reading's consumer goes into the read, and after it
 * collectives_read_close() adds the rows into table and frees the state. Returns 0, or -1
 * with a cause in d. */
struct collectives_reading;
int collectives_read_open(struct collectives *table, struct collectives_reading **reading,
                          struct trace_consumer *consumer, struct diag *d);
int collectives_read_close(struct collectives_reading *reading, struct diag *d);

/* The rows of backend (its index in tracer_backends[]) as a table after that backend's
 * tables (nothing when it has none), and the whole table as a JSON array. */
void collectives_print_text(const struct collectives *c, size_t backend, FILE *out);
void collectives_print_json(const struct collectives *c, FILE *out);

#endif
