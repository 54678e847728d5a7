/* call_stacks: see call_stacks.h. */
#include "call_stacks.h"

#include <stdlib.h>
#include <string.h>

#include "key_map.h"
#include "name_table.h"
#include "tally.h"

/* Calls a thread keeps waiting for a parent before the first goes without it. */
enum { MAX_WAITING = 1 << 16, ARRIVAL_DEPTHS = 16 };

struct thread_state {
  struct stack_thread pub;
  struct stack_frame *waiting;  /* arrived, not entered: a min-heap (frame_before) */
  size_t waiting_len, waiting_cap;
  struct stack_frame *open;     /* entered, not left; outermost first */
  const struct stack_frame **view; /* &open[i], for the sink */
  size_t open_len, open_cap;
  /* Second pass: the frames known beforehand (regions, enclosing calls), by start;
   * owned. */
  struct stack_frame *known;
  size_t known_len, known_next;
  uint64_t last;                /* the last time handed out */
  bool blocked;                 /* its first waiting call waits for the horizon */
  /* First pass: the start of the last call that came at each depth (0 when none), to
   * tell a call that encloses calls that came before it at its own depth. */
  uint64_t last_start[ARRIVAL_DEPTHS];
};

/* A frame of the first pass known beforehand in the second. */
struct collected {
  int host;
  const char *host_name;
  int64_t pid, tid;
  struct stack_frame frame;
};

struct call_stacks {
  struct stack_sink sink;
  struct key_map by_id;            /* thread key -> index + 1 in threads */
  struct thread_state **threads;   /* in the order first seen */
  size_t thread_count, thread_cap;
  struct thread_state *recent;
  struct name_table names;         /* regions' names and backends */
  bool collecting, second_pass, use_horizon;
  struct key_map known_calls;      /* second pass: calls among the known frames */
  uint64_t horizon;
  struct collected *collected;
  size_t collected_len, collected_cap;
  struct thread_state **blocked;   /* threads whose first call waits for the horizon */
  size_t blocked_len, blocked_cap;
  uint64_t blocked_least;          /* the least start_clock they wait with */
  struct stack_counts counts;
};

/* Heap order: earlier first; at the same time the longer (the enclosing one), then the
 * shallower. */
static bool frame_before(const struct stack_frame *a, const struct stack_frame *b) {
  if (a->start != b->start)
    return a->start < b->start;
  if (a->end != b->end)
    return a->end > b->end;
  return a->depth < b->depth;
}

static int compare_frames(const void *pa, const void *pb) {
  const struct stack_frame *a = pa, *b = pb;
  return frame_before(a, b) ? -1 : frame_before(b, a) ? 1 : 0;
}

static int heap_push(struct thread_state *t, const struct stack_frame *f) {
  if (t->waiting_len == t->waiting_cap) {
    size_t cap = t->waiting_cap ? t->waiting_cap * 2 : 16;
    struct stack_frame *grown = realloc(t->waiting, cap * sizeof *grown);
    if (!grown)
      return -1;
    t->waiting = grown;
    t->waiting_cap = cap;
  }
  size_t i = t->waiting_len++;
  while (i > 0 && frame_before(f, &t->waiting[(i - 1) / 2])) {
    t->waiting[i] = t->waiting[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  t->waiting[i] = *f;
  return 0;
}

static void heap_pop(struct thread_state *t, struct stack_frame *out) {
  *out = t->waiting[0];
  struct stack_frame last = t->waiting[--t->waiting_len];
  size_t i = 0, n = t->waiting_len;
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= n)
      break;
    if (child + 1 < n && frame_before(&t->waiting[child + 1], &t->waiting[child]))
      child++;
    if (!frame_before(&t->waiting[child], &last))
      break;
    t->waiting[i] = t->waiting[child];
    i = child;
  }
  if (n)
    t->waiting[i] = last;
}

static uint64_t thread_key(int host, int64_t pid, int64_t tid) {
  return key_mix((uint64_t)(uint32_t)host << 32 | (uint32_t)pid, (uint64_t)tid);
}

static struct thread_state *thread_of(struct call_stacks *cs, int host, const char *host_name,
                                      int64_t pid, int64_t tid) {
  struct thread_state *r = cs->recent;
  if (r && r->pub.tid == tid && r->pub.pid == pid && r->pub.host == host)
    return r;
  /* Keys are hashes: a key taken by another thread moves on to the next. */
  for (uint64_t key = thread_key(host, pid, tid);; key = key_mix(key, 1)) {
    bool added;
    uint64_t *slot = key_map_put(&cs->by_id, key, &added);
    if (!slot)
      return NULL;
    if (!added) {
      struct thread_state *t = cs->threads[*slot - 1];
      if (t->pub.tid == tid && t->pub.pid == pid && t->pub.host == host)
        return cs->recent = t;
      continue;
    }
    struct thread_state *t = calloc(1, sizeof *t);
    if (t && cs->thread_count == cs->thread_cap) {
      size_t cap = cs->thread_cap ? cs->thread_cap * 2 : 16;
      struct thread_state **grown = realloc(cs->threads, cap * sizeof *grown);
      if (grown) {
        cs->threads = grown;
        cs->thread_cap = cap;
      }
    }
    if (!t || cs->thread_count == cs->thread_cap) {
      free(t);
      key_map_remove(&cs->by_id, key);
      return NULL;
    }
    t->pub = (struct stack_thread){host, host_name, pid, tid, NULL};
    cs->threads[cs->thread_count++] = t;
    *slot = cs->thread_count;
    return cs->recent = t;
  }
}

/* A thread already known, or NULL. */
static struct thread_state *known_thread(const struct call_stacks *cs, int host, int64_t pid,
                                         int64_t tid) {
  for (uint64_t key = thread_key(host, pid, tid);; key = key_mix(key, 1)) {
    const uint64_t *slot = key_map_get(&cs->by_id, key);
    if (!slot)
      return NULL;
    struct thread_state *t = cs->threads[*slot - 1];
    if (t->pub.tid == tid && t->pub.pid == pid && t->pub.host == host)
      return t;
  }
}

/* Forgets what the threads had waiting and open (the sink forgets its own state). */
static void forget_handed_out(struct call_stacks *cs) {
  for (size_t i = 0; i < cs->thread_count; i++) {
    struct thread_state *t = cs->threads[i];
    if (cs->sink.forget)
      cs->sink.forget(cs->sink.context, &t->pub);
    t->waiting_len = t->open_len = 0;
    t->last = 0;
    t->blocked = false;
  }
  cs->blocked_len = 0;
  cs->blocked_least = UINT64_MAX;
}

static void free_threads(struct call_stacks *cs) {
  forget_handed_out(cs);
  for (size_t i = 0; i < cs->thread_count; i++) {
    struct thread_state *t = cs->threads[i];
    free(t->waiting);
    free(t->open);
    free(t->view);
    free(t->known);
    free(t);
  }
  cs->thread_count = 0;
  cs->recent = NULL;
  key_map_clear(&cs->by_id);
}

/* ---- Handing out -------------------------------------------------------------------- */

static int leave_top(struct call_stacks *cs, struct thread_state *t) {
  struct stack_frame *x = &t->open[--t->open_len];
  if (x->kind == STACK_CALL)
    for (size_t i = t->open_len; i-- > 0;)
      if (t->open[i].kind == STACK_CALL) {
        t->open[i].child_ns += x->duration_ns;
        t->open[i].child_calls++;
        break;
      }
  t->last = x->end;
  return cs->sink.leave ? cs->sink.leave(cs->sink.context, &t->pub, x, t->view, t->open_len) : 0;
}

static int leave_until(struct call_stacks *cs, struct thread_state *t, uint64_t time) {
  int rc = 0;
  while (rc == 0 && t->open_len && t->open[t->open_len - 1].end <= time)
    rc = leave_top(cs, t);
  return rc;
}

static int enter(struct call_stacks *cs, struct thread_state *t, const struct stack_frame *f) {
  int rc = leave_until(cs, t, f->start);
  /* A region that ends inside the call beginning now ends where the call begins (an NVTX
   * start/end range, closed from inside the call that ends it), as a region that a call
   * closes does; other frames that would outlive the one they start in are cut below. */
  while (rc == 0 && f->kind == STACK_CALL && t->open_len &&
         t->open[t->open_len - 1].kind == STACK_REGION &&
         t->open[t->open_len - 1].end < f->end) {
    t->open[t->open_len - 1].end = f->start > t->last ? f->start : t->last;
    cs->counts.cut++;
    rc = leave_top(cs, t);
  }
  if (rc)
    return rc;
  if (t->open_len == t->open_cap) {
    size_t cap = t->open_cap ? t->open_cap * 2 : 16;
    struct stack_frame *open = realloc(t->open, cap * sizeof *open);
    if (!open)
      return -1;
    t->open = open;
    const struct stack_frame **view = realloc(t->view, cap * sizeof *view);
    if (!view)
      return -1;
    t->view = view;
    t->open_cap = cap;
    for (size_t i = 0; i < t->open_len; i++) /* the frames may have moved */
      t->view[i] = &t->open[i];
  }
  struct stack_frame *x = &t->open[t->open_len];
  *x = *f;
  x->child_ns = x->child_calls = 0;
  if (x->start < t->last) { /* came after later frames were handed out */
    cs->counts.late++;
    x->start = t->last;
  }
  if (x->end < x->start)
    x->end = x->start;
  if (t->open_len && x->end > t->open[t->open_len - 1].end) {
    x->end = t->open[t->open_len - 1].end;
    cs->counts.cut++;
  }
  t->view[t->open_len] = x;
  t->open_len++;
  t->last = x->start;
  if (x->kind == STACK_CALL)
    cs->counts.calls++;
  else
    cs->counts.regions++;
  return cs->sink.enter ? cs->sink.enter(cs->sink.context, &t->pub, x, t->view, t->open_len - 1)
                        : 0;
}

static int enter_known_until(struct call_stacks *cs, struct thread_state *t, uint64_t time) {
  int rc = 0;
  while (rc == 0 && t->known_next < t->known_len && t->known[t->known_next].start <= time)
    rc = enter(cs, t, &t->known[t->known_next++]);
  return rc;
}

static int block(struct call_stacks *cs, struct thread_state *t) {
  uint64_t start = t->waiting[0].start_clock;
  if (!t->blocked) {
    if (cs->blocked_len == cs->blocked_cap) {
      size_t cap = cs->blocked_cap ? cs->blocked_cap * 2 : 16;
      struct thread_state **grown = realloc(cs->blocked, cap * sizeof *grown);
      if (!grown)
        return -1;
      cs->blocked = grown;
      cs->blocked_cap = cap;
    }
    cs->blocked[cs->blocked_len++] = t;
    t->blocked = true;
  }
  if (start < cs->blocked_least)
    cs->blocked_least = start;
  return 0;
}

/* Hands out the thread's waiting calls that can go: all of them when force. */
/* Whether a call's parent is open: as many calls as its depth still are at its start
 * (the open frames nest: those still open then are the outermost). */
static bool parent_open(const struct thread_state *t, const struct stack_frame *f) {
  unsigned enclosing = 0;
  for (size_t i = 0; i < t->open_len && t->open[i].end > f->start; i++)
    enclosing += t->open[i].kind == STACK_CALL;
  return f->depth <= enclosing;
}

static int advance(struct call_stacks *cs, struct thread_state *t, bool force) {
  while (t->waiting_len) {
    const struct stack_frame *f = &t->waiting[0];
    if (!force && cs->use_horizon && f->start_clock >= cs->horizon)
      return block(cs, t);
    if (!parent_open(t, f)) {
      if (!force && t->waiting_len <= MAX_WAITING)
        return 0;
      cs->counts.orphans++;
    }
    struct stack_frame next;
    heap_pop(t, &next);
    int rc = enter_known_until(cs, t, next.start);
    if (rc == 0)
      rc = enter(cs, t, &next);
    if (rc)
      return rc;
  }
  return 0;
}

/* ---- The consumer's side ------------------------------------------------------------ */

struct call_stacks *call_stacks_open(const struct stack_sink *sink) {
  struct call_stacks *cs = calloc(1, sizeof *cs);
  if (cs) {
    cs->sink = *sink;
    cs->blocked_least = UINT64_MAX;
  }
  return cs;
}

void call_stacks_close(struct call_stacks *cs) {
  if (!cs)
    return;
  free_threads(cs);
  free(cs->threads);
  key_map_free(&cs->by_id);
  key_map_free(&cs->known_calls);
  name_table_free(&cs->names);
  free(cs->collected);
  free(cs->blocked);
  free(cs);
}

bool call_stacks_collecting(const struct call_stacks *cs) { return cs->collecting; }

const struct stack_counts *call_stacks_counts(const struct call_stacks *cs) {
  return &cs->counts;
}

/* Keeps a frame of the first pass for the second. Returns 0, or -1 out of memory. */
static int collect(struct call_stacks *cs, const struct thread_state *t,
                   const struct stack_frame *f) {
  if (cs->collected_len == cs->collected_cap) {
    size_t cap = cs->collected_cap ? cs->collected_cap * 2 : 256;
    struct collected *grown = realloc(cs->collected, cap * sizeof *grown);
    if (!grown)
      return -1;
    cs->collected = grown;
    cs->collected_cap = cap;
  }
  cs->collected[cs->collected_len++] =
      (struct collected){t->pub.host, t->pub.host_name, t->pub.pid, t->pub.tid, *f};
  return 0;
}

/* From now on the first pass only collects: what was handed out lacks frames that
 * enclose it, which the second pass knows beforehand. Returns 1 (start over). */
static int start_collecting(struct call_stacks *cs) {
  if (cs->collecting)
    return 0;
  cs->collecting = true;
  forget_handed_out(cs);
  return 1;
}

static uint64_t known_call_key(const struct stack_thread *t, const struct stack_frame *f) {
  return key_mix(thread_key(t->host, t->pid, t->tid),
                 f->start_clock ^ (uint64_t)(uint32_t)f->function << 40);
}

/* First pass: whether the call encloses a call that came before it at its own depth or
 * above (a scope recorded at its end, such as an OMPT target region around its data
 * operations): its record comes after theirs, and its depth says nothing of them. */
static bool encloses_earlier(struct thread_state *t, const struct stack_frame *f) {
  unsigned depth = f->depth < ARRIVAL_DEPTHS ? f->depth : ARRIVAL_DEPTHS - 1;
  bool encloses = false;
  for (unsigned d = 0; d <= depth && !encloses; d++)
    encloses = t->last_start[d] && t->last_start[d] >= f->start && t->last_start[d] < f->end;
  t->last_start[depth] = f->start;
  return encloses;
}

int call_stacks_call(struct call_stacks *cs, const struct trace_call *c,
                     const uint64_t payload[STACK_PAYLOAD]) {
  struct thread_state *t = thread_of(cs, c->from.host, c->from.host_name, c->pid, c->tid);
  if (!t)
    return -1;
  int row = tally_call_row(c);
  struct stack_frame f = {.kind = STACK_CALL, .failed = c->failed, .batched = c->batched,
                          .depth = (uint16_t)c->depth, .backend = c->backend,
                          .function = row, .desc = c->desc,
                          .name = c->desc->functions[row].name, .start = c->start,
                          .end = c->end, .duration_ns = c->duration_ns,
                          .start_clock = c->start_clock};
  if (payload)
    memcpy(f.payload, payload, sizeof f.payload);
  if (cs->second_pass) { /* second pass: known calls were handed out among the known frames */
    uint64_t *known = cs->known_calls.len ? key_map_get(&cs->known_calls, known_call_key(&t->pub, &f))
                                          : NULL;
    if (known && *known) {
      (*known)--;
      return 0;
    }
  } else if (encloses_earlier(t, &f)) {
    if (collect(cs, t, &f))
      return -1;
    return start_collecting(cs);
  }
  if (cs->collecting)
    return 0;
  cs->use_horizon |= c->batched;
  if (!t->waiting_len && !t->blocked && !cs->use_horizon && parent_open(t, &f)) {
    int rc = enter_known_until(cs, t, f.start); /* nothing waits: it goes at once */
    return rc ? rc : enter(cs, t, &f);
  }
  if (heap_push(t, &f))
    return -1;
  return t->blocked ? 0 : advance(cs, t, false);
}

int call_stacks_region(struct call_stacks *cs, const struct trace_region *r) {
  if (cs->second_pass || !r->has_ids)
    return 0;
  uint32_t name = name_table_id(&cs->names, r->name, r->name_len);
  uint32_t backend = name_table_id(&cs->names, r->backend, r->backend_len);
  struct thread_state *t = thread_of(cs, r->from.host, r->from.host_name, r->pid, r->tid);
  if (name == UINT32_MAX || backend == UINT32_MAX || !t)
    return -1;
  struct stack_frame f = {.kind = STACK_REGION, .depth = (uint16_t)r->depth,
                          .name = name_table_name(&cs->names, name),
                          .region_backend = name_table_name(&cs->names, backend),
                          .start = r->start, .end = r->end, .duration_ns = r->duration_ns};
  if (collect(cs, t, &f))
    return -1;
  return start_collecting(cs);
}

int call_stacks_horizon(struct call_stacks *cs, uint64_t until_clock) {
  cs->horizon = until_clock;
  if (!cs->blocked_len || until_clock <= cs->blocked_least)
    return 0;
  size_t n = cs->blocked_len;
  cs->blocked_len = 0;
  cs->blocked_least = UINT64_MAX;
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    struct thread_state *t = cs->blocked[i];
    t->blocked = false;
    if (rc == 0)
      rc = advance(cs, t, false);
    else if (t->waiting_len)
      block(cs, t);
  }
  return rc;
}

enum { REGIONS_SCANNED = 4096 }; /* known frames looked at, at most, back from `time` */

size_t call_stacks_regions_at(const struct call_stacks *cs, int host, int64_t pid, int64_t tid,
                              uint64_t time, const struct stack_frame **out, size_t max) {
  const struct thread_state *t = cs->second_pass ? known_thread(cs, host, pid, tid) : NULL;
  if (!t || !t->known_len || !max)
    return 0;
  /* The last known frame that starts at time or before, then back from it: the regions
   * that still run at time, innermost first, until an outermost one (depth 0). */
  size_t lo = 0, hi = t->known_len;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->known[mid].start <= time)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t n = 0;
  for (size_t i = lo, scanned = 0; i-- > 0 && scanned < REGIONS_SCANNED && n < max; scanned++) {
    const struct stack_frame *f = &t->known[i];
    if (f->kind != STACK_REGION || f->end <= time)
      continue;
    if (n && f->depth >= out[n - 1]->depth)
      continue; /* not around the one found already */
    out[n++] = f;
    if (f->depth == 0)
      break;
  }
  for (size_t i = 0; i < n / 2; i++) { /* outermost first */
    const struct stack_frame *swap = out[i];
    out[i] = out[n - 1 - i];
    out[n - 1 - i] = swap;
  }
  return n;
}

static int compare_collected(const void *pa, const void *pb) {
  const struct collected *a = pa, *b = pb;
  if (a->host != b->host)
    return a->host < b->host ? -1 : 1;
  if (a->pid != b->pid)
    return a->pid < b->pid ? -1 : 1;
  if (a->tid != b->tid)
    return a->tid < b->tid ? -1 : 1;
  return compare_frames(&a->frame, &b->frame);
}

/* The second pass's threads, each with its known frames in order. */
static int distribute_known(struct call_stacks *cs) {
  if (cs->collected_len)
    qsort(cs->collected, cs->collected_len, sizeof *cs->collected, compare_collected);
  for (size_t i = 0; i < cs->collected_len;) {
    const struct collected *c = &cs->collected[i];
    size_t n = 1;
    while (i + n < cs->collected_len && cs->collected[i + n].host == c->host &&
           cs->collected[i + n].pid == c->pid && cs->collected[i + n].tid == c->tid)
      n++;
    struct thread_state *t = thread_of(cs, c->host, c->host_name, c->pid, c->tid);
    if (!t || !(t->known = malloc(n * sizeof *t->known)))
      return -1;
    for (size_t k = 0; k < n; k++) {
      const struct stack_frame *f = &cs->collected[i + k].frame;
      t->known[k] = *f;
      bool added;
      uint64_t *count = f->kind == STACK_CALL
                            ? key_map_put(&cs->known_calls, known_call_key(&t->pub, f), &added)
                            : NULL;
      if (f->kind == STACK_CALL && !count)
        return -1;
      if (count)
        (*count)++;
    }
    t->known_len = n;
    i += n;
  }
  free(cs->collected);
  cs->collected = NULL;
  cs->collected_len = cs->collected_cap = 0;
  return 0;
}

int call_stacks_finish(struct call_stacks *cs) {
  if (cs->collecting) {
    cs->collecting = false;
    cs->second_pass = true;
    cs->use_horizon = false;
    cs->horizon = 0;
    cs->counts = (struct stack_counts){0};
    free_threads(cs);
    return distribute_known(cs) ? -1 : TRACE_READ_AGAIN;
  }
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < cs->thread_count; i++) {
    struct thread_state *t = cs->threads[i];
    rc = advance(cs, t, true);
    if (rc == 0)
      rc = enter_known_until(cs, t, UINT64_MAX);
    if (rc == 0)
      rc = leave_until(cs, t, UINT64_MAX);
  }
  cs->blocked_len = 0;
  cs->blocked_least = UINT64_MAX;
  return rc;
}
