/* tracer_backend_desc: what the analyses know about a backend's events, generated from
 * its model (generated/<backend>/<backend>_events.c, templates/events.c.tmpl).
 *
 * It says which function each event belongs to, where a call's status is and which value
 * means success, and how to show fields: enum and status values by name, the bytes of a
 * struct member by member. Everything is static, read-only data.
 */
#ifndef TRACER_BACKEND_DESC_H
#define TRACER_BACKEND_DESC_H

#include <stddef.h>
#include <stdint.h>

/* Names of values, sorted by value, one name per value (the first the header gives). */
struct tracer_value_name {
  int64_t value;
  const char *name;
};

struct tracer_names {
  const char *type;  /* the C type they name */
  const struct tracer_value_name *values;
  uint32_t count;
};

enum tracer_member_kind {
  TRACER_MEMBER_SIGNED,
  TRACER_MEMBER_UNSIGNED,
  TRACER_MEMBER_FLOAT,
  TRACER_MEMBER_POINTER,
};

/* A scalar member of a struct, at its place in the struct's bytes. Members of nested
 * anonymous structs and unions are listed by their own names, those of named nested
 * ones as "outer.inner". */
struct tracer_record_member {
  const char *name;
  uint32_t offset;             /* bytes from the start of the struct */
  uint32_t size;               /* bytes */
  int32_t bit_offset;          /* bit-fields: bits from the start of the struct; else -1 */
  int32_t bit_width;           /* bit-fields: width; else -1 */
  enum tracer_member_kind kind;
  const struct tracer_names *names; /* enums: names of their values; else NULL */
};

struct tracer_record {
  const char *name;
  uint32_t size;
  const struct tracer_record_member *members;
  uint32_t count;
};

/* How to show one payload field of a function's events. */
struct tracer_field_format {
  const char *field;
  const struct tracer_names *names;   /* show the value(s) by name; may be NULL */
  const struct tracer_record *record; /* the field holds the bytes of this struct; may be NULL */
};

enum tracer_status_source {
  TRACER_STATUS_NONE,   /* the call has no status */
  TRACER_STATUS_RESULT, /* the call's result is its status */
  TRACER_STATUS_FIELD,  /* a status out-param holds it */
};

/* One named value in a call's record (runtime/tracer_record.h): the low `size` bytes of
 * slot `index`, sign-extended for TRACER_SLOT_SIGNED, floating-point values by bits. */
enum tracer_slot_kind {
  TRACER_SLOT_SIGNED,
  TRACER_SLOT_UNSIGNED,
  TRACER_SLOT_ADDRESS,
  TRACER_SLOT_FLOAT,
  TRACER_SLOT_DOUBLE,
};

struct tracer_slot {
  const char *name;    /* the param's name; "result"; "status"; "<param>_val" (out value) */
  uint8_t index;
  uint8_t size;        /* bytes */
  uint8_t kind;        /* enum tracer_slot_kind */
  uint8_t at_exit;     /* known when the call returns: result, status, out values */
  int16_t present_if;  /* out values: the slot of their pointer, which NULL makes absent;
                          else -1 */
};

/* What a call means, so analyses stay generic (trace.commands and trace.calls of the
 * spec). */
enum tracer_meaning {
  TRACER_MEANING_NONE,
  TRACER_MEANING_KERNEL_LAUNCH, /* puts a kernel on a device */
  TRACER_MEANING_TRANSFER,      /* moves memory; direction says which way */
  TRACER_MEANING_COMMAND,       /* other device work */
  TRACER_MEANING_ALLOC,         /* allocates memory; bytes_param holds its size */
  TRACER_MEANING_FREE,
  TRACER_MEANING_SYNC,          /* waits for device work */
  /* Opens and closes a group of calls that the library starts together when the group's
   * outermost end returns (NCCL's ncclGroupStart and ncclGroupEnd). */
  TRACER_MEANING_GROUP_BEGIN,
  TRACER_MEANING_GROUP_END,
};

/* What a call means as communication (trace.messages of the spec). The indices are slots
 * of its record, -1 when absent: bytes (count x element size, read when the call
 * returned), peer rank, tag, communicator (or window) handle, the request it starts
 * (send, recv, put, get: the request out value) or completes (complete: the request as
 * passed), the reduction operation, the root, and the communicator's rank, size and the
 * id its ranks share (trace.communicators). */
enum tracer_message_kind {
  TRACER_MESSAGE_NONE,
  TRACER_MESSAGE_SEND,
  TRACER_MESSAGE_RECV,
  TRACER_MESSAGE_COLLECTIVE,
  TRACER_MESSAGE_PUT,
  TRACER_MESSAGE_GET,
  TRACER_MESSAGE_COMPLETE,
};

/* A factor of a communicator's size n: (a*n + b) / (c*n + d); none when c and d are 0.
 * nccl-tests' definitions: a collective's size is its bytes times size_factor (n for
 * AllGather, the whole buffer), its bus bandwidth its algorithm bandwidth times
 * bus_factor (2(n-1)/n for AllReduce). */
struct tracer_rank_factor {
  int16_t a, b, c, d;
};

struct tracer_message {
  uint8_t kind; /* enum tracer_message_kind */
  int16_t bytes, peer, tag, comm, request;
  int16_t op, root, comm_rank, comm_size, comm_id;
  /* A send that also receives (MPI_Sendrecv): its receive's bytes, peer and tag slots;
   * a complete call of one request with a status (MPI_Wait): the bytes and the sender (a
   * rank of the request's communicator; -1 when ignored) its status says a receive got;
   * -1 when none. */
  int16_t recv_bytes, recv_peer, recv_tag;
  struct tracer_rank_factor size_factor, bus_factor;
};

/* What a call does to synchronize an RMA window (trace.rma_sync of the spec), for the
 * exports' RMA records: the slots of the window handle (as passed, for a call that frees
 * it), of the target rank (a rank of the window) and of whether a lock is shared; -1 when
 * absent. */
enum tracer_rma_sync_kind {
  TRACER_RMA_SYNC_NONE,
  TRACER_RMA_SYNC_FENCE,      /* collective over the window (MPI_Win_fence) */
  TRACER_RMA_SYNC_LOCK,       /* locks the target (MPI_Win_lock) */
  TRACER_RMA_SYNC_UNLOCK,     /* releases it */
  TRACER_RMA_SYNC_LOCK_ALL,   /* locks every rank of the window, shared (MPI_Win_lock_all) */
  TRACER_RMA_SYNC_UNLOCK_ALL,
  TRACER_RMA_SYNC_FLUSH,      /* completes the operations on the target (MPI_Win_flush) */
  TRACER_RMA_SYNC_FREE,       /* frees the window (MPI_Win_free) */
};

struct tracer_rma_sync {
  uint8_t kind; /* enum tracer_rma_sync_kind */
  int16_t win, peer, shared;
};

/* Statuses from low to high, both included, that are errors or not (the spec's status
 * rules: `error: negative`, `success: 1..`). */
struct tracer_status_range {
  int64_t low, high;
  uint8_t error; /* 1: errors; 0: successes */
};

/* What a call's time is to the verdict (trace.calls of the spec: waits_for, setup): time
 * the host waits for a device's work or for a peer (cuCtxSynchronize, clFinish, MPI_Wait,
 * a blocking ncclGroupEnd), or sets up (cuInit, module loading, communicator creation). */
enum tracer_role {
  TRACER_ROLE_NONE,
  TRACER_ROLE_WAITS_DEVICE,
  TRACER_ROLE_WAITS_PEER,
  TRACER_ROLE_SETUP,
};

struct tracer_function_desc {
  const char *name;
  enum tracer_status_source status;
  const struct tracer_slot *slots; /* the record's named slots, in record order */
  uint32_t slot_count;
  uint32_t record_length;          /* slots in the default and full events' record */
  uint32_t full_entry_fields;      /* full event: fields after the record shown at entry */
  /* Statuses that are not errors for this function (the spec's per-function status
   * rules: success and "not ready" values); none: the backend's `success` alone. */
  const int64_t *ok_statuses;
  uint32_t ok_status_count;
  const struct tracer_field_format *formats;
  uint32_t format_count;
  enum tracer_meaning meaning;
  const char *direction;   /* transfers: "h2d", "d2h", "d2d", ...; else NULL */
  const char *bytes_param; /* the param (a record slot) holding the bytes; or NULL */
  /* Calls tallied in one row per value of a param (the spec's trace.rows): the param
   * (a named slot of the record), the names of its values, and the row of the first value
   * (rows follow the functions, named FUNCTION:VALUE). NULL, NULL, 0 otherwise. */
  const char *row_field;
  const struct tracer_names *row_names;
  uint32_t row_first;
  struct tracer_message message;
  struct tracer_rma_sync rma_sync;
  /* A call that submits device work keeps its stack's id (runtime/stacks/tracer_stacks.h)
   * in this slot of its record, right after the head; 0 for other calls (the head holds
   * slot 0). */
  uint8_t stack_slot;
  enum tracer_role role;
  /* Ranges of statuses beside ok_statuses (which win over them): with error ranges, a
   * status in none of them is no error; with success ranges only, one in none of them and
   * not in ok_statuses is. */
  const struct tracer_status_range *status_ranges;
  uint32_t status_range_count;
  /* The name callers write when a macro renames the function (pcre2_match for
   * pcre2_match_8); NULL when none. */
  const char *written;
};

struct tracer_backend_desc {
  const char *name;     /* "opencl" */
  const char *label;    /* "OPENCL", as in BACKEND_OPENCL */
  const char *provider; /* "lttng_ust_opencl" */
  const struct tracer_function_desc *functions; /* in model order: the `call` event's index */
  uint32_t function_count;
  int64_t success;      /* the status value of a successful call */
  const struct tracer_names *status_names; /* may be NULL */
  int device_times_host; /* 1: device commands carry the host-side times of their calls */
  /* "" for an LD_PRELOAD interposer; else the environment variable through which the
   * API's own library loads the backend's library (a collector or tool). */
  const char *collector;
  /* NAME=VALUE entries for the app's environment when this backend is traced (the spec's
   * trace.environment), NULL-terminated. */
  const char *const *environment;
  const char *library;   /* the soname the interposer wraps */
  /* Backends of one group wrap the same symbols for different libraries (MPICH's and Open
   * MPI's MPI_*): the tracer preloads only the one whose library the app loads. "" when
   * the backend has no group. */
  const char *symbol_group;
  /* Environment variables that only the launcher of this backend's library sets
   * (trace.launcher_variables), NULL-terminated: the group's backend for an app that
   * links none of the group's libraries (it may load one later). */
  const char *const *launcher_variables;
};

#endif
