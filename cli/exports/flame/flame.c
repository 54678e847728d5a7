/* flame: see flame.h. */
#include "flame.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "call_stacks.h"
#include "flame_pc_samples.h"
#include "flame_svg.h"
#include "key_map.h"
#include "name_table.h"
#include "tracer_backend_desc.h"

enum {
  /* The last calls that may have submitted device work, for the commands that come
   * after them (a command names its call by thread and start). */
  SUBMITTERS = 1 << 16,
  NO_NODE = UINT32_MAX,
};

/* One distinct stack: its last frame under its parent's stack. */
struct node {
  uint32_t parent, name;
  /* Host time: the calls' own time (less that of the calls made inside them), and how
   * many calls that is net of those inside, for the clock reads taken off at the end. */
  int64_t host_ns, host_calls;
  uint64_t device_ns;
};

struct submitter {
  int64_t pid, tid;
  uint64_t start;
  uint32_t node;
  bool used;
};

/* A device command whose submitting call has not been handed out yet. */
struct parked {
  int host;
  const char *host_name;
  int64_t pid, tid;
  uint64_t call_start, ns;
  uint32_t name;
  uint32_t next;             /* the next command of the same call, or NO_NODE */
  bool done;
  const struct trace_stack *stack; /* its call's, as the command names it; may be NULL */
};

/* A thread's nodes, one per frame open on it. */
struct flame_thread {
  uint32_t *nodes;
  size_t cap;
};

struct flame {
  struct flame_options options;
  struct call_stacks *stacks;
  struct name_table names;   /* frame names, as written (';' and newlines replaced) */
  /* Frame names by the address of the name a frame has: functions' names are static and
   * regions' interned by call_stacks, so the address says the name. */
  struct key_map name_of_address;
  struct node *nodes;
  uint32_t node_count, node_cap;
  struct key_map children;   /* parent << 32 | name -> node + 1 */
  struct key_map roots;      /* process -> node + 1 */
  uint32_t dash;             /* the name "-" between a call and its device work */
  struct submitter *submitters;
  size_t submitter_next;
  struct key_map by_call;    /* a submitter's key -> its index + 1 */
  struct parked *parked;
  uint32_t parked_len, parked_cap, parked_open;
  struct key_map parked_by_call; /* key -> first parked + 1 */
  /* What one clock read costs (the least measured in the read): each call's recorded time
   * holds one, which the tally takes off, and so do the host-time weights. */
  uint64_t clock_read_ns;
  bool has_clock_read;
  /* The GPU's samples of the kernels' instructions (--pc-sampling), by process root. */
  struct flame_pc_samples pc_samples;
  bool failed;               /* out of memory */
};

/* ---- Frames and stacks --------------------------------------------------------------- */

static uint32_t frame_name(struct flame *f, const char *name, size_t len) {
  if (!strpbrk(name, ";\n\r")) /* most: taken as they are */
    return name_table_id(&f->names, name, len);
  char clean[512];
  if (len >= sizeof clean)
    len = sizeof clean - 1;
  for (size_t i = 0; i < len; i++)
    clean[i] = name[i] == ';' ? ':' : name[i] == '\n' || name[i] == '\r' ? ' ' : name[i];
  return name_table_id(&f->names, clean, len);
}

static uint32_t child(struct flame *f, uint32_t parent, uint32_t name) {
  if (name == UINT32_MAX)
    return NO_NODE;
  bool added;
  uint64_t *slot = key_map_put(&f->children, (uint64_t)parent << 32 | name, &added);
  if (!slot)
    return NO_NODE;
  if (!added)
    return (uint32_t)(*slot - 1);
  if (f->node_count == f->node_cap) {
    uint32_t cap = f->node_cap ? f->node_cap * 2 : 1024;
    struct node *grown = realloc(f->nodes, cap * sizeof *grown);
    if (!grown) {
      key_map_remove(&f->children, (uint64_t)parent << 32 | name);
      return NO_NODE;
    }
    f->nodes = grown;
    f->node_cap = cap;
  }
  f->nodes[f->node_count] = (struct node){parent, name, 0, 0, 0};
  *slot = ++f->node_count;
  return f->node_count - 1;
}

/* The root frame of a process: `rank N` (its first process; a forked one says its pid
 * too), else `APP (pid N)`. */
static uint32_t root_of(struct flame *f, int host, int64_t pid) {
  uint64_t key = (uint64_t)(uint32_t)host << 32 | (uint32_t)pid;
  uint64_t *known = key_map_get(&f->roots, key);
  if (known)
    return (uint32_t)(*known - 1);
  char name[300];
  const struct flame_options *o = &f->options;
  if (o->rank >= 0 && f->roots.len)
    snprintf(name, sizeof name, "rank %ld pid %" PRId64, o->rank, pid);
  else if (o->rank >= 0)
    snprintf(name, sizeof name, "rank %ld", o->rank);
  else if (o->app_name)
    snprintf(name, sizeof name, "%s (pid %" PRId64 ")", o->app_name, pid);
  else
    snprintf(name, sizeof name, "pid %" PRId64, pid);
  uint32_t node = child(f, NO_NODE, frame_name(f, name, strlen(name)));
  bool added;
  uint64_t *slot = node == NO_NODE ? NULL : key_map_put(&f->roots, key, &added);
  if (!slot)
    return NO_NODE;
  *slot = node + 1;
  return node;
}

/* The device command's line under node: node;-;NAME. */
static void add_device(struct flame *f, uint32_t node, uint32_t name, uint64_t ns) {
  uint32_t leaf = child(f, child(f, node, f->dash), name);
  if (leaf == NO_NODE)
    f->failed = true;
  else
    f->nodes[leaf].device_ns += ns;
}

static uint64_t call_key(int64_t pid, int64_t tid, uint64_t start) {
  return key_mix((uint64_t)(uint32_t)pid << 32 | (uint32_t)tid, start);
}

static void remember_submitter(struct flame *f, const struct stack_thread *t, uint64_t start,
                               uint32_t node) {
  struct submitter *s = &f->submitters[f->submitter_next];
  if (s->used) {
    uint64_t *old = key_map_get(&f->by_call, call_key(s->pid, s->tid, s->start));
    if (old && *old == f->submitter_next + 1)
      key_map_remove(&f->by_call, call_key(s->pid, s->tid, s->start));
  }
  *s = (struct submitter){t->pid, t->tid, start, node, true};
  bool added;
  uint64_t *slot = key_map_put(&f->by_call, call_key(t->pid, t->tid, start), &added);
  if (slot)
    *slot = f->submitter_next + 1;
  f->submitter_next = (f->submitter_next + 1) % SUBMITTERS;
}

/* The stack of the call of this thread that started at start, within the 1 ns by which
 * two conversions of one clock value may differ; NO_NODE when not known. */
static uint32_t submitter_node(const struct flame *f, int64_t pid, int64_t tid, uint64_t start) {
  for (int delta = 0; delta < 3; delta++) {
    uint64_t at = delta == 0 ? start : delta == 1 ? start - 1 : start + 1;
    uint64_t *index = key_map_get(&f->by_call, call_key(pid, tid, at));
    const struct submitter *s = index ? &f->submitters[*index - 1] : NULL;
    if (s && s->pid == pid && s->tid == tid && s->start == at)
      return s->node;
  }
  return NO_NODE;
}

/* A call handed out: the commands that waited for it go under its stack. */
static void unpark(struct flame *f, const struct stack_thread *t, uint64_t start, uint32_t node) {
  for (int delta = 0; delta < 3 && f->parked_open; delta++) {
    uint64_t at = delta == 0 ? start : delta == 1 ? start - 1 : start + 1;
    uint64_t *first = key_map_get(&f->parked_by_call, call_key(t->pid, t->tid, at));
    if (!first)
      continue;
    for (uint32_t i = (uint32_t)(*first - 1); i != NO_NODE; i = f->parked[i].next) {
      struct parked *p = &f->parked[i];
      if (p->done || p->pid != t->pid || p->tid != t->tid || p->call_start != at)
        continue;
      add_device(f, node, p->name, p->ns);
      p->done = true;
      f->parked_open--;
    }
  }
}

static int park(struct flame *f, const struct trace_device *d, uint32_t name) {
  if (f->parked_len == f->parked_cap) {
    uint32_t cap = f->parked_cap ? f->parked_cap * 2 : 64;
    struct parked *grown = realloc(f->parked, cap * sizeof *grown);
    if (!grown)
      return -1;
    f->parked = grown;
    f->parked_cap = cap;
  }
  bool added;
  uint64_t *first = key_map_put(&f->parked_by_call, call_key(d->pid, d->call_tid, d->call_start),
                                &added);
  if (!first)
    return -1;
  f->parked[f->parked_len] = (struct parked){d->from.host, d->from.host_name, d->pid, d->call_tid,
                                             d->call_start, d->duration_ns, name,
                                             added ? NO_NODE : (uint32_t)(*first - 1), false,
                                             d->stack};
  *first = ++f->parked_len;
  f->parked_open++;
  return 0;
}

/* ---- The stacks' sink ---------------------------------------------------------------- */

/* The stack a call came with (its payload's first word, on_call). */
static const struct trace_stack *stack_in(const struct stack_frame *frame) {
  return (const struct trace_stack *)(uintptr_t)frame->payload[0];
}

/* A call of a thread other than its process's main one, with nothing open around it (a
 * helper thread: PyTorch's autograd threads, a data loader's): under the regions open on
 * the main thread at its start, when there were any, then a frame `[thread TID]` that
 * says the regions above it are inherited. Else under node as it is. */
static uint32_t inherited(struct flame *f, const struct stack_thread *t, uint64_t start,
                          uint32_t node) {
  const struct stack_frame *regions[64];
  size_t n = call_stacks_regions_at(f->stacks, t->host, t->pid, t->pid, start, regions,
                                    sizeof regions / sizeof *regions);
  if (!n)
    return node;
  for (size_t i = 0; i < n && node != NO_NODE; i++)
    node = child(f, node, frame_name(f, regions[i]->name, strlen(regions[i]->name)));
  char marker[48];
  int len = snprintf(marker, sizeof marker, "[thread %" PRId64 "]", t->tid);
  return node == NO_NODE ? NO_NODE : child(f, node, frame_name(f, marker, (size_t)len));
}

/* The node of a submission's last Python or native frame, under node. */
static uint32_t under_stack(struct flame *f, uint32_t node, const struct trace_stack *s) {
  const struct trace_frame *frames;
  size_t n = trace_stack_frames(s, &frames);
  for (size_t i = 0; i < n && node != NO_NODE; i++)
    node = child(f, node, frame_name(f, frames[i].label, strlen(frames[i].label)));
  return node;
}

static int on_enter(void *context, struct stack_thread *t, const struct stack_frame *frame,
                    const struct stack_frame *const *stack, size_t depth) {
  (void)stack;
  struct flame *f = context;
  struct flame_thread *ft = t->user;
  if (!ft && !(ft = t->user = calloc(1, sizeof *ft)))
    return -1;
  if (depth >= ft->cap) {
    size_t cap = ft->cap ? ft->cap * 2 : 16;
    uint32_t *grown = realloc(ft->nodes, cap * sizeof *grown);
    if (!grown)
      return -1;
    ft->nodes = grown;
    ft->cap = cap;
  }
  uint32_t parent = depth ? ft->nodes[depth - 1] : root_of(f, t->host, t->pid);
  if (!depth && frame->kind == STACK_CALL && t->tid != t->pid)
    parent = inherited(f, t, frame->start, parent);
  /* A submission's stack goes between what was open around it and the call: the Python
   * and native frames it came from, once (a call made inside it has the same). */
  const struct trace_stack *from = frame->kind == STACK_CALL ? stack_in(frame) : NULL;
  if (from && (!depth || stack[depth - 1]->kind != STACK_CALL || stack_in(stack[depth - 1]) != from))
    parent = under_stack(f, parent, from);
  bool added;
  uint64_t *name = key_map_put(&f->name_of_address, (uint64_t)(uintptr_t)frame->name, &added);
  if (name && added)
    *name = frame_name(f, frame->name, strlen(frame->name));
  uint32_t node = name ? child(f, parent, (uint32_t)*name) : NO_NODE;
  if (parent == NO_NODE || node == NO_NODE)
    return -1;
  ft->nodes[depth] = node;
  if (frame->kind != STACK_CALL)
    return 0;
  enum tracer_meaning m = frame->desc->functions[frame->function].meaning;
  if (m == TRACER_MEANING_KERNEL_LAUNCH || m == TRACER_MEANING_TRANSFER ||
      m == TRACER_MEANING_COMMAND || f->parked_open)
    remember_submitter(f, t, frame->start, node);
  if (f->parked_open)
    unpark(f, t, frame->start, node);
  return f->failed ? -1 : 0;
}

static int on_leave(void *context, struct stack_thread *t, const struct stack_frame *frame,
                    const struct stack_frame *const *stack, size_t depth) {
  (void)context;
  (void)stack;
  struct flame_thread *ft = t->user;
  if (frame->kind == STACK_CALL && ft && depth < ft->cap) {
    struct flame *f = context;
    struct node *n = &f->nodes[ft->nodes[depth]];
    n->host_ns += (int64_t)frame->duration_ns - (int64_t)frame->child_ns;
    n->host_calls += 1 - (int64_t)frame->child_calls;
  }
  return 0;
}

static void on_forget(void *context, struct stack_thread *t) {
  (void)context;
  struct flame_thread *ft = t->user;
  if (ft)
    free(ft->nodes);
  free(ft);
  t->user = NULL;
}

/* ---- The reader's consumer ------------------------------------------------------------ */

/* A frame met in a first read that encloses what was counted (call_stacks.h): a second
 * read counts everything again. */
static void start_over(struct flame *f) {
  f->node_count = 0;
  key_map_clear(&f->children);
  key_map_clear(&f->roots);
  key_map_clear(&f->by_call);
  key_map_clear(&f->parked_by_call);
  memset(f->submitters, 0, SUBMITTERS * sizeof *f->submitters);
  f->submitter_next = 0;
  f->parked_len = f->parked_open = 0;
}

static int on_call(void *context, const struct trace_call *c) {
  struct flame *f = context;
  uint64_t payload[STACK_PAYLOAD] = {(uint64_t)(uintptr_t)c->stack};
  int rc = call_stacks_call(f->stacks, c, c->stack ? payload : NULL);
  if (rc == 1)
    start_over(f);
  return rc < 0 ? -1 : 0;
}

static int on_region(void *context, const struct trace_region *r) {
  struct flame *f = context;
  int rc = call_stacks_region(f->stacks, r);
  if (rc == 1)
    start_over(f);
  return rc < 0 ? -1 : 0;
}

static int on_device(void *context, const struct trace_device *d) {
  struct flame *f = context;
  if (call_stacks_collecting(f->stacks) || d->backend < 0) /* the tally counts no other */
    return 0;
  uint32_t name = frame_name(f, d->name, d->name_len);
  if (name == UINT32_MAX)
    return -1;
  uint32_t node = d->call_tid ? submitter_node(f, d->pid, d->call_tid, d->call_start) : NO_NODE;
  if (node == NO_NODE && d->call_tid) /* its call is still to come, or waits */
    return park(f, d, name);
  if (node == NO_NODE) /* no call named: under its stack where the command has one */
    node = d->stack ? under_stack(f, root_of(f, d->from.host, d->pid), d->stack)
                    : root_of(f, d->from.host, d->pid);
  if (node == NO_NODE)
    return -1;
  add_device(f, node, name, d->duration_ns);
  return f->failed ? -1 : 0;
}

/* A counted function's calls, added up: a line of their own under the process. */
static int on_counted(void *context, const struct trace_counted *c) {
  struct flame *f = context;
  if (call_stacks_collecting(f->stacks))
    return 0;
  const char *name = c->desc->functions[c->function].name;
  uint32_t node = child(f, root_of(f, c->from.host, c->pid), frame_name(f, name, strlen(name)));
  if (node == NO_NODE)
    return -1;
  f->nodes[node].host_ns += (int64_t)c->total_ns;
  f->nodes[node].host_calls += (int64_t)c->calls;
  return 0;
}

static int on_cost(void *context, const struct trace_cost *c) {
  struct flame *f = context;
  if (c->kind == TRACE_COST_CLOCK_READ &&
      (!f->has_clock_read || c->clock_read_ns < f->clock_read_ns)) {
    f->clock_read_ns = c->clock_read_ns;
    f->has_clock_read = true;
  }
  return 0;
}

static int on_pc_sample(void *context, const struct trace_pc_sample *s) {
  struct flame *f = context;
  if (call_stacks_collecting(f->stacks))
    return 0;
  uint32_t root = root_of(f, s->from.host, s->pid);
  uint32_t kernel = frame_name(f, s->function, s->function_len);
  uint32_t stall = frame_name(f, s->stall, s->stall_len);
  if (root == NO_NODE || kernel == UINT32_MAX || stall == UINT32_MAX ||
      flame_pc_samples_add(&f->pc_samples, root, kernel, s->pc_offset, stall, s->samples))
    return -1;
  return 0;
}

/* Each kernel's frame with PC samples: its device time shared out over frames below it,
 * one per instruction (`+0xOFFSET`) and under it one per stall reason, as its samples
 * are (flame_pc_samples.h). */
static int split_by_samples(struct flame *f) {
  uint64_t *parts = NULL;
  size_t parts_cap = 0;
  uint32_t before = f->node_count; /* the frames made here are not split again */
  for (uint32_t i = 0; i < before && f->pc_samples.count && !f->failed; i++) {
    uint32_t parent = f->nodes[i].parent;
    uint64_t ns = f->nodes[i].device_ns;
    if (!ns || parent == NO_NODE || f->nodes[parent].name != f->dash)
      continue;
    uint32_t root = i;
    while (f->nodes[root].parent != NO_NODE)
      root = f->nodes[root].parent;
    const struct flame_pc_sample *samples;
    size_t n = flame_pc_samples_of(&f->pc_samples, root, f->nodes[i].name, &samples);
    if (!n)
      continue;
    if (n > parts_cap) {
      uint64_t *grown = realloc(parts, n * sizeof *grown);
      if (!grown) {
        f->failed = true;
        break;
      }
      parts = grown, parts_cap = n;
    }
    flame_pc_share(ns, samples, n, parts);
    f->nodes[i].device_ns = 0;
    for (size_t k = 0; k < n && !f->failed; k++) {
      if (!parts[k])
        continue;
      char pc[32];
      int len = snprintf(pc, sizeof pc, "+0x%" PRIx64, samples[k].pc_offset);
      uint32_t at = child(f, i, frame_name(f, pc, (size_t)len));
      uint32_t leaf = at == NO_NODE ? NO_NODE : child(f, at, samples[k].stall);
      if (leaf == NO_NODE)
        f->failed = true;
      else
        f->nodes[leaf].device_ns += parts[k];
    }
  }
  free(parts);
  return f->failed ? -1 : 0;
}

static int on_horizon(void *context, uint64_t until) {
  struct flame *f = context;
  return call_stacks_horizon(f->stacks, until);
}

static int on_finish(void *context, const struct trace_summary *summary) {
  (void)summary;
  struct flame *f = context;
  int rc = call_stacks_finish(f->stacks);
  if (rc)
    return rc;
  /* Commands whose call never came: under their process. */
  for (uint32_t i = 0; i < f->parked_len && f->parked_open; i++) {
    struct parked *p = &f->parked[i];
    if (p->done)
      continue;
    uint32_t root = root_of(f, p->host, p->pid);
    if (root != NO_NODE && p->stack)
      root = under_stack(f, root, p->stack);
    if (root == NO_NODE)
      return -1;
    add_device(f, root, p->name, p->ns);
    p->done = true;
    f->parked_open--;
  }
  return f->failed ? -1 : split_by_samples(f);
}

static void flame_free(struct flame *f) {
  if (!f)
    return;
  call_stacks_close(f->stacks);
  name_table_free(&f->names);
  key_map_free(&f->name_of_address);
  free(f->nodes);
  key_map_free(&f->children);
  key_map_free(&f->roots);
  free(f->submitters);
  key_map_free(&f->by_call);
  free(f->parked);
  key_map_free(&f->parked_by_call);
  flame_pc_samples_free(&f->pc_samples);
  free(f);
}

int flame_open(const struct flame_options *options, struct flame **out,
               struct trace_consumer *consumer, struct diag *d) {
  *out = NULL;
  struct flame *f = calloc(1, sizeof *f);
  struct stack_sink sink = {f, on_enter, on_leave, on_forget};
  if (f) {
    f->options = *options;
    f->submitters = calloc(SUBMITTERS, sizeof *f->submitters);
    f->stacks = call_stacks_open(&sink);
    f->dash = name_table_id(&f->names, "-", 1);
  }
  if (!f || !f->submitters || !f->stacks || f->dash == UINT32_MAX) {
    flame_free(f);
    return diag_error(d, "Cannot write the folded stacks: out of memory");
  }
  *out = f;
  *consumer = (struct trace_consumer){
      .name = "flame",
      .needs = TRACE_NEEDS_ORDER | TRACE_NEEDS_TIMES | TRACE_NEEDS_HORIZON,
      .context = f,
      .call = on_call,
      .device = on_device,
      .region = on_region,
      .counted = on_counted,
      .cost = on_cost,
      .pc_sample = on_pc_sample,
      .horizon = on_horizon,
      .finish = on_finish,
  };
  return 0;
}

/* ---- Writing -------------------------------------------------------------------------- */

void flame_host_path(const char *path, char *out, size_t size) {
  const char *slash = strrchr(path, '/');
  const char *dot = strrchr(path, '.');
  if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : path))
    snprintf(out, size, "%s.host", path);
  else
    snprintf(out, size, "%.*s.host%s", (int)(dot - path), path, dot);
}

/* Each node's own host time less its calls' clock reads, in weights[node]. Calls faster
 * than the least clock read measured leave a node below zero, which a folded line cannot
 * say: the remainder goes to its parent, whose time held the child's, so every stack's
 * time (its node with all below it) stays what the tally counts of its calls. A parent
 * comes before its children in f->nodes. */
static void host_weights(const struct flame *f, int64_t *weights) {
  for (uint32_t i = 0; i < f->node_count; i++)
    weights[i] = f->nodes[i].host_ns - (int64_t)f->clock_read_ns * f->nodes[i].host_calls;
  for (uint32_t i = f->node_count; i-- > 0;)
    if (weights[i] < 0) {
      if (f->nodes[i].parent != NO_NODE)
        weights[f->nodes[i].parent] += weights[i];
      weights[i] = 0;
    }
}

/* Each node with a weight of that side, as `frames weight`. */
static int write_lines(const struct flame *f, bool device, FILE *out, uint64_t *lines,
                       uint64_t *total) {
  uint32_t chain[512];
  int64_t *host = NULL;
  if (!device && f->node_count) {
    host = malloc(f->node_count * sizeof *host);
    if (!host)
      return -1;
    host_weights(f, host);
  }
  for (uint32_t i = 0; i < f->node_count; i++) {
    const struct node *node = &f->nodes[i];
    uint64_t w = device ? node->device_ns : (uint64_t)host[i];
    if (!w)
      continue;
    size_t n = 0;
    for (uint32_t k = i; k != NO_NODE && n < sizeof chain / sizeof *chain; k = f->nodes[k].parent)
      chain[n++] = k;
    while (n--)
      fprintf(out, "%s%c", name_table_name(&f->names, f->nodes[chain[n]].name), n ? ';' : ' ');
    fprintf(out, "%" PRIu64 "\n", w);
    (*lines)++;
    *total += w;
  }
  free(host);
  return ferror(out) ? -1 : 0;
}

/* path written whole through path.tmp; fill writes into the stream. */
static int write_file(const char *path, int (*fill)(FILE *, void *), void *context,
                      struct diag *d) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
    return diag_error(d, "Cannot write the folded stacks: file=%s: name too long", path);
  FILE *out = fopen(tmp, "w");
  if (!out)
    return diag_error(d, "Cannot write the folded stacks: file=%s: %s", path, strerror(errno));
  int rc = fill(out, context);
  if (fclose(out) != 0)
    rc = -1;
  if (rc == 0 && rename(tmp, path) != 0)
    rc = -1;
  if (rc) {
    int saved = errno;
    unlink(tmp);
    return diag_error(d, "Cannot write the folded stacks: file=%s: %s", path,
                      saved ? strerror(saved) : "write error");
  }
  return 0;
}

struct side {
  const struct flame *f;
  bool device;
  struct flame_stats *stats;
};

static int fill_side(FILE *out, void *context) {
  struct side *s = context;
  return s->device ? write_lines(s->f, true, out, &s->stats->device_lines, &s->stats->device_ns)
                   : write_lines(s->f, false, out, &s->stats->host_lines, &s->stats->host_ns);
}

/* An SVG flame graph (flame_svg.h) of what fill writes as folded lines. */
struct drawn {
  int (*fill)(FILE *, void *);
  void *context;
  bool device;
};

static int fill_svg(FILE *out, void *context) {
  struct drawn *dr = context;
  char *folded = NULL;
  size_t size = 0;
  FILE *lines = open_memstream(&folded, &size);
  if (!lines)
    return -1;
  int rc = dr->fill(lines, dr->context);
  if (fclose(lines) != 0)
    rc = -1;
  FILE *in = rc == 0 ? fmemopen(folded, size ? size : 1, "r") : NULL;
  if (rc == 0 && !in)
    rc = -1;
  if (rc == 0)
    rc = flame_svg_write(in, out,
                         dr->device ? "Device time under the code that launched it"
                                    : "Host time in the API calls, under the code that made them",
                         "ns");
  if (in)
    fclose(in);
  free(folded);
  return rc;
}

/* path written from fill's folded lines: as they are, or drawn when path ends in .svg. */
static int write_side(const char *path, int (*fill)(FILE *, void *), void *context, bool device,
                      struct diag *d) {
  if (!flame_svg_path(path))
    return write_file(path, fill, context, d);
  struct drawn dr = {fill, context, device};
  return write_file(path, fill_svg, &dr, d);
}

int flame_close(struct flame *f, bool read_failed, struct flame_stats *stats, struct diag *d) {
  struct flame_stats mine = {0};
  int rc = 0;
  if (!f)
    return -1;
  if (read_failed || f->failed) {
    rc = diag_error(d, "Cannot write the folded stacks: file=%s: %s", f->options.path,
                    f->failed ? "out of memory" : "the trace could not be read");
  } else {
    char host[4096];
    flame_host_path(f->options.path, host, sizeof host);
    struct side device_side = {f, true, &mine}, host_side = {f, false, &mine};
    rc = write_side(f->options.path, fill_side, &device_side, true, d);
    if (rc == 0)
      rc = write_side(host, fill_side, &host_side, false, d);
  }
  if (stats)
    *stats = mine;
  flame_free(f);
  return rc;
}

/* ---- A job's files ------------------------------------------------------------------- */

struct join {
  const char *const *parts;
  size_t n;
  bool host;
  uint64_t *lines, *total;
};

/* Appends each part's lines, adding up their weights. */
static int fill_join(FILE *out, void *context) {
  struct join *j = context;
  char line[1 << 16], path[4096];
  for (size_t i = 0; i < j->n; i++) {
    if (!j->parts[i])
      continue;
    if (j->host)
      flame_host_path(j->parts[i], path, sizeof path);
    else
      snprintf(path, sizeof path, "%s", j->parts[i]);
    FILE *in = fopen(path, "r");
    if (!in)
      continue; /* a rank that wrote none (untraced, or it failed and said why) */
    while (fgets(line, sizeof line, in)) {
      const char *space = strrchr(line, ' ');
      *j->total += space ? strtoull(space + 1, NULL, 10) : 0;
      (*j->lines)++;
      fputs(line, out);
    }
    int bad = ferror(in);
    fclose(in);
    if (bad)
      return -1;
  }
  return ferror(out) ? -1 : 0;
}

int flame_join(const char *const *parts, size_t n, const char *path, struct flame_stats *stats,
               struct diag *d) {
  struct flame_stats mine = {0};
  char host[4096];
  flame_host_path(path, host, sizeof host);
  struct join device_join = {parts, n, false, &mine.device_lines, &mine.device_ns};
  struct join host_join = {parts, n, true, &mine.host_lines, &mine.host_ns};
  int rc = write_side(path, fill_join, &device_join, true, d);
  if (rc == 0)
    rc = write_side(host, fill_join, &host_join, false, d);
  if (stats)
    *stats = mine;
  return rc;
}
