/* collectives_ties: see collectives_ties.h. */
#include "collectives_ties.h"

#include <stdlib.h>
#include <string.h>

#include "tracer_device.h"

/* What a launch was found to belong to. */
enum target { TARGET_OPEN, TARGET_NONE, TARGET_ROW, TARGET_GROUP };

struct launch {
  int host;
  int64_t pid, tid;
  int backend;
  uint64_t start;           /* wall-clock ns, as its device command names it */
  unsigned depth;
  uint8_t target;           /* enum target */
  bool matched;             /* its kernel came */
  size_t target_index;      /* the row, or the group */
  uint64_t device_ns;       /* its kernel's time, when it came before the target */
};

struct member {
  size_t row;
  uint64_t size;
};

/* A group's operations, kept while launches of its end wait for their kernels. */
struct group {
  struct member *members;   /* owned; NULL: a free slot */
  size_t count;
  size_t waiting;           /* launches tied to it whose kernel has not come */
};

struct thread {
  int host;
  int64_t tid;
  unsigned group_depth;     /* ncclGroupStart without its end yet */
  struct member *members;   /* the open group's operations; owned */
  size_t member_count, member_cap;
  uint64_t *pending;        /* its launches not done, oldest first (ring positions); owned */
  size_t pending_count, pending_cap;
};

struct ties {
  struct collectives *table;
  struct launch *ring;      /* launch n at ring[n % COLLECTIVES_LAUNCHES]; owned */
  uint64_t head, next;      /* launches [head, next) are kept */
  struct thread *threads;   /* owned */
  size_t thread_count, thread_cap, last_thread;
  struct group *groups;     /* owned */
  size_t group_count;
};

static struct launch *launch_at(struct ties *t, uint64_t n) {
  return &t->ring[n % COLLECTIVES_LAUNCHES];
}

static bool kept(const struct ties *t, uint64_t n) { return n >= t->head && n < t->next; }

static bool done(const struct launch *l) { return l->matched && l->target != TARGET_OPEN; }

struct ties *ties_new(struct collectives *table) {
  struct ties *t = calloc(1, sizeof *t);
  if (t && !(t->ring = calloc(COLLECTIVES_LAUNCHES, sizeof *t->ring))) {
    free(t);
    t = NULL;
  }
  if (t)
    t->table = table;
  return t;
}

void ties_free(struct ties *t) {
  if (!t)
    return;
  for (size_t i = 0; i < t->thread_count; i++) {
    free(t->threads[i].members);
    free(t->threads[i].pending);
  }
  for (size_t i = 0; i < t->group_count; i++)
    free(t->groups[i].members);
  free(t->threads);
  free(t->groups);
  free(t->ring);
  free(t);
}

static struct thread *thread_of(struct ties *t, int host, int64_t tid, bool add) {
  if (t->last_thread < t->thread_count && t->threads[t->last_thread].tid == tid &&
      t->threads[t->last_thread].host == host)
    return &t->threads[t->last_thread];
  for (size_t i = 0; i < t->thread_count; i++)
    if (t->threads[i].tid == tid && t->threads[i].host == host) {
      t->last_thread = i;
      return &t->threads[i];
    }
  if (!add)
    return NULL;
  if (t->thread_count == t->thread_cap) {
    size_t cap = t->thread_cap ? 2 * t->thread_cap : 16;
    struct thread *grown = realloc(t->threads, cap * sizeof *grown);
    if (!grown)
      return NULL;
    t->threads = grown;
    t->thread_cap = cap;
  }
  struct thread *th = &t->threads[t->thread_count];
  memset(th, 0, sizeof *th);
  th->host = host;
  th->tid = tid;
  t->last_thread = t->thread_count++;
  return th;
}

/* ---- device time into the rows ---- */

static void add_to_row(struct ties *t, size_t row, uint64_t ns, uint64_t kernels) {
  t->table->rows[row].device_ns += ns;
  t->table->rows[row].kernels += kernels;
}

/* A group's kernel: shared among its operations by their sizes (equally when none has a
 * size), each row counting the kernel; the shares add up to ns exactly. */
static void add_to_group(struct ties *t, const struct group *g, uint64_t ns) {
  uint64_t total = 0, given = 0;
  for (size_t i = 0; i < g->count; i++)
    total += g->members[i].size;
  for (size_t i = 0; i < g->count; i++) {
    uint64_t share = i + 1 == g->count ? ns - given
                     : total           ? (uint64_t)((double)ns * (double)g->members[i].size /
                                                    (double)total)
                                       : ns / g->count;
    if (share > ns - given)
      share = ns - given;
    given += share;
    add_to_row(t, g->members[i].row, share, 1);
  }
}

static void group_release(struct ties *t, size_t index) {
  struct group *g = &t->groups[index];
  if (g->waiting && --g->waiting == 0) {
    free(g->members);
    g->members = NULL;
    g->count = 0;
  }
}

/* The launch's kernel and its target are both known: its time goes where it belongs. */
static void settle(struct ties *t, struct launch *l, uint64_t ns) {
  if (l->target == TARGET_ROW)
    add_to_row(t, l->target_index, ns, 1);
  else if (l->target == TARGET_GROUP)
    add_to_group(t, &t->groups[l->target_index], ns);
}

static void resolve(struct ties *t, struct launch *l, enum target target, size_t index) {
  l->target = (uint8_t)target;
  l->target_index = index;
  if (l->matched)
    settle(t, l, l->device_ns);
  else if (target == TARGET_GROUP)
    t->groups[index].waiting++;
}

static void match(struct ties *t, struct launch *l, uint64_t ns) {
  l->matched = true;
  if (l->target == TARGET_OPEN) {
    l->device_ns = ns;
    return;
  }
  settle(t, l, ns);
  if (l->target == TARGET_GROUP)
    group_release(t, l->target_index);
}

/* ---- the ring of launches ---- */

/* Forgets the oldest launch; a group it was waiting for counts it as come. */
static void forget_oldest(struct ties *t) {
  struct launch *l = launch_at(t, t->head);
  if (!l->matched && l->target == TARGET_GROUP)
    group_release(t, l->target_index);
  t->head++;
}

/* Drops the thread's launches that are done or forgotten from its list. */
static void compact(struct ties *t, struct thread *th) {
  size_t kept_count = 0;
  for (size_t i = 0; i < th->pending_count; i++)
    if (kept(t, th->pending[i]) && !done(launch_at(t, th->pending[i])))
      th->pending[kept_count++] = th->pending[i];
  th->pending_count = kept_count;
}

static int add_launch(struct ties *t, const struct trace_call *c, struct thread *th) {
  while (t->head < t->next && done(launch_at(t, t->head)))
    t->head++;
  if (t->next - t->head == COLLECTIVES_LAUNCHES)
    forget_oldest(t);
  if (th->pending_count == th->pending_cap)
    compact(t, th);
  if (th->pending_count == th->pending_cap) {
    size_t cap = th->pending_cap ? 2 * th->pending_cap : 64;
    uint64_t *grown = realloc(th->pending, cap * sizeof *grown);
    if (!grown)
      return -1;
    th->pending = grown;
    th->pending_cap = cap;
  }
  struct launch *l = launch_at(t, t->next);
  *l = (struct launch){.host = c->from.host, .pid = c->pid, .tid = c->tid,
                       .backend = c->backend, .start = c->start, .depth = c->depth,
                       .target = c->depth ? TARGET_OPEN : TARGET_NONE};
  th->pending[th->pending_count++] = t->next++;
  return 0;
}

/* The thread's launches still open inside call c (nested in it, started in its span)
 * now belong to target. */
static void claim(struct ties *t, struct thread *th, const struct trace_call *c,
                  enum target target, size_t index) {
  uint64_t end = c->start + c->duration_ns;
  for (size_t i = 0; i < th->pending_count; i++) {
    if (!kept(t, th->pending[i]))
      continue;
    struct launch *l = launch_at(t, th->pending[i]);
    if (l->target == TARGET_OPEN && l->depth > c->depth && l->start >= c->start &&
        l->start <= end)
      resolve(t, l, target, index);
  }
  compact(t, th);
}

static int add_member(struct thread *th, size_t row, uint64_t size) {
  if (th->member_count == th->member_cap) {
    size_t cap = th->member_cap ? 2 * th->member_cap : 8;
    struct member *grown = realloc(th->members, cap * sizeof *grown);
    if (!grown)
      return -1;
    th->members = grown;
    th->member_cap = cap;
  }
  th->members[th->member_count++] = (struct member){row, size};
  return 0;
}

/* The outermost end of a group: its operations become a group that its launches share. */
static int close_group(struct ties *t, struct thread *th, const struct trace_call *c) {
  if (!th->member_count) {
    claim(t, th, c, TARGET_NONE, 0);
    return 0;
  }
  size_t index = t->group_count;
  for (size_t i = 0; i < t->group_count; i++)
    if (!t->groups[i].members) {
      index = i;
      break;
    }
  if (index == t->group_count) {
    struct group *grown = realloc(t->groups, (t->group_count + 1) * sizeof *grown);
    if (!grown)
      return -1;
    t->groups = grown;
    t->group_count++;
  }
  struct group *g = &t->groups[index];
  *g = (struct group){th->members, th->member_count, 0};
  th->members = NULL;
  th->member_count = th->member_cap = 0;
  claim(t, th, c, TARGET_GROUP, index);
  if (!g->waiting) { /* no launch waits for it */
    free(g->members);
    g->members = NULL;
    g->count = 0;
  }
  return 0;
}

int ties_call(struct ties *t, const struct trace_call *c, long row, uint64_t size) {
  enum tracer_meaning meaning = c->desc->functions[c->function].meaning;
  /* Most calls are none of the app's collectives, launches or groups: all they may do is
   * close the launches their thread has open (a thread with none needs no entry yet). */
  if (row < 0 && meaning != TRACER_MEANING_KERNEL_LAUNCH &&
      meaning != TRACER_MEANING_GROUP_BEGIN && meaning != TRACER_MEANING_GROUP_END) {
    if (c->depth != 0 || t->head == t->next) /* nested, or no launch kept to close */
      return 0;
    struct thread *th = thread_of(t, c->from.host, c->tid, false);
    if (th && th->pending_count)
      claim(t, th, c, TARGET_NONE, 0);
    return 0;
  }
  struct thread *th = thread_of(t, c->from.host, c->tid, true);
  if (!th)
    return -1;
  if (row >= 0) {
    claim(t, th, c, TARGET_ROW, (size_t)row);
    return th->group_depth ? add_member(th, (size_t)row, size) : 0;
  }
  if (meaning == TRACER_MEANING_KERNEL_LAUNCH && !c->failed)
    return add_launch(t, c, th);
  if (meaning == TRACER_MEANING_GROUP_BEGIN && !c->failed) {
    th->group_depth++;
    return 0;
  }
  if (meaning == TRACER_MEANING_GROUP_END && th->group_depth && --th->group_depth == 0)
    return close_group(t, th, c);
  if (c->depth == 0)
    claim(t, th, c, TARGET_NONE, 0);
  return 0;
}

int ties_device(struct ties *t, const struct trace_device *d) {
  if (d->kind != TRACER_COMMAND_KERNEL)
    return 0;
  if (d->call_tid) {
    struct thread *th = thread_of(t, d->from.host, d->call_tid, false);
    for (size_t i = 0; th && i < th->pending_count; i++) {
      if (!kept(t, th->pending[i]))
        continue;
      struct launch *l = launch_at(t, th->pending[i]);
      /* Two clock values converted may differ by 1 ns. */
      if (!l->matched && l->start + 1 >= d->call_start && d->call_start + 1 >= l->start) {
        match(t, l, d->duration_ns);
        break;
      }
    }
    return 0;
  }
  /* No submitting call: the oldest launch of the process and backend still waiting. */
  for (uint64_t n = t->head; n < t->next; n++) {
    struct launch *l = launch_at(t, n);
    if (!l->matched && l->host == d->from.host && (!d->has_ids || l->pid == d->pid) &&
        l->backend == d->backend && l->start <= d->start) {
      match(t, l, d->duration_ns);
      break;
    }
  }
  return 0;
}
