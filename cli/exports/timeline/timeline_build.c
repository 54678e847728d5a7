/* timeline_build: see timeline_build.h. */
#include "timeline_build.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "device_label.h"
#include "tracer_runtime.h"

/* Calls and device commands waiting for their other end. CUPTI hands its records over
 * when a buffer fills, after tens of thousands of launches (the CUDA hooks hold as many,
 * runtime/hooks/cuda_hooks.c): fewer places dropped calls whose kernels came later, and
 * their flows had one end (a third of them on two GPUs, bench/gpu-runs/run7). Both ends
 * are mostly at the queue's head, so the scans stay short. */
enum { MAX_PENDING = 65536, MAX_ALLOCATIONS = 1 << 20, RECENT_THREADS = 64,
       TIMELINE_CALL_ARGS = 32 /* a call's arguments the reader hands out, at most (24 now) */ };

/* A call or a device command waiting for its other end of a flow. */
struct pending {
  int64_t pid;
  int kind;              /* enum tracer_command_kind */
  const char *function;  /* transfers: the enqueue function's name (static data) */
  uint64_t start;
  uint64_t flow;
  /* Exact identity (the submitting call's thread and start), when the trace gives it:
   * calls always; device commands when call_tid != 0. */
  int64_t tid;
  uint64_t call_start;
};

struct fifo {
  struct pending items[MAX_PENDING];
  size_t head, count;
  size_t identified; /* items with a thread (tid != 0): take_exact() looks only then */
};

struct allocation {
  int64_t pid;
  uint64_t handle, bytes;
};

struct timeline_builder {
  struct timeline *tl;
  const struct timeline_build_options *options;
  struct fifo calls, devices;
  uint64_t next_flow;
  struct allocation *allocations; /* open addressing by handle; owned */
  size_t allocation_cap, allocation_count;
  struct recent_thread {
    const char *host;
    int64_t pid, tid;
    timeline_track track;
  } recent[RECENT_THREADS];
  struct process_memory {
    int64_t pid;
    const char *host;
    timeline_track counter;
    int64_t bytes;
  } *memory;
  size_t memory_count;
  int64_t rank_pid; /* a rank's first process */
  /* The ranks of a launcher's processes (`tracer torchrun ...`: lttng_ust_tracer:rank),
   * by pid, to name their tracks. */
  struct pid_rank {
    const char *host;
    int64_t pid;
    long rank;
  } *ranks;
  size_t rank_count;
};

static int command_kind(enum tracer_meaning m) {
  switch (m) {
  case TRACER_MEANING_KERNEL_LAUNCH: return TRACER_COMMAND_KERNEL;
  case TRACER_MEANING_TRANSFER: return TRACER_COMMAND_TRANSFER;
  case TRACER_MEANING_COMMAND: return TRACER_COMMAND_OTHER;
  default: return -1;
  }
}

static bool matches(const struct pending *p, int64_t pid, int kind, const char *function) {
  return p->pid == pid && p->kind == kind &&
         (kind != TRACER_COMMAND_TRANSFER || !p->function || !function ||
          strcmp(p->function, function) == 0);
}

/* The oldest match, taken out; 0 when none. `call_side`: the call must start no later
 * than the device command (calls queue); else the device command no earlier than the
 * call (devices queue). A call's event comes when it returns, after its device work may
 * have finished, and calls of several threads interleave: when no match keeps that order,
 * the oldest match of the same process and kind is taken, so that every flow has both
 * ends. */
static uint64_t take(struct fifo *q, int64_t pid, int kind, const char *function,
                     uint64_t start, bool call_side) {
  size_t found = q->count;
  for (size_t i = 0; i < q->count; i++) {
    struct pending *p = &q->items[(q->head + i) % MAX_PENDING];
    if (!matches(p, pid, kind, function) || (!call_side && p->tid))
      continue;
    if (found == q->count)
      found = i;
    if (call_side ? p->start <= start : p->start >= start) {
      found = i;
      break;
    }
  }
  if (found == q->count)
    return 0;
  uint64_t flow = q->items[(q->head + found) % MAX_PENDING].flow;
  q->identified -= q->items[(q->head + found) % MAX_PENDING].tid != 0;
  /* Close the hole: move the older ones up by one. */
  for (size_t k = found; k > 0; k--)
    q->items[(q->head + k) % MAX_PENDING] = q->items[(q->head + k - 1) % MAX_PENDING];
  q->head = (q->head + 1) % MAX_PENDING;
  q->count--;
  return flow;
}

/* The pending entry of exactly this call (process, thread, start within the 1 ns that
 * converting two clock values may differ by), taken out; 0 when none. */
static uint64_t take_exact(struct fifo *q, int64_t pid, int64_t tid, uint64_t start) {
  for (size_t i = 0; q->identified && i < q->count; i++) {
    struct pending *p = &q->items[(q->head + i) % MAX_PENDING];
    if (p->pid != pid || p->tid != tid || p->call_start + 1 < start || start + 1 < p->call_start)
      continue;
    uint64_t flow = p->flow;
    q->identified--;
    for (size_t k = i; k > 0; k--)
      q->items[(q->head + k) % MAX_PENDING] = q->items[(q->head + k - 1) % MAX_PENDING];
    q->head = (q->head + 1) % MAX_PENDING;
    q->count--;
    return flow;
  }
  return 0;
}

static void put(struct fifo *q, struct pending p) {
  if (q->count == MAX_PENDING) { /* never matched: forget the oldest */
    q->identified -= q->items[q->head].tid != 0;
    q->head = (q->head + 1) % MAX_PENDING;
    q->count--;
  }
  q->identified += p.tid != 0;
  q->items[(q->head + q->count++) % MAX_PENDING] = p;
}

static long rank_of(const struct timeline_builder *b, const char *host, int64_t pid) {
  for (size_t i = 0; i < b->rank_count; i++)
    if (b->ranks[i].pid == pid && b->ranks[i].host == host)
      return b->ranks[i].rank;
  return -1;
}

/* A process that started with a launcher's rank variables: its track is named for its
 * rank. Its rank event comes first in time order, before any call of its own. */
static int on_rank(void *context, const struct trace_rank *r) {
  struct timeline_builder *b = context;
  if (b->options->is_rank || rank_of(b, r->from.host_name, r->pid) >= 0)
    return 0; /* one rank's own trace: named by its options */
  struct pid_rank *grown = realloc(b->ranks, (b->rank_count + 1) * sizeof *grown);
  if (!grown)
    return -1;
  b->ranks = grown;
  b->ranks[b->rank_count++] = (struct pid_rank){r->from.host_name, r->pid, r->rank};
  return 0;
}

static timeline_track process_track(struct timeline_builder *b, const char *host, int64_t pid) {
  char name[256];
  long rank = rank_of(b, host, pid);
  if (rank >= 0) {
    snprintf(name, sizeof name, "rank %ld (%s)", rank, host);
  } else if (b->options->is_rank) {
    /* The rank's first process is the rank; others (forked) say their pid. */
    if (!b->rank_pid)
      b->rank_pid = pid;
    if (pid == b->rank_pid)
      snprintf(name, sizeof name, "rank %ld (%s)", b->options->rank, host);
    else
      snprintf(name, sizeof name, "rank %ld (%s) pid %" PRId64, b->options->rank, host, pid);
  } else if (b->options->app_name)
    snprintf(name, sizeof name, "%s (pid %" PRId64 ")", b->options->app_name, pid);
  else
    snprintf(name, sizeof name, "pid %" PRId64, pid);
  return timeline_process(b->tl, timeline_host(b->tl, host), pid, name);
}

static struct process_memory *memory_of(struct timeline_builder *b, const char *host, int64_t pid) {
  for (size_t i = 0; i < b->memory_count; i++)
    if (b->memory[i].pid == pid && strcmp(b->memory[i].host, host) == 0)
      return &b->memory[i];
  struct process_memory *grown = realloc(b->memory, (b->memory_count + 1) * sizeof *grown);
  if (!grown)
    return NULL;
  b->memory = grown;
  struct process_memory *m = &b->memory[b->memory_count];
  m->host = strdup(host);
  m->counter = timeline_counter_track(b->tl, process_track(b, host, pid),
                                      "memory allocated (traced APIs)", TIMELINE_UNIT_BYTES);
  if (!m->host || !m->counter)
    return NULL;
  m->pid = pid;
  m->bytes = 0;
  return &b->memory[b->memory_count++];
}

static struct allocation *allocation_slot(struct timeline_builder *b, int64_t pid, uint64_t handle,
                                          bool add) {
  if (add && (b->allocation_count + 1) * 2 > b->allocation_cap) {
    size_t cap = b->allocation_cap ? b->allocation_cap * 2 : 1024;
    if (b->allocation_count >= MAX_ALLOCATIONS)
      return NULL;
    struct allocation *slots = calloc(cap, sizeof *slots);
    if (!slots)
      return NULL;
    for (size_t i = 0; i < b->allocation_cap; i++) {
      if (!b->allocations[i].handle)
        continue;
      size_t at = (b->allocations[i].handle * 0x9e3779b97f4a7c15ull) >> 20 & (cap - 1);
      while (slots[at].handle)
        at = (at + 1) & (cap - 1);
      slots[at] = b->allocations[i];
    }
    free(b->allocations);
    b->allocations = slots;
    b->allocation_cap = cap;
  }
  if (!b->allocation_cap)
    return NULL;
  size_t at = (handle * 0x9e3779b97f4a7c15ull) >> 20 & (b->allocation_cap - 1);
  for (; b->allocations[at].handle; at = (at + 1) & (b->allocation_cap - 1))
    if (b->allocations[at].handle == handle && b->allocations[at].pid == pid)
      return &b->allocations[at];
  return add ? &b->allocations[at] : NULL;
}

static const struct trace_arg *arg_named(const struct trace_call *c, const char *name) {
  for (size_t i = 0; name && i < c->arg_count; i++)
    if (strcmp(c->args[i].name, name) == 0)
      return &c->args[i];
  return NULL;
}

/* Memory through alloc and free meanings: the size from the spec's bytes param, the
 * handle from the result; a free names the handle in one of its pointer arguments. */
static int track_memory(struct timeline_builder *b, const struct trace_call *c,
                        const struct tracer_function_desc *fn) {
  if (c->failed || (fn->meaning != TRACER_MEANING_ALLOC && fn->meaning != TRACER_MEANING_FREE))
    return 0;
  int64_t delta = 0;
  if (fn->meaning == TRACER_MEANING_ALLOC) {
    const struct trace_arg *size = arg_named(c, fn->bytes_param);
    const struct trace_arg *result = arg_named(c, "result");
    if (!size || !result || result->kind != TRACE_ARG_POINTER || !result->v.u)
      return 0;
    struct allocation *a = allocation_slot(b, c->pid, result->v.u, true);
    if (!a)
      return 0;
    if (!a->handle)
      b->allocation_count++;
    else
      delta -= (int64_t)a->bytes;
    *a = (struct allocation){c->pid, result->v.u, size->v.u};
    delta += (int64_t)size->v.u;
  } else {
    for (size_t i = 0; i < c->arg_count && !delta; i++) {
      if (c->args[i].kind != TRACE_ARG_POINTER || !c->args[i].v.u)
        continue;
      struct allocation *a = allocation_slot(b, c->pid, c->args[i].v.u, false);
      if (!a)
        continue;
      delta = -(int64_t)a->bytes;
      /* Deleting from open addressing: re-insert the rest of the run. */
      size_t at = (size_t)(a - b->allocations);
      a->handle = 0;
      b->allocation_count--;
      for (size_t k = (at + 1) & (b->allocation_cap - 1); b->allocations[k].handle;
           k = (k + 1) & (b->allocation_cap - 1)) {
        struct allocation moved = b->allocations[k];
        b->allocations[k].handle = 0;
        *allocation_slot(b, moved.pid, moved.handle, true) = moved;
      }
    }
    if (!delta)
      return 0;
  }
  struct process_memory *m = memory_of(b, c->from.host_name, c->pid);
  if (!m)
    return -1;
  m->bytes += delta;
  return timeline_counter(b->tl, m->counter, c->end, (double)m->bytes);
}

/* The thread's track; the last few are remembered, since calls come in runs. */
static timeline_track thread_track(struct timeline_builder *b, const struct trace_call *c) {
  struct recent_thread *r = &b->recent[(uint64_t)c->tid % RECENT_THREADS];
  if (r->track && r->tid == c->tid && r->pid == c->pid && r->host == c->from.host_name)
    return r->track;
  char name[64];
  snprintf(name, sizeof name, "thread %" PRId64, c->tid);
  timeline_track process = process_track(b, c->from.host_name, c->pid);
  timeline_track thread = timeline_thread(b->tl, process, c->pid, c->tid, name);
  /* The host string belongs to the trace (its env), so its address is a fair key. */
  *r = (struct recent_thread){c->from.host_name, c->pid, c->tid, thread};
  return thread;
}

static int on_call(void *context, const struct trace_call *c) {
  struct timeline_builder *b = context;
  const struct tracer_function_desc *fn = &c->desc->functions[c->function];
  timeline_track thread = thread_track(b, c);
  if (!thread)
    return -1;
  struct timeline_slice s = {.track = thread, .start = c->start, .end = c->end,
                             .name = fn->name, .args = c->args, .arg_count = c->arg_count,
                             .stable_names = true};
  /* A submission's stack, outermost frame first: an argument the slice shows when
   * clicked (trace_stacks.h). */
  struct trace_arg with_stack[TIMELINE_CALL_ARGS + 1];
  const char *stack = c->stack ? trace_stack_text(c->stack) : "";
  if (*stack && c->arg_count <= TIMELINE_CALL_ARGS) {
    memcpy(with_stack, c->args, c->arg_count * sizeof *c->args);
    with_stack[c->arg_count] =
        (struct trace_arg){.name = "stack", .kind = TRACE_ARG_STRING, .v.s = stack};
    s.args = with_stack;
    s.arg_count = c->arg_count + 1;
  }
  int kind = command_kind(fn->meaning);
  /* A device command recorded before its call returned names it exactly, whatever the
   * call means (an OMPT callback's row). */
  s.flow_out = take_exact(&b->devices, c->pid, c->tid, c->start);
  if (kind >= 0 && !c->failed && !s.flow_out) {
    s.flow_out = take(&b->devices, c->pid, kind, fn->name, c->start, false);
    if (!s.flow_out) {
      s.flow_out = ++b->next_flow;
      put(&b->calls, (struct pending){c->pid, kind, fn->name, c->start, s.flow_out, c->tid,
                                      c->start});
    }
  }
  if (timeline_slice(b->tl, &s))
    return -1;
  return track_memory(b, c, fn);
}

/* A region: a slice on its thread's track, around the calls made inside it. */
static int on_region(void *context, const struct trace_region *r) {
  struct timeline_builder *b = context;
  if (!r->has_ids)
    return 0;
  struct trace_call as_call = {.from.host_name = r->from.host_name, .pid = r->pid,
                               .tid = r->tid};
  timeline_track thread = thread_track(b, &as_call);
  if (!thread)
    return -1;
  struct trace_arg args[2] = {
      {.name = "backend", .kind = TRACE_ARG_STRING, .v.s = r->backend},
      {.name = "depth", .kind = TRACE_ARG_UINT, .v.u = r->depth},
  };
  /* Drawn from 1 ns before its start: a region opened by a call starts when the call
   * does, and that call's slice was written first (when it returned), so at equal times
   * Perfetto, which keeps them in written order, would put the region inside its own
   * opening call. */
  struct timeline_slice s = {.track = thread, .start = r->start ? r->start - 1 : 0,
                             .end = r->end, .name = r->name, .category = "region",
                             .args = args, .arg_count = 2};
  return timeline_slice(b->tl, &s);
}

static int on_device(void *context, const struct trace_device *d) {
  struct timeline_builder *b = context;
  if (!d->has_ids)
    return 0;
  char device_name[DEVICE_LABEL_SIZE], queue_name[DEVICE_QUEUE_LABEL_SIZE], name[160];
  const char *backend = d->desc ? d->desc->name : "unknown";
  device_label(backend, d->device, d->device_name, device_name, sizeof device_name);
  device_queue_label(d->queue, d->pid, queue_name, sizeof queue_name);
  timeline_track device = timeline_device(b->tl, timeline_host(b->tl, d->from.host_name),
                                           device_name);
  /* A queue is an address in its process: a forked child's may have its parent's. */
  timeline_track queue = timeline_queue(b->tl, device, d->queue ^ (uint64_t)d->pid << 48,
                                        queue_name);
  if (!queue)
    return -1;
  /* The enqueue function, named alone or with its copy's kind ("hipMemcpy(D2H)"). */
  const char *function = NULL, *direction = NULL;
  const char *paren = strchr(d->name, '(');
  size_t function_len = paren ? (size_t)(paren - d->name) : strlen(d->name);
  int index = d->desc ? backends_function_index(d->desc, d->name, function_len) : -1;
  if (index >= 0) {
    function = d->desc->functions[index].name;
    direction = d->desc->functions[index].direction;
  }
  char kind_of_copy[16] = "";
  if (!direction && paren && index >= 0) {
    for (size_t i = 0; paren[i + 1] && paren[i + 1] != ')' && i + 1 < sizeof kind_of_copy; i++)
      kind_of_copy[i] = (char)(paren[i + 1] >= 'A' && paren[i + 1] <= 'Z' ? paren[i + 1] + 32
                                                                           : paren[i + 1]);
    direction = kind_of_copy;
  }
  const char *colon = strchr(d->name, ':'); /* a row's value: "...:transfer_to_device" */
  if ((!direction || !*direction) && colon)
    direction = colon + 1;
  struct trace_arg args[5];
  size_t n = 0;
  const char *category = "command";
  if (d->kind == TRACER_COMMAND_KERNEL) {
    snprintf(name, sizeof name, "%s", d->name);
    category = "kernel";
  } else if (d->kind == TRACER_COMMAND_TRANSFER) {
    snprintf(name, sizeof name, "copy %s", direction ? direction : "");
    category = "copy";
    args[n++] = (struct trace_arg){.name = "bytes", .kind = TRACE_ARG_UINT, .v.u = d->bytes};
    if (d->end > d->start)
      args[n++] = (struct trace_arg){.name = "GB/s", .kind = TRACE_ARG_DOUBLE,
                                        .v.d = (double)d->bytes / (double)(d->end - d->start)};
  } else {
    snprintf(name, sizeof name, "%s", d->name);
  }
  if (function)
    args[n++] = (struct trace_arg){.name = "call", .kind = TRACE_ARG_STRING, .v.s = function};
  if (d->kind != TRACER_COMMAND_KERNEL && (!function || strcmp(function, d->name) != 0))
    args[n++] = (struct trace_arg){.name = "command", .kind = TRACE_ARG_STRING,
                                      .v.s = d->name};
  struct timeline_slice s = {.track = queue, .start = d->start, .end = d->end, .name = name,
                             .category = category, .args = args, .arg_count = n};
  if (d->call_tid) {
    s.flow_in = take_exact(&b->calls, d->pid, d->call_tid, d->call_start);
  } else {
    s.flow_in = take(&b->calls, d->pid, d->kind, function, d->start, true);
  }
  if (!s.flow_in) {
    s.flow_in = ++b->next_flow;
    put(&b->devices, (struct pending){d->pid, d->kind, function, d->start, s.flow_in,
                                      d->call_tid, d->call_start});
  }
  return timeline_slice(b->tl, &s);
}

/* A device counter that the sampler read (--sample): one counter track per device and
 * counter, under a track of the device as its management library names it. */
static int on_sample(void *context, const struct trace_sample *s) {
  struct timeline_builder *b = context;
  if (s->why)
    return 0;
  char device_name[192], counter_name[128];
  snprintf(device_name, sizeof device_name, "%s %u: %s", s->backend, s->device, s->device_name);
  snprintf(counter_name, sizeof counter_name, "%s (%s)", s->counter, s->unit);
  timeline_track device = timeline_device(b->tl, timeline_host(b->tl, s->from.host_name),
                                           device_name);
  timeline_track counter = device ? timeline_counter_track(b->tl, device, counter_name,
                                                           strcmp(s->unit, "B") == 0
                                                               ? TIMELINE_UNIT_BYTES
                                                               : TIMELINE_UNIT_COUNT)
                                  : 0;
  if (!counter)
    return -1;
  return timeline_counter(b->tl, counter, s->from.time, s->value);
}

int timeline_builder_open(struct timeline *tl, const struct timeline_build_options *options,
                          struct timeline_builder **out, struct trace_consumer *consumer,
                          struct diag *d) {
  struct timeline_builder *b = calloc(1, sizeof *b);
  *out = b;
  if (!b)
    return diag_error(d, "Cannot write the timeline: out of memory");
  b->tl = tl;
  b->options = options;
  b->next_flow = options->flow_base;
  struct trace_consumer mine = {
      .name = "timeline",
      .needs = TRACE_NEEDS_ORDER | TRACE_NEEDS_TIMES | TRACE_NEEDS_ARGS,
      .context = b,
      .call = on_call,
      .device = on_device,
      .region = on_region,
      .rank = on_rank,
      .sample = on_sample,
  };
  *consumer = mine;
  return 0;
}

int timeline_builder_close(struct timeline_builder *b, struct diag *d) {
  if (!b)
    return -1;
  int rc = 0;
  if (timeline_error(b->tl)[0]) {
    diag_error(d, "%s", timeline_error(b->tl));
    rc = -1;
  }
  for (size_t i = 0; i < b->memory_count; i++)
    free((char *)b->memory[i].host);
  free(b->memory);
  free(b->allocations);
  free(b->ranks);
  free(b);
  return rc;
}

int timeline_build(struct trace_reader *reader, struct timeline *tl,
                   const struct timeline_build_options *options, struct diag *d) {
  struct timeline_builder *b;
  struct trace_consumer consumer;
  if (timeline_builder_open(tl, options, &b, &consumer, d))
    return -1;
  const struct trace_consumer *consumers[] = {&consumer};
  struct trace_read_options read_options = {.threads = options->threads};
  enum trace_read_status read = trace_read(reader, consumers, 1, &read_options, d);
  int rc = timeline_builder_close(b, d);
  return read == TRACE_READ_OK && rc == 0 ? 0 : -1;
}
