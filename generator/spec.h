/* spec: the hand-written description of one backend (api-specs/<backend>.yaml).
 *
 * A spec names the headers to parse, how to find them, which declarations belong to the
 * backend, the library that exports its functions, and what the headers cannot say
 * (param roles, handle types). docs/spec-format.md documents every key.
 * Every string in a struct spec is owned by it; spec_free() releases them all.
 */
#ifndef APIGEN_SPEC_H
#define APIGEN_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "util.h"

/* A place in the spec, kept so later stages can point back at the line that caused a
 * problem (a header not found, a pattern that matches nothing). */
struct spec_sample;

struct spec_loc {
  unsigned line, column;
};

/* A glob (fnmatch) over declaration names, with the number of names it matched. */
struct spec_pattern {
  char *glob;
  struct spec_loc loc;
  unsigned matches;
};

struct spec_string {
  char *value;
  struct spec_loc loc;
};

enum spec_direction { SPEC_DIR_UNSET = 0, SPEC_DIR_IN, SPEC_DIR_OUT, SPEC_DIR_INOUT };

/* A role override for the params named `param` of the functions matched by `function`. */
struct spec_param_rule {
  char *function; /* name or glob */
  char *param;    /* name or glob */
  enum spec_direction direction;
  char *length;   /* array length expression, or NULL */
  int string;     /* -1 unset, else 0/1 */
  int optional;   /* -1 unset, else 0/1 */
  struct spec_loc loc;
  unsigned matches;
};

/* A call that puts work on a device (trace.commands): the generated wrapper hands it to
 * the backend's hooks, which time it on the device. Values name params of the function,
 * or for queue, kernel, src and dst an expression over one (`config->hStream`). */
struct spec_command {
  char *function;
  char *kind;       /* "kernel", "transfer" or "other" */
  char *queue;      /* the queue or stream; may be NULL */
  char *kernel;     /* the kernel object of a launch; may be NULL */
  char *bytes;      /* length expression: bytes moved; may be NULL */
  char *completion; /* param: the out slot of the completion event; may be NULL */
  char *direction;  /* transfers: h2d, d2h, d2d, h2h, fill, map or unmap; may be NULL */
  char *direction_param; /* transfers: a param whose value says the direction, through
                            trace.directions; may be NULL */
  char *src, *dst;  /* copies: their ends (addresses); may be NULL */
  struct spec_loc loc;
  unsigned matches; /* functions and callbacks it applies to */
};

/* What a host call means to the analyses (trace.calls): alloc, free or sync, and for
 * allocations the bytes (a length expression). With `pointer`, the runtime keeps the
 * backend's allocations: an alloc's new memory (`*pptr`) of kind `memory`, a free's
 * (`ptr`). */
struct spec_call {
  char *function; /* name or glob */
  char *meaning;  /* may be NULL when the entry gives a role */
  char *waits_for; /* "device" or "peer": the call waits (for the verdict); may be NULL */
  int setup;      /* the call sets up (start-up, for the verdict) */
  char *bytes;    /* may be NULL */
  char *pointer;  /* may be NULL */
  char *memory;   /* alloc with a pointer: host, device or shared */
  struct spec_loc loc;
  unsigned matches;
};

/* A call that names a kernel handle (trace.kernel_names): the handle its `kernel`
 * expression gives (an out value: `*phKernel`) is named by `name` (`desc->pKernelName`). */
struct spec_kernel_name {
  char *function; /* name or glob */
  char *kernel, *name;
  struct spec_loc loc;
  unsigned matches;
};

/* A call that makes, executes, resets or destroys command lists (trace.command_lists):
 * one of create (the new list: `*phCommandList`, with its context, device and whether it
 * is immediate), execute (an array of lists, `count` of them), reset and destroy (the
 * list). Values are expressions over the function's params. */
struct spec_command_list {
  char *function; /* name or glob */
  char *create, *context, *device, *execute, *count, *reset, *destroy;
  int immediate;
  struct spec_loc loc;
  unsigned matches;
};

/* A value of a direction param and the direction it means (trace.directions). */
struct spec_direction_value {
  char *value; /* a constant of the model */
  char *direction;
  struct spec_loc loc;
};

/* How copies name the memory at their ends (trace.copy_kinds): one letter per kind, and
 * whether the host side's kind (pinned, pageable) follows. Present: the hooks say where
 * memory lives (<backend>_memory_of). */
struct spec_copy_kinds {
  bool present;
  char host, pageable, device, shared;
  int host_kind;
  struct spec_loc loc;
};

/* Which values of a function's status mean success or "not ready yet" rather than an
 * error (trace.status.rules): the first rule whose glob matches a function applies. */
struct spec_status_rule {
  char *function;          /* name or glob */
  struct ptrvec success;   /* struct spec_string*: integers or constant names */
  struct ptrvec not_ready; /* struct spec_string* */
  struct spec_loc loc;
  unsigned matches;
};

/* A factor of a communicator's size n, (a*n + b) / (c*n + d), read from an expression
 * such as "2*(n-1)/n" (spec_messages.c); c = d = 0 when the spec gives none. */
struct spec_rank_factor {
  int a, b, c, d;
};

/* What a call means as communication (trace.messages): the kind, and the params that
 * hold the element count, the datatype, the peer rank, the tag, the communicator, the
 * request, the reduction operation and the root. Values name params of the function;
 * each may be NULL. A complete call completes its request, or the `count` of its array
 * `requests`, when `done` (an expression: `*flag`) says so, or always. size_factor and
 * bus_factor say how bandwidths count the call, as nccl-tests do: its size is its bytes
 * times size_factor, its bus bandwidth its algorithm bandwidth times bus_factor. */
struct spec_message {
  char *function; /* name or glob */
  char *kind;     /* send, recv, collective, put, get or complete */
  char *count, *datatype, *peer, *tag, *comm, *request, *requests, *done, *op, *root;
  /* A complete call of an array of requests that completes some of them: the one at
   * `index` (an expression: `*indx`), or the `indices_count` (`*outcount`) ones at the
   * indices of the array `indices`; neither: all of them. */
  char *index, *indices, *indices_count;
  /* A call that also receives (MPI_Sendrecv), its receive's params (trace.messages'
   * `recv`); NULL when it does not. */
  char *recv_count, *recv_datatype, *recv_peer, *recv_tag;
  /* A get that also writes to the target (MPI_Get_accumulate), the params of what it
   * writes (trace.messages' `put`), and an expression that holds when it writes nothing
   * (`op == MPI_NO_OP`); NULL when it does not. */
  char *put_count, *put_datatype, *put_unless;
  /* The param pointing to the status a receive fills (`status`; `recv.status` for the
   * receive of a send, and a complete call's of its one request; of a complete call of an
   * array, the statuses of those it completes, one each in the order it names them): its
   * source and bytes are what was received (trace.message_status); NULL when none. */
  char *status, *recv_status;
  struct spec_rank_factor size_factor, bus_factor;
  struct spec_loc loc;
  unsigned matches;
};

/* A function that answers "not ready" through an out-param (trace.polls): a call whose
 * status is its success and whose `done` is 0 is a poll that found nothing, counted and
 * not recorded (runtime/tracer_runtime.h: tracer_count_poll). */
struct spec_poll {
  char *function; /* name or glob */
  char *done;     /* an expression over params: `*flag` */
  struct spec_loc loc;
  unsigned matches;
};

/* A handle type whose rank and size the hooks read (trace.communicators): hooks functions
 * <prefix>_<rank> and <prefix>_<size>, and <prefix>_<id> when id is given: an id that all
 * ranks of one communicator share. Where rank or size names a function of the model, the
 * interposer defines <prefix>_comm_rank (comm_size) asking it (view_handles.c, which moves
 * the name to rank_query, size_query); where trace.handle_ids is given, <prefix>_<id>. */
struct spec_communicator {
  char *type;       /* ncclComm_t */
  char *rank, *size; /* comm_rank, comm_size */
  char *id;          /* comm_id; may be NULL */
  char *rank_query, *size_query; /* ncclCommUserRank, ncclCommCount; NULL: the hooks' */
  struct spec_loc loc;
  unsigned matches; /* message entries whose comm has the type */
};

/* The bytes of one element of a datatype constant (trace.element_sizes). */
struct spec_element_size {
  char *constant; /* ncclFloat32 */
  char *bytes;    /* 4 */
  struct spec_loc loc;
};

/* A call that makes or frees a handle whose id every process shares (trace.handle_ids):
 * handle and from (a param: its bytes, or a pointer param's pointee's), or handle, parent
 * and salt (a param), or forget. Each an expression over params; when a condition. */
struct spec_handle_id {
  char *function;
  char *handle, *from, *when, *parent, *salt, *forget; /* each may be NULL */
  struct spec_loc loc;
  unsigned matches;
};

/* A handle type whose ranks the hooks translate to world ranks (trace.world_rank): its
 * hooks function is <backend>_<function>. */
struct spec_world_rank {
  char *type;     /* MPI_Comm */
  char *function; /* comm_world_rank */
  struct spec_loc loc;
  unsigned matches; /* message entries whose comm has the type (trace.group_made: calls
                       that make one) */
  const char *from_type; /* trace.group_made: the type of the first such call's `from`
                            param (borrowed from the model), else `type` */
};

/* A call that makes a group of processes, a communicator or a window (trace.groups):
 * when it returns, the hooks function of the type `made` points to (trace.group_made)
 * records the new one's members. */
struct spec_group_call {
  char *function; /* name or glob */
  char *made;     /* the out param of the new handle: newcomm */
  char *from;     /* the param of the communicator it is made from: comm */
  char *type;     /* or: the type of the predefined handles made and from name (MPI_Comm,
                     with made MPI_COMM_SELF, from MPI_COMM_WORLD); may be NULL */
  struct spec_loc loc;
  unsigned matches;
};

/* A call that synchronizes an RMA window (trace.rma_sync), for the exports' RMA records
 * (docs/otf2.md): what it does (`sync`), the param of its window (a handle, or a pointer
 * to the one it frees), of its target rank, and an expression true for a shared lock. */
struct spec_rma_sync {
  char *function; /* name or glob */
  char *sync;     /* fence, lock, unlock, lock_all, unlock_all, flush or free */
  char *win, *peer, *shared;
  struct spec_loc loc;
  unsigned matches;
};

/* Fortran entry points traced from the same model (trace.fortran), for a library whose
 * Fortran bindings do not go through the C functions: gfortran's names (lower case and
 * `_`), every C param passed by address, the error code in a last param. */
struct spec_fortran {
  bool present;
  char *library;               /* soname that exports the Fortran symbols */
  char *integer;               /* the C type of a Fortran INTEGER (MPI_Fint); may be NULL:
                                  int */
  struct ptrvec handle_types;  /* struct spec_string*: handle type names ... */
  struct ptrvec handle_f2c;    /* struct spec_string*: ... and the function that turns a
                                  Fortran handle of that type into a C one */
  /* C params with no Fortran twin (MPI_Init's argc and argv), by function: pairs of a
   * function glob and a param name. */
  struct ptrvec absent_functions; /* struct spec_pattern* */
  struct ptrvec absent_params;    /* struct spec_string*: the param of the same pair */
  struct ptrvec exclude;       /* struct spec_pattern*: functions with no such binding */
  /* The C type of a CHARACTER's elements (char): a param pointing to it, or an array of
   * them, is a Fortran string, whose length the caller passes by value after the last
   * argument (one size_t each, in order); NULL: none. */
  char *character;
  /* Where the Fortran bindings count the indices of an array from (1 for MPI): the params
   * a message's `index` and `indices` name are turned into C's (from 0) for the record;
   * 0: as C. */
  int index_base;
  struct spec_loc loc;
};

/* What a call gives back that is the tracer's to give (trace.results), for an API whose
 * tool the tracer is: the interned copy of the string param `intern` (or, with `member`,
 * an interned object of the result's type whose member holds the name, the other members
 * as `init` says: MEMBER: C value), a new handle of its own (`unique`) or the time on the
 * trace clock (`now`). */
struct spec_result {
  char *function; /* name or glob */
  char *intern;   /* param; may be NULL */
  char *member;   /* may be NULL */
  struct ptrvec init_members, init_values; /* struct spec_string*, pairwise */
  int unique, now;
  struct spec_loc loc;
  unsigned matches;
};

/* Flags the tracer adds to a call's param before the real call (trace.add_flags): the
 * param itself, a member of the struct it points to (`member`, on a copy), or the value of
 * `key` in the zero-ended property list it points to (a copy). */
struct spec_add_flags {
  char *function; /* name or glob */
  char *param, *member, *key, *flags;
  struct spec_loc loc;
  unsigned matches;
};

/* A call that hands out an API function by name (trace.entry_points): the function at
 * `address` (an out value) for the name `name` comes back as the interposer's wrapper.
 * `by`: "address" finds the wrapper by the function's address only, never by the name
 * asked for (NULL or "name": by the name too, runtime/tracer_wrappers.h). */
struct spec_entry_point {
  char *function; /* name or glob */
  char *name, *address, *by;
  struct spec_loc loc;
  unsigned matches;
};

/* A table of function pointers by id that an API which loads a tool has it fill
 * (trace.callback_tables: NVTX's, one per module): the slot of id `prefix`X, an enumerator
 * of enum `ids`, holds the function `functions`X. */
struct spec_callback_table {
  char *module; /* an enumerator of the model: the table's own id */
  char *ids, *prefix, *functions;
  struct spec_loc loc;
};

/* How calls are traced (the `trace` key); absent for model-only backends. */
struct spec_trace {
  bool present;
  char *hooks;                /* hooks file name in runtime/hooks/, or NULL */
  struct ptrvec before, after; /* struct spec_pattern*: functions with hooks */
  struct ptrvec exclude;      /* struct spec_pattern*: functions left alone */
  struct ptrvec counted;      /* struct spec_pattern*: functions counted per thread, not
                                 recorded one event per call (templates/interposer.c.tmpl) */
  char *status_type;          /* results of this type are statuses; may be NULL */
  char *status_success;       /* a constant name or an integer; may be NULL */
  struct ptrvec status_params; /* struct spec_string*: out params carrying the status */
  struct ptrvec status_names; /* struct spec_pattern*: constants that name statuses */
  struct ptrvec status_not_ready; /* struct spec_string*: values meaning "not ready yet" */
  struct ptrvec status_functions; /* struct spec_pattern*: functions with a status (none: all) */
  struct ptrvec status_exclude;   /* struct spec_pattern*: functions without one */
  struct ptrvec status_rules;     /* struct spec_status_rule* */
  struct spec_loc status_loc;
  struct ptrvec commands;     /* struct spec_command* */
  struct ptrvec calls;        /* struct spec_call* */
  struct ptrvec kernel_names; /* struct spec_kernel_name* */
  struct ptrvec command_lists; /* struct spec_command_list* */
  struct ptrvec directions;   /* struct spec_direction_value* */
  struct spec_copy_kinds copy_kinds;
  struct ptrvec dispatch_tables; /* struct spec_pattern*: functions that fill a table of
                                   the API's function pointers (view_dispatch.c) */
  char *device_times;         /* "device" (default) or "host": where command times come
                                 from; may be NULL */
  struct ptrvec messages;     /* struct spec_message* */
  struct ptrvec polls;        /* struct spec_poll* */
  char *element_size;         /* the datatype handle type whose element size the hooks'
                                 <backend>_element_size() gives; may be NULL */
  /* The status type of receives (trace.message_status: MPI_Status) and the hooks
   * functions that read its source and its bytes; all NULL without it. */
  char *message_status_type, *message_status_source, *message_status_bytes;
  /* Handle types whose ranks the hooks translate to world ranks (trace.world_rank): a
   * message whose `comm` param has such a type gets its peer as a world rank too. */
  struct ptrvec world_ranks;  /* struct spec_world_rank* */
  /* Handle types whose rank and size the hooks read (trace.communicators): a message whose
   * `comm` param has such a type records the communicator's rank and size. */
  struct ptrvec communicators; /* struct spec_communicator* */
  /* The bytes of one element of each datatype constant (trace.element_sizes): the
   * interposer defines <prefix>_element_size() from them. */
  struct ptrvec element_sizes; /* struct spec_element_size* */
  struct ptrvec handle_ids;    /* struct spec_handle_id*: trace.handle_ids */
  /* trace.devices: a device is its ordinal; a command's is the thread's current device,
   * which `current` gives through its out param, named by `name` (name, size, ordinal):
   * the interposer registers them (view_handles.c). Both NULL without it. Or, with
   * `hooks: true` (devices_hooks), the hooks file gives <prefix>_device_of and
   * <prefix>_device_find, which the interposer registers. */
  char *devices_current, *devices_name;
  int devices_hooks;
  struct spec_loc devices_loc;
  /* Calls before which the backend's kernel names are forgotten (trace.forget_kernel_names:
   * unloading a module may free a kernel whose handle comes back for another). */
  struct ptrvec forget_kernel_names; /* struct spec_pattern* */
  /* Calls that make communicators or windows (trace.groups), and the hooks function that
   * records one, by its handle type (trace.group_made: struct spec_world_rank*, whose
   * matches count the calls). */
  struct ptrvec group_calls;  /* struct spec_group_call* */
  struct ptrvec group_made;   /* struct spec_world_rank* */
  struct ptrvec rma_syncs;    /* struct spec_rma_sync*: trace.rma_sync */
  char *symbol_group;         /* backends of one group wrap the same symbols for different
                                 libraries: only one is preloaded; may be NULL */
  /* Environment variables set only by the launcher of the backend's library (mpirun):
   * they pick the group's backend for an app that links none of its libraries but loads
   * one later (python3 with mpi4py). */
  struct ptrvec launcher_variables; /* struct spec_string* */
  /* File name patterns of libraries that call the API for their own tools, not for the
   * app (libomp's ITT calls): a collector does not record their calls by default. */
  struct ptrvec runtime_callers; /* struct spec_string* */
  struct spec_fortran fortran;
  /* What the backend's library is: the templates rendered for it (default: an LD_PRELOAD
   * interposer) and extra symbols it exports (a tool's entry point). */
  struct ptrvec templates;    /* struct spec_string*: template names, "collector.c" */
  struct ptrvec exports;      /* struct spec_string* */
  /* Folders of runtime/ compiled into the backend's library with its hooks (the build
   * reads them; listed here so that the spec is checked). */
  struct ptrvec runtime_parts; /* struct spec_string* */
  /* NAME=VALUE entries the tracer sets for the app when it traces this backend (unless
   * the user set NAME): what the API's own library needs to load or use the backend's. */
  struct ptrvec environment;  /* struct spec_string* */
  /* Calls that pause and resume the recording of every backend. */
  struct ptrvec pause, resume; /* struct spec_pattern* */
  /* Named regions (trace.regions): calls that open one on the calling thread, named by a
   * param (or a member of the struct it points to), and calls that close the innermost. */
  struct ptrvec region_open, region_close; /* struct spec_pattern* */
  /* Marks (regions of no length), ranges that start and end by id (the start's result is
   * the id, the end's param `region_id` holds it), from any thread. */
  struct ptrvec region_mark, region_start, region_end; /* struct spec_pattern* */
  char *region_id;            /* may be NULL */
  struct ptrvec region_names; /* struct spec_string*: params that name a region, the first
                                 a function has */
  char *region_name_member;   /* member of *param holding the name; may be NULL */
  /* The environment variable through which the API's own library loads the backend's
   * library (trace.load_through); NULL: it is preloaded. */
  char *load_through;
  /* A tool the API calls back (trace.callbacks): function-pointer types, each traced as a
   * function named after the type without its _t and registered under the constant of
   * that name. */
  struct ptrvec callbacks;    /* struct spec_pattern* */
  char *scope_endpoint;       /* param saying which end of its scope a call is; may be NULL */
  char *scope_begin;          /* the value that says "begin" */
  struct ptrvec rows;         /* struct spec_rows*: calls tallied per value of a param */
  /* What hooks files used to say in glue (spec_glue.c). */
  struct ptrvec results;      /* struct spec_result* */
  struct ptrvec add_flags;    /* struct spec_add_flags* */
  struct ptrvec entry_points; /* struct spec_entry_point* */
  struct ptrvec drain_after;  /* struct spec_pattern*: calls after which, when they succeed,
                                 the pending commands are read (a query of an event) */
  /* Functions of the library the hooks call (trace.hooks_calls), by their name with
   * `prefix` before it (PMPI_Type_size), looked up in the loaded library. */
  struct ptrvec hooks_calls;  /* struct spec_string*: model function names */
  char *hooks_calls_prefix;   /* may be NULL */
  /* The header's macro NAME(type, global) through which the library's predefined objects
   * are named (Open MPI's OMPI_PREDEFINED_GLOBAL): redefined to look each up when first
   * used; may be NULL. */
  char *predefined_macro;
  struct ptrvec callback_tables; /* struct spec_callback_table* */
  struct spec_loc hooks_calls_loc;
  struct spec_loc loc;
};

/* trace.rows: FUNCTION: {param: P, strip: PREFIX}: the function's calls are tallied in one
 * row per value of enum param P, named FUNCTION:NAME (the value's name without PREFIX). */
struct spec_rows {
  char *function;
  char *param;
  char *strip; /* may be NULL */
  struct spec_loc loc;
};

struct spec {
  char *path;        /* as given on the command line */
  char *dir;         /* folder of path; relative include dirs are resolved against it */
  char *backend;     /* the backend's name: generated/<backend>/ */
  char *description; /* one line for humans; may be NULL */
  char *library;     /* soname of the library that exports the functions, or NULL */
  char *collector;   /* or: the environment variable through which the API loads a tool
                        library (NVTX_INJECTION64_PATH, INTEL_LIBITTNOTIFY64) */
  char *missing_hint; /* appended to "Cannot find header" messages; may be NULL */
  char *std;         /* C standard for parsing, default "gnu11" */
  struct ptrvec headers;      /* struct spec_string* */
  struct ptrvec include_dirs; /* struct spec_string*, expanded and resolved */
  /* Searched after the compiler's own folders (-idirafter): for a header installed beside
   * another compiler's builtin headers, which must not replace this one's. */
  struct ptrvec include_dirs_after; /* struct spec_string*, expanded and resolved */
  struct ptrvec defines;      /* struct spec_string* */
  struct ptrvec functions, types, constants;                         /* struct spec_pattern* */
  struct ptrvec exclude_functions, exclude_types, exclude_constants; /* struct spec_pattern* */
  struct ptrvec handles;      /* struct spec_pattern*: extra handle types (e.g. int handles) */
  struct ptrvec param_rules;  /* struct spec_param_rule* */
  struct spec_trace trace;
  /* Device counters polled by `tracer --sample` (spec_sample.h); NULL when none. */
  struct spec_sample *sample;
};

/* Loads and validates a spec. On failure adds located causes to d and returns -1; the
 * spec is then freed already. */
int spec_load(struct spec *s, const char *path, struct diag *d);
/* The same from len bytes of text (need not end in NUL). path stands for the file: it
 * names it in messages, and relative include_dirs are resolved against its folder. */
int spec_load_buffer(struct spec *s, const char *text, size_t len, const char *path,
                     struct diag *d);
void spec_free(struct spec *s);

/* True when name matches any pattern of v; counts the match on every pattern that matches. */
bool spec_patterns_match(struct ptrvec *v, const char *name);

#endif
