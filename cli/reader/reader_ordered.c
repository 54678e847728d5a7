/* reader_ordered: the read in time order on several threads (trace_reader.h).
 *
 * The streams are shared out in groups, one per worker thread (largest first, to the
 * least loaded). A worker merges its group by time itself (ctf_merge: the key of the
 * merged read of every stream, the event's time in ns since the clock's origin, then the
 * stream index), decodes each event (reader_decode.c) and hands its records
 *   - to the consumers that need no order, no wall-clock times and can be forked: to the
 *     worker's own copies, joined at the end as a read stream by stream does;
 *   - for the others (the ordered ones), into the group's queue: chunks of items, one
 *     item per event with its records copied, and what each ordered consumer's
 *     prepare_call() or prepare_other() made of them there (trace_consumer.h).
 * The calling thread merges the groups' queues by the same key and hands the records out
 * in that order, with what a read on one thread computes along the way: the least clock
 * read met so far (taken off calls' ends), minimal mode's horizon, the summary and the
 * errors, each where the one-thread read meets it. Every consumer gets what it gets on
 * one thread; ordered ones without the raw event (trace_source.event is NULL).
 *
 * The records point into an item, or at what lives as long as the read (names, the
 * trace's strings in the mapped stream files: the workers' cursors stay open until the
 * merge is done). Memory is fixed: CHUNKS_PER_GROUP chunks per group, an item larger than
 * a chunk taking one of its own. A worker waits for a free chunk; the merging thread for
 * a group's next chunk. The merge only waits on a group whose queue it has emptied, and
 * returns a chunk before it waits, so a worker it waits on never waits on it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader_internal.h"

enum { CHUNK_BYTES = 256 * 1024, CHUNKS_PER_GROUP = 8, ALIGN = 16,
       MAX_PREPARING = 16 /* ordered consumers with prepare_*() in one read */ };

struct trace_bytes {
  struct group *group;
};

struct chunk {
  struct chunk *next;
  size_t used;      /* bytes of complete items */
  size_t capacity;
  bool own;         /* made for one large item: freed once read, not reused */
  _Alignas(ALIGN) unsigned char bytes[];
};

enum item_kind { ITEM_EVENT, ITEM_ERROR, ITEM_END };

/* One event (or one error, or the group's end); its records follow. */
struct item {
  uint32_t size;        /* bytes, this header and its records */
  uint16_t kind;        /* enum item_kind */
  uint16_t records;
  uint32_t stream;
  uint32_t event_class; /* its index */
  int64_t key;          /* ns since the clock's origin: the merge key */
  uint64_t timestamp;   /* the raw clock value */
  uint64_t time;        /* wall-clock ns (TRACE_NEEDS_TIMES) */
  uint64_t offset;      /* the event's byte offset in its stream file */
  uint64_t clock_read;  /* the clock read this event records, in ns, when has_clock_read */
  bool has_clock_read;
};

enum record_kind { R_CALL, R_DEVICE, R_REGION, R_PAUSE, R_COUNTED, R_UNFINISHED, R_COST,
                   R_NOTICE, R_RANK, R_SAMPLE, R_PC_SAMPLE, R_OTHER };

/* A call in a queue: what struct trace_call holds beyond what its event's item says
 * (the source: the event class's info, the stream's host, the time). Small, because
 * every call of the trace crosses from one core to the other. */
struct queued_call {
  uint64_t start_clock, end_clock, duration_ns, start, end;
  const struct trace_stack *stack;
  int64_t pid, tid, status;
  int32_t backend, function;
  uint32_t depth, text_used;
  uint16_t arg_count, slot_count;
  bool has_status, failed, batched, inside_other;
};

/* A record of an item; what it points to follows it, at offsets from the record. */
struct record {
  uint32_t size;
  uint16_t kind;
  uint16_t prepared;    /* entries in the prepared table (ordered consumers that prepare) */
  uint32_t args, text, slots, table; /* offsets: a call's args, text and slots; the table */
  uintptr_t text_origin;             /* where the decoder's text was (strings point in it) */
  union {
    struct queued_call call;
    struct trace_device device;
    struct trace_region region;
    struct trace_pause pause;
    struct trace_counted counted;
    struct trace_unfinished unfinished;
    struct trace_cost cost;
    struct trace_notice notice;
    struct trace_rank rank;
    struct trace_sample sample;
    struct trace_pc_sample pc_sample;
    struct trace_source other;
  } u;
};

struct prepared_entry {
  uint32_t consumer;    /* index among the ordered targets */
  uint32_t offset, size;
};

struct ordered_read;

struct group {
  struct ordered_read *read;
  size_t *streams;               /* owned */
  size_t stream_count;
  uint64_t load;
  /* The worker: its decoder's targets (the free consumers' copies and the queue), the
   * ordered consumers' copies for preparing (NULL for those that do not prepare). */
  struct reader_target *targets; /* owned */
  size_t target_count;
  void **prepare_contexts;       /* by ordered target; owned array */
  struct reader_stream_count *counts; /* by stream index (its own streams only); owned */
  struct ctf_merge *merge;       /* its streams, open until the merge is done; owned */
  char *error;                   /* a failure of the worker itself; owned */
  bool failed;
  pthread_t thread;
  bool started;
  /* Shared with the merging thread, under lock. */
  pthread_mutex_t lock;
  pthread_cond_t changed;
  struct chunk *full, *full_tail; /* queued for the merge, oldest first */
  struct chunk *spare;           /* free chunks */
  size_t chunks;                 /* made so far (at most CHUNKS_PER_GROUP) */
  bool done;                     /* the last chunk is queued */
  bool merge_waits, worker_waits;
  /* The worker's side: the chunk being filled and the item being written in it. */
  struct chunk *filling;
  size_t item_at, item_used;
  size_t record_at;              /* the record being written, from the item's start */
  /* The merging side: the chunk being read, the next item, and the head event item. */
  struct chunk *reading;
  size_t read_at;
  struct item *head;
};

struct ordered_read {
  struct read_state *st;
  const struct trace_reader *reader;
  const struct reader_target *ordered; /* the ordered targets (the caller's contexts) */
  size_t ordered_count;
  unsigned queue_needs;          /* what the ordered targets need decoded */
  bool copy_slots;
  struct group *groups;
  size_t group_count;
  atomic_bool stop;
};

static size_t align(size_t n) { return (n + ALIGN - 1) & ~(size_t)(ALIGN - 1); }

/* ---- Chunks ------------------------------------------------------------------------- */

static struct chunk *chunk_new(size_t capacity, bool own) {
  struct chunk *c = malloc(sizeof *c + capacity);
  if (c)
    *c = (struct chunk){.capacity = capacity, .own = own};
  return c;
}

/* A free chunk for the worker, waiting for the merge to return one; NULL when the read
 * stops or memory runs out. */
static struct chunk *take_spare(struct group *g) {
  pthread_mutex_lock(&g->lock);
  while (!g->spare && g->chunks >= CHUNKS_PER_GROUP && !atomic_load(&g->read->stop)) {
    g->worker_waits = true;
    pthread_cond_wait(&g->changed, &g->lock);
    g->worker_waits = false;
  }
  struct chunk *c = g->spare;
  if (c)
    g->spare = c->next;
  else if (!atomic_load(&g->read->stop) && (c = chunk_new(CHUNK_BYTES, false)))
    g->chunks++;
  pthread_mutex_unlock(&g->lock);
  if (c)
    c->used = 0;
  return c;
}

static void queue_chunk(struct group *g, struct chunk *c, bool last) {
  pthread_mutex_lock(&g->lock);
  if (c) {
    c->next = NULL;
    if (g->full_tail)
      g->full_tail->next = c;
    else
      g->full = c;
    g->full_tail = c;
  }
  g->done |= last;
  if (g->merge_waits)
    pthread_cond_broadcast(&g->changed);
  pthread_mutex_unlock(&g->lock);
}

/* ---- The worker: items into chunks ------------------------------------------------- */

static unsigned char *item_base(struct group *g) { return g->filling->bytes + g->item_at; }

/* Makes room for n more bytes of the item being written, moving it to a new chunk when
 * its chunk is full; returns its offset in the item, or -1 (the read stops). */
static long item_grow(struct group *g, size_t n) {
  if (g->filling && g->item_at + g->item_used + n <= g->filling->capacity) {
    size_t at = g->item_used;
    g->item_used += n;
    return (long)at;
  }
  size_t need = g->item_used + n;
  struct chunk *next = need <= CHUNK_BYTES ? take_spare(g) : chunk_new(align(need + ALIGN), true);
  if (!next) {
    if (!atomic_load(&g->read->stop)) {
      g->failed = true;
      reader_note_error(&g->error, "out of memory");
      atomic_store(&g->read->stop, true);
    }
    return -1;
  }
  if (g->filling) {
    memcpy(next->bytes, item_base(g), g->item_used);
    g->filling->used = g->item_at;
    if (g->item_at)
      queue_chunk(g, g->filling, false);
    else if (g->filling->own)
      free(g->filling);
    else {
      pthread_mutex_lock(&g->lock);
      g->filling->next = g->spare;
      g->spare = g->filling;
      pthread_mutex_unlock(&g->lock);
    }
  }
  g->filling = next;
  g->item_at = 0;
  size_t at = g->item_used;
  g->item_used += n;
  return (long)at;
}

static struct item *item_header(struct group *g) { return (struct item *)item_base(g); }

/* Pads the item being written to the next multiple of ALIGN. */
static bool item_align(struct group *g) {
  size_t pad = align(g->item_used) - g->item_used;
  return !pad || item_grow(g, pad) >= 0;
}

static bool item_begin(struct group *g, enum item_kind kind, size_t stream) {
  g->item_used = 0;
  if (item_grow(g, align(sizeof(struct item))) < 0)
    return false;
  struct item *it = item_header(g);
  memset(it, 0, sizeof *it);
  it->kind = (uint16_t)kind;
  it->stream = (uint32_t)stream;
  return true;
}

/* Closes the item; a chunk that cannot take another small item is queued. */
static void item_end(struct group *g) {
  item_align(g); /* within the chunk's bytes: capacities are multiples of ALIGN */
  item_header(g)->size = (uint32_t)g->item_used;
  g->item_at += g->item_used;
  g->item_used = 0;
  g->filling->used = g->item_at;
  if (g->filling->own || g->filling->capacity - g->item_at < 4096) {
    queue_chunk(g, g->filling, false);
    g->filling = NULL;
    g->item_at = 0;
  }
}

static struct record *record_at(struct group *g) {
  return (struct record *)(item_base(g) + g->record_at);
}

/* A record of the given kind, its struct copied; data of its own goes after it. */
static bool record_begin(struct group *g, enum record_kind kind, const void *value,
                         size_t size) {
  long at = item_align(g) ? item_grow(g, sizeof(struct record)) : -1;
  if (at < 0)
    return false;
  g->record_at = (size_t)at;
  struct record *r = record_at(g);
  memset(r, 0, offsetof(struct record, u));
  r->kind = (uint16_t)kind;
  memcpy(&r->u, value, size);
  item_header(g)->records++;
  return true;
}

/* Appends data to the record being written (aligned for any value when `aligned`); its
 * offset from the record, or -1. */
static long record_put(struct group *g, const void *data, size_t size, bool aligned) {
  if (aligned && !item_align(g))
    return -1;
  long at = item_grow(g, size);
  if (at < 0)
    return -1;
  if (size)
    memcpy(item_base(g) + at, data, size);
  return at - (long)g->record_at;
}

static int record_end(struct group *g) {
  if (!item_align(g))
    return -1;
  record_at(g)->size = (uint32_t)(g->item_used - g->record_at);
  return 0;
}

int trace_bytes_put(struct trace_bytes *bytes, const void *data, size_t size) {
  return record_put(bytes->group, data, size, false) < 0 ? -1 : 0;
}

/* What the ordered consumers that prepare make of the record being written. */
static int prepare(struct group *g, const struct trace_call *call,
                   const struct trace_source *other) {
  struct ordered_read *o = g->read;
  size_t n = 0;
  struct prepared_entry table[MAX_PREPARING];
  for (size_t i = 0; i < o->ordered_count; i++) {
    const struct trace_consumer *c = o->ordered[i].consumer;
    int (*fn_call)(void *, const struct trace_call *, struct trace_bytes *) = c->prepare_call;
    int (*fn_other)(void *, const struct trace_source *, struct trace_bytes *) =
        c->prepare_other;
    if (!g->prepare_contexts[i] || (call ? !fn_call : !fn_other))
      continue;
    struct trace_bytes out = {g};
    if (!item_align(g)) /* a consumer's bytes start aligned: it may lay out structs */
      return -1;
    long start = (long)(g->item_used - g->record_at);
    int rc = call ? fn_call(g->prepare_contexts[i], call, &out)
                  : fn_other(g->prepare_contexts[i], other, &out);
    if (rc)
      return rc;
    table[n++] = (struct prepared_entry){(uint32_t)i, (uint32_t)start,
                                         (uint32_t)(g->item_used - g->record_at - (size_t)start)};
  }
  if (!n)
    return 0;
  long at = record_put(g, table, n * sizeof *table, true);
  if (at < 0)
    return -1;
  record_at(g)->table = (uint32_t)at;
  record_at(g)->prepared = (uint16_t)n;
  return 0;
}

static int stopped(struct group *g) { return atomic_load(&g->read->stop) ? -1 : 0; }

static int queue_call(void *context, const struct trace_call *c) {
  struct group *g = context;
  bool slots_copied = g->read->copy_slots;
  struct queued_call q = {c->start_clock,
                          c->end_clock,
                          c->duration_ns,
                          c->start,
                          c->end,
                          c->stack,
                          c->pid,
                          c->tid,
                          c->status,
                          c->backend,
                          c->function,
                          c->depth,
                          (uint32_t)c->text_used,
                          (uint16_t)c->arg_count,
                          (uint16_t)(slots_copied ? c->slot_count : 0),
                          c->has_status,
                          c->failed,
                          c->batched,
                          c->inside_other};
  if (!record_begin(g, R_CALL, &q, sizeof q))
    return -1;
  long args = record_put(g, c->args, c->arg_count * sizeof *c->args, true);
  long text = record_put(g, c->text, c->text_used, false);
  long slots = g->read->copy_slots
                   ? record_put(g, c->slots, c->slot_count * sizeof *c->slots, true)
                   : 0;
  if (args < 0 || text < 0 || slots < 0)
    return -1;
  struct record *r = record_at(g);
  r->args = (uint32_t)args;
  r->text = (uint32_t)text;
  r->slots = (uint32_t)slots;
  r->text_origin = (uintptr_t)c->text;
  return prepare(g, c, NULL) || record_end(g) || stopped(g);
}

static int queue_other(void *context, const struct trace_source *from) {
  struct group *g = context;
  if (!record_begin(g, R_OTHER, from, sizeof *from))
    return -1;
  return prepare(g, NULL, from) || record_end(g) || stopped(g);
}

#define QUEUE_PLAIN(name, kind, type)                                                    \
  static int name(void *context, const type *value) {                                   \
    struct group *g = context;                                                           \
    return !record_begin(g, kind, value, sizeof *value) || record_end(g) || stopped(g); \
  }
QUEUE_PLAIN(queue_device, R_DEVICE, struct trace_device)
QUEUE_PLAIN(queue_region, R_REGION, struct trace_region)
QUEUE_PLAIN(queue_pause, R_PAUSE, struct trace_pause)
QUEUE_PLAIN(queue_counted, R_COUNTED, struct trace_counted)
QUEUE_PLAIN(queue_unfinished, R_UNFINISHED, struct trace_unfinished)
QUEUE_PLAIN(queue_cost, R_COST, struct trace_cost)
QUEUE_PLAIN(queue_notice, R_NOTICE, struct trace_notice)
QUEUE_PLAIN(queue_rank, R_RANK, struct trace_rank)
QUEUE_PLAIN(queue_sample, R_SAMPLE, struct trace_sample)
QUEUE_PLAIN(queue_pc_sample, R_PC_SAMPLE, struct trace_pc_sample)

static void *worker_main(void *arg) {
  struct group *g = arg;
  struct ordered_read *o = g->read;
  const struct trace_reader *r = o->reader;
  struct decoder d;
  struct ctf_merge *merge;
  struct ctf_error err;
  bool ok = decoder_init(&d, r, g->targets, g->target_count) == 0;
  if (!ok) {
    g->failed = true;
    reader_note_error(&g->error, "out of memory");
    atomic_store(&o->stop, true);
  }
  d.defer_clock_read = o->ordered_count > 0;
  merge = g->merge;
  const struct ctf_event *ev;
  enum ctf_status status;
  while (ok && !atomic_load(&o->stop) && (status = ctf_merge_next(merge, &ev, &err)) != CTF_END) {
    if (status != CTF_OK) {
      ok = item_begin(g, ITEM_ERROR, 0) &&
           record_put(g, err.message, strlen(err.message) + 1, false) >= 0;
      if (ok)
        item_end(g);
      continue;
    }
    size_t stream = ev->stream->index;
    if (!item_begin(g, ITEM_EVENT, stream))
      break;
    struct item *it = item_header(g);
    it->event_class = (uint32_t)ev->event_class->index;
    it->key = ctf_clock_to_ns(ev->event_class->stream_class->clock, ev->timestamp);
    it->timestamp = ev->timestamp;
    it->offset = ev->offset;
    if (decoder_event(&d, ev, r->stream_host[stream], &g->counts[stream])) {
      if (!atomic_load(&o->stop)) {
        g->failed = true; /* a consumer of the worker stopped the read */
        atomic_store(&o->stop, true);
      }
      break;
    }
    it = item_header(g); /* the item may have moved */
    it->time = d.time;
    it->has_clock_read = d.event_has_clock_read;
    it->clock_read = d.event_clock_read;
    item_end(g);
  }
  if (item_begin(g, ITEM_END, 0)) {
    item_end(g);
    if (g->filling) {
      queue_chunk(g, g->filling, false);
      g->filling = NULL;
    }
  }
  queue_chunk(g, NULL, true);
  /* The free consumers' stream_done(), as a read stream by stream gives it. */
  size_t free_targets = g->target_count - (o->ordered_count > 0);
  for (size_t i = 0; i < g->stream_count; i++)
    reader_hand_out_stream(g->targets, free_targets, r, g->streams[i], &g->counts[g->streams[i]]);
  decoder_free(&d);
  return NULL;
}

/* ---- The merging thread ------------------------------------------------------------ */

static void give_back(struct group *g, struct chunk *c) {
  if (c->own) {
    free(c);
    return;
  }
  c->next = g->spare;
  g->spare = c;
  if (g->worker_waits)
    pthread_cond_broadcast(&g->changed);
}

/* The group's next item, NULL after its last; waits for its worker when its queue is
 * empty, after giving back the chunk read to the end. */
static struct item *next_item(struct group *g) {
  for (;;) {
    if (g->reading && g->read_at < g->reading->used) {
      struct item *it = (struct item *)(g->reading->bytes + g->read_at);
      g->read_at += it->size;
      return it;
    }
    pthread_mutex_lock(&g->lock);
    if (g->reading)
      give_back(g, g->reading);
    g->reading = NULL;
    while (!g->full && !g->done) {
      g->merge_waits = true;
      pthread_cond_wait(&g->changed, &g->lock);
      g->merge_waits = false;
    }
    struct chunk *c = g->full;
    if (c && !(g->full = c->next))
      g->full_tail = NULL;
    pthread_mutex_unlock(&g->lock);
    if (!c)
      return NULL;
    g->reading = c;
    g->read_at = 0;
  }
}

static const void *after_header(const struct item *it) {
  return (const unsigned char *)it + align(sizeof *it);
}

/* The group's next event, the errors before it noted where the one-thread read notes
 * them: when the stream that met them is advanced. */
static void advance(struct ordered_read *o, struct group *g) {
  for (;;) {
    struct item *it = next_item(g);
    if (!it || it->kind == ITEM_END) {
      g->head = NULL;
      return;
    }
    if (it->kind == ITEM_EVENT) {
      g->head = it;
      return;
    }
    reader_note_error(&o->st->error, after_header(it));
  }
}

static bool before(const struct group *a, const struct group *b) {
  return a->head->key < b->head->key ||
         (a->head->key == b->head->key && a->head->stream < b->head->stream);
}

/* The call of a queued record, whole again. */
static void unqueue_call(const struct ordered_read *o, const struct item *it,
                         struct record *rec, uint64_t clock_read_ns, struct trace_call *c) {
  const struct trace_reader *r = o->reader;
  const struct queued_call *q = &rec->u.call;
  const struct event_info *info = &r->map.infos[it->event_class];
  int host = r->stream_host[it->stream];
  unsigned char *base = (unsigned char *)rec;
  struct trace_arg *args = (struct trace_arg *)(base + rec->args);
  const char *text = (const char *)base + rec->text;
  for (size_t i = 0; i < q->arg_count; i++) {
    uintptr_t s = (uintptr_t)args[i].v.s;
    if (args[i].kind == TRACE_ARG_STRING && s >= rec->text_origin &&
        s < rec->text_origin + q->text_used)
      args[i].v.s = text + (s - rec->text_origin);
  }
  *c = (struct trace_call){
      .from = {.info = info, .host = host, .host_name = r->hosts[host], .time = it->time},
      .desc = info->desc,
      .backend = q->backend,
      .function = q->function,
      .pid = q->pid,
      .tid = q->tid,
      .depth = q->depth,
      .inside_other = q->inside_other,
      .status = q->status,
      .has_status = q->has_status,
      .failed = q->failed,
      .batched = q->batched,
      .start_clock = q->start_clock,
      .end_clock = q->end_clock,
      .duration_ns = q->duration_ns,
      .start = q->start,
      .end = q->end,
      .stack = q->stack,
      .slots = q->slot_count ? (const uint64_t *)(base + rec->slots) : NULL,
      .slot_count = q->slot_count,
      .args = args,
      .arg_count = q->arg_count,
      .text = text,
      .text_used = q->text_used};
  if (o->queue_needs & TRACE_NEEDS_TIMES)
    c->end = decoder_end_less_clock_read(c->start, c->end, clock_read_ns);
}

/* The records of an event to the ordered targets, as decoder_event hands them out. */
static int dispatch(struct ordered_read *o, struct item *it, uint64_t clock_read_ns) {
  const unsigned char *p = after_header(it);
  struct trace_call call;
  for (uint16_t k = 0; k < it->records; k++) {
    struct record *rec = (struct record *)p;
    p += rec->size;
    struct trace_source *from = NULL;
    switch ((enum record_kind)rec->kind) {
    case R_CALL:
      unqueue_call(o, it, rec, clock_read_ns, &call);
      from = &call.from;
      break;
    case R_DEVICE: from = &rec->u.device.from; break;
    case R_REGION: from = &rec->u.region.from; break;
    case R_PAUSE: from = &rec->u.pause.from; break;
    case R_COUNTED: from = &rec->u.counted.from; break;
    case R_UNFINISHED: from = &rec->u.unfinished.from; break;
    case R_COST: from = &rec->u.cost.from; break;
    case R_NOTICE: from = &rec->u.notice.from; break;
    case R_RANK: from = &rec->u.rank.from; break;
    case R_SAMPLE: from = &rec->u.sample.from; break;
    case R_PC_SAMPLE: from = &rec->u.pc_sample.from; break;
    case R_OTHER: from = &rec->u.other; break;
    }
    from->event = NULL;
    const struct prepared_entry *table =
        rec->prepared ? (const struct prepared_entry *)((unsigned char *)rec + rec->table) : NULL;
    size_t next_entry = 0;
    for (size_t i = 0; i < o->ordered_count; i++) {
      const struct trace_consumer *c = o->ordered[i].consumer;
      void *context = o->ordered[i].context;
      from->prepared = NULL;
      from->prepared_size = 0;
      if (next_entry < rec->prepared && table[next_entry].consumer == i) {
        from->prepared = (unsigned char *)rec + table[next_entry].offset;
        from->prepared_size = table[next_entry].size;
        next_entry++;
      }
      int rc = 0;
      switch ((enum record_kind)rec->kind) {
      case R_CALL: rc = c->call ? c->call(context, &call) : 0; break;
      case R_DEVICE: rc = c->device ? c->device(context, &rec->u.device) : 0; break;
      case R_REGION: rc = c->region ? c->region(context, &rec->u.region) : 0; break;
      case R_PAUSE: rc = c->pause ? c->pause(context, &rec->u.pause) : 0; break;
      case R_COUNTED: rc = c->counted ? c->counted(context, &rec->u.counted) : 0; break;
      case R_UNFINISHED:
        rc = c->unfinished ? c->unfinished(context, &rec->u.unfinished) : 0;
        break;
      case R_COST: rc = c->cost ? c->cost(context, &rec->u.cost) : 0; break;
      case R_NOTICE: rc = c->notice ? c->notice(context, &rec->u.notice) : 0; break;
      case R_RANK: rc = c->rank ? c->rank(context, &rec->u.rank) : 0; break;
      case R_SAMPLE: rc = c->sample ? c->sample(context, &rec->u.sample) : 0; break;
      case R_PC_SAMPLE: rc = c->pc_sample ? c->pc_sample(context, &rec->u.pc_sample) : 0; break;
      case R_OTHER: rc = c->other ? c->other(context, &rec->u.other) : 0; break;
      }
      if (rc)
        return rc;
    }
  }
  return 0;
}

/* Merges the groups' queues; as read_in_order() does with the cursors. */
static void merge(struct ordered_read *o) {
  struct read_state *st = o->st;
  const struct trace_reader *r = o->reader;
  size_t streams = ctf_trace_stream_count(r->trace);
  struct group **heap = calloc(o->group_count + 1, sizeof *heap);
  uint64_t *offsets = calloc(streams + 1, sizeof *offsets);
  size_t batch_count = 0, batches_read = 0;
  uint64_t *until = o->queue_needs & TRACE_NEEDS_HORIZON ? reader_batch_horizons(r, &batch_count)
                                                         : NULL;
  if (!heap || !offsets) {
    st->failed = true;
    reader_note_error(&st->error, "out of memory");
    goto done;
  }
  size_t count = 0;
  for (size_t i = 0; i < o->group_count; i++) {
    struct group *g = &o->groups[i];
    advance(o, g);
    if (!g->head)
      continue;
    size_t at = count++;
    for (; at > 0 && before(g, heap[(at - 1) / 2]); at = (at - 1) / 2)
      heap[at] = heap[(at - 1) / 2];
    heap[at] = g;
  }
  uint64_t clock_read_ns = r->clock_read_least_ns;
  struct reader_progress progress = {0, 0};
  bool has_clock_read = r->has_clock_read_least;
  while (count && !st->failed) {
    struct group *g = heap[0];
    struct item *it = g->head;
    offsets[it->stream] = it->offset;
    if (it->has_clock_read && (!has_clock_read || it->clock_read < clock_read_ns)) {
      clock_read_ns = it->clock_read;
      has_clock_read = true;
    }
    if (dispatch(o, it, clock_read_ns)) {
      st->failed = true;
      break;
    }
    if ((it->records || !r->window) && st->summary.events++ == 0)
      st->summary.first = it->time;
    if (it->records || !r->window)
      st->summary.last = it->time;
    const struct event_info *info = &r->map.infos[it->event_class];
    if (o->queue_needs & TRACE_NEEDS_HORIZON &&
        reader_hand_out_horizon(o->ordered, o->ordered_count, info, it->timestamp, until,
                                batch_count, &batches_read)) {
      st->failed = true;
      break;
    }
    reader_progress_step(st, &progress, offsets, streams);
    /* The group's next event takes the top's place, sifted down. */
    advance(o, g);
    struct group *moved = g->head ? g : heap[--count];
    size_t at = 0;
    for (;;) {
      size_t child = 2 * at + 1;
      if (child >= count)
        break;
      if (child + 1 < count && before(heap[child + 1], heap[child]))
        child++;
      if (!before(heap[child], moved))
        break;
      heap[at] = heap[child];
      at = child;
    }
    if (count)
      heap[at] = moved;
  }
done:
  free(until);
  free(heap);
  free(offsets);
}

/* ---- The read ---------------------------------------------------------------------- */

static bool is_free(const struct trace_consumer *c) {
  return !(c->needs & (TRACE_NEEDS_ORDER | TRACE_NEEDS_TIMES | TRACE_NEEDS_HORIZON)) && c->fork &&
         c->join;
}

/* A consumer that needs the event is served here only through its prepare_*(). */
static bool can_prepare(const struct trace_consumer *c) {
  return c->fork && c->join && (!c->call || c->prepare_call) && (!c->other || c->prepare_other);
}

static void stop_all(struct ordered_read *o) {
  atomic_store(&o->stop, true);
  for (size_t i = 0; i < o->group_count; i++) {
    struct group *g = &o->groups[i];
    pthread_mutex_lock(&g->lock);
    pthread_cond_broadcast(&g->changed);
    pthread_mutex_unlock(&g->lock);
  }
}

static void free_chunks(struct chunk *c) {
  while (c) {
    struct chunk *next = c->next;
    free(c);
    c = next;
  }
}

unsigned reader_ordered_threads(const struct read_state *st) {
  size_t streams = ctf_trace_stream_count(st->reader->trace);
  /* The calling thread merges and runs the consumers; threads - 1 workers decode. By
   * default only from 3 cores: on 2, the hand-over to the merge costs more than the
   * decoding it takes off it (bench/RESULTS.md: the timeline and -t ran faster on one
   * thread than on two workers and the merge). */
  unsigned threads = st->options->threads;
  if (threads == 0) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    threads = cores >= 3 ? (unsigned)cores : 1;
  }
  if (threads < 2 || streams < 2)
    return 1;
  return 1 + (unsigned)(threads - 1 < streams ? threads - 1 : streams);
}

bool reader_read_ordered_parallel(struct read_state *st, const struct reader_target *targets,
                                  size_t n) {
  const struct trace_reader *r = st->reader;
  size_t streams = ctf_trace_stream_count(r->trace);
  unsigned threads = reader_ordered_threads(st);
  if (threads < 2)
    return false;
  for (size_t i = 0; i < n; i++) {
    const struct trace_consumer *c = targets[i].consumer;
    if (!is_free(c) && c->needs & TRACE_NEEDS_EVENT && !can_prepare(c))
      return false;
  }
  struct ordered_read o = {.st = st, .reader = r};
  atomic_init(&o.stop, false);
  size_t free_count = 0;
  struct reader_target *ordered = calloc(n + 1, sizeof *ordered);
  const struct reader_target **frees = calloc(n + 1, sizeof *frees);
  o.group_count = threads - 1;
  o.groups = calloc(o.group_count, sizeof *o.groups);
  bool ok = ordered && frees && o.groups;
  for (size_t i = 0; ok && i < n; i++) {
    if (is_free(targets[i].consumer)) {
      frees[free_count++] = &targets[i];
    } else {
      ordered[o.ordered_count++] = targets[i];
      o.queue_needs |= targets[i].consumer->needs;
      /* One that reads a call's record itself gets every slot, copied (no event here). */
      if (targets[i].consumer->needs & TRACE_NEEDS_RECORD)
        o.queue_needs |= TRACE_NEEDS_SLOTS;
    }
  }
  o.ordered = ordered;
  /* A call's slots are copied for those that read them in call(); -t reads them in
   * prepare_call(). */
  size_t preparing = 0;
  for (size_t i = 0; i < o.ordered_count; i++) {
    const struct trace_consumer *c = ordered[i].consumer;
    o.copy_slots |= c->needs & (TRACE_NEEDS_SLOTS | TRACE_NEEDS_RECORD) && !c->prepare_call;
    preparing += c->prepare_call || c->prepare_other;
  }
  if (preparing > MAX_PREPARING) {
    free(ordered);
    free(frees);
    free(o.groups);
    return false;
  }
  /* The queue, a consumer of each worker's decoder. */
  struct trace_consumer queue = {.name = "queue", .needs = o.queue_needs & ~TRACE_NEEDS_ORDER};
  for (size_t i = 0; ok && i < o.ordered_count; i++) {
    const struct trace_consumer *c = ordered[i].consumer;
    queue.call = c->call ? queue_call : queue.call;
    queue.device = c->device ? queue_device : queue.device;
    queue.region = c->region ? queue_region : queue.region;
    queue.pause = c->pause ? queue_pause : queue.pause;
    queue.counted = c->counted ? queue_counted : queue.counted;
    queue.unfinished = c->unfinished ? queue_unfinished : queue.unfinished;
    queue.cost = c->cost ? queue_cost : queue.cost;
    queue.notice = c->notice ? queue_notice : queue.notice;
    queue.rank = c->rank ? queue_rank : queue.rank;
    queue.sample = c->sample ? queue_sample : queue.sample;
    queue.pc_sample = c->pc_sample ? queue_pc_sample : queue.pc_sample;
    queue.other = c->other ? queue_other : queue.other;
  }
  /* Streams to groups: largest first, to the least loaded. */
  size_t *order = calloc(streams + 1, sizeof *order);
  ok = ok && order;
  for (size_t i = 0; ok && i < streams; i++) {
    size_t at = i;
    for (; at > 0 && ctf_trace_stream(r->trace, order[at - 1])->file_size <
                         ctf_trace_stream(r->trace, i)->file_size;
         at--)
      order[at] = order[at - 1];
    order[at] = i;
  }
  for (size_t i = 0; ok && i < o.group_count; i++) {
    struct group *g = &o.groups[i];
    g->read = &o;
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->changed, NULL);
    g->streams = calloc(streams + 1, sizeof *g->streams);
    g->counts = calloc(streams + 1, sizeof *g->counts);
    g->targets = calloc(free_count + 2, sizeof *g->targets);
    g->prepare_contexts = calloc(o.ordered_count + 1, sizeof *g->prepare_contexts);
    ok = g->streams && g->counts && g->targets && g->prepare_contexts;
    for (size_t k = 0; ok && k < streams; k++)
      g->counts[k].packet = UINT64_MAX;
    for (size_t k = 0; ok && k < free_count; k++) {
      g->targets[k] = (struct reader_target){frees[k]->consumer,
                                             frees[k]->consumer->fork(frees[k]->context)};
      ok = g->targets[k].context != NULL;
      g->target_count = k + 1;
    }
    if (ok && o.ordered_count)
      g->targets[g->target_count++] = (struct reader_target){&queue, g};
    for (size_t k = 0; ok && k < o.ordered_count; k++) {
      const struct trace_consumer *c = ordered[k].consumer;
      if (c->fork && c->join && (c->prepare_call || c->prepare_other))
        ok = (g->prepare_contexts[k] = c->fork(ordered[k].context)) != NULL;
    }
  }
  for (size_t i = 0; ok && i < streams; i++) {
    struct group *best = &o.groups[0];
    for (size_t k = 1; k < o.group_count; k++)
      if (o.groups[k].load < best->load)
        best = &o.groups[k];
    best->streams[best->stream_count++] = order[i];
    best->load += ctf_trace_stream(r->trace, order[i])->file_size;
  }
  /* Every stream opened before any is read: a stream that cannot be opened stops the
   * read before it starts, as on one thread. */
  struct ctf_error err;
  bool opened = ok;
  for (size_t i = 0; opened && i < o.group_count; i++) {
    struct group *g = &o.groups[i];
    if (ctf_merge_open(r->trace, g->streams, g->stream_count, &g->merge, &err) != CTF_OK) {
      reader_note_error(&st->error, err.message);
      opened = false;
    }
  }
  for (size_t i = 0; opened && i < o.group_count; i++)
    o.groups[i].started = pthread_create(&o.groups[i].thread, NULL, worker_main,
                                         &o.groups[i]) == 0;
  bool all_started = opened;
  for (size_t i = 0; opened && i < o.group_count; i++)
    all_started &= o.groups[i].started;
  if (all_started) {
    st->threads = (unsigned)o.group_count + 1; /* the decoders and the merge */
    merge(&o);
  } else if (opened) {
    st->failed = true;
    reader_note_error(&st->error, "Cannot start the threads that read the trace");
  }
  if (st->failed || !all_started)
    stop_all(&o);
  for (size_t i = 0; i < o.group_count; i++) {
    struct group *g = &o.groups[i];
    /* A worker stopped early may wait for its queue to move: it is drained. */
    while (g->started && !st->failed && all_started && next_item(g))
      ;
    if (g->started)
      pthread_join(g->thread, NULL);
  }
  if (opened && ok) {
    /* stream_done() of the ordered ones, in stream order, as on one thread. */
    for (size_t i = 0; i < streams; i++)
      for (size_t k = 0; k < o.group_count; k++)
        for (size_t s = 0; s < o.groups[k].stream_count; s++)
          if (o.groups[k].streams[s] == i)
            reader_hand_out_stream(ordered, o.ordered_count, r, i, &o.groups[k].counts[i]);
  }
  if (st->options->progress)
    st->options->progress(st->options->progress_context, r->bytes, r->bytes, true);
  for (size_t i = 0; o.groups && i < o.group_count; i++) {
    struct group *g = &o.groups[i];
    for (size_t k = 0; k < free_count && k < g->target_count; k++)
      if (g->targets[k].context && frees[k]->consumer->join(frees[k]->context, g->targets[k].context))
        st->failed = true;
    for (size_t k = 0; g->prepare_contexts && k < o.ordered_count; k++)
      if (g->prepare_contexts[k])
        ordered[k].consumer->join(ordered[k].context, g->prepare_contexts[k]);
    if (g->error)
      reader_note_error(&st->error, g->error);
    st->failed |= g->failed;
    ctf_merge_close(g->merge);
    free_chunks(g->full);
    free_chunks(g->spare);
    free(g->reading);
    free(g->filling);
    free(g->error);
    free(g->streams);
    free(g->counts);
    free(g->targets);
    free(g->prepare_contexts);
    pthread_mutex_destroy(&g->lock);
    pthread_cond_destroy(&g->changed);
  }
  if (!ok) {
    st->failed = true;
    reader_note_error(&st->error, "out of memory");
  }
  free(o.groups);
  free(order);
  free(ordered);
  free(frees);
  return true;
}
