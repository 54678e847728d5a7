/* consumer_thread: see consumer_thread.h.
 *
 * A single-producer single-consumer ring of bytes. Each record is packed after the one
 * before it (its struct, then its arguments and strings, the struct's pointers aimed at
 * them), so that both sides walk the ring in address order: the consumer's core then
 * streams the producer's cache lines in, where a ring of fixed slots of a few kB each
 * made it miss on every part of every record (3.7 s of wall for 1.9 on one thread, on a
 * 2-core machine; bench/RESULTS.md). For the same reason each side publishes its index
 * only every PUBLISH_BYTES, not for every record: the line holding an index is the
 * other core's on every read of it.
 *
 * A side with nothing to do sleeps on a condition variable (never spins: the machines it
 * runs on may be shared), and the other side wakes it only when it said it sleeps, so
 * the common path takes no lock. The waiting flags and indices are sequentially
 * consistent: of a sleeper's flag store and the other side's index store, each side
 * sees the other's, so no wake-up is lost. */
#include "consumer_thread.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "call_args.h"
#include "reader_internal.h"

enum {
  RING_BYTES = 1 << 20,
  PUBLISH_BYTES = 16 << 10,
  /* Hysteresis, so that the two threads do not wake each other for every record: a
   * full ring's producer sleeps until half of it is free, an empty ring's consumer until
   * WAKE_BYTES wait (or the read ends). */
  WAKE_BYTES = 64 << 10,
  /* A record's strings and arguments beyond this are cut (a record never takes more
   * than a part of the ring). */
  RECORD_MAX = RING_BYTES / 8,
};

enum record_type { RECORD_SKIP, RECORD_CALL, RECORD_DEVICE, RECORD_REGION, RECORD_RANK,
                   RECORD_SAMPLE, RECORD_PAUSE, RECORD_COUNTED, RECORD_UNFINISHED, RECORD_COST,
                   RECORD_NOTICE, RECORD_PC_SAMPLE, RECORD_STREAM_DONE };

/* Each record starts with this, at a multiple of 8 bytes; `size` (a multiple of 8) takes
 * the reader to the next. A RECORD_SKIP fills the ring's end when the next record does
 * not fit there. */
struct record {
  uint32_t size;
  uint32_t type; /* enum record_type */
  union {
    struct trace_call call;
    struct trace_device dev;
    struct trace_region region;
    struct trace_rank rank;
    struct trace_sample sample;
    struct trace_pause pause;
    struct trace_counted counted;
    struct trace_unfinished unfinished;
    struct trace_cost cost;
    struct trace_notice notice;
    struct trace_pc_sample pc_sample;
    struct trace_stream_stats stream;
  } u;
};

#define CACHE_LINE 64

struct consumer_thread {
  struct trace_consumer *downstream; /* downstream_count; owned */
  size_t downstream_count;
  /* The busiest kind, calls, straight to the callbacks of those that take them. */
  struct reader_call_target *call_targets; /* call_target_count; owned */
  size_t call_target_count;
  bool copy_slots;     /* a downstream reads a call's slots */
  /* A call's arguments decoded here from its slots (consumer_thread_open), into args:
   * those, then the ones the call came with (full mode's strings). */
  struct call_args *arg_cache; /* NULL: the calls come with their arguments; owned */
  struct trace_arg args[READER_MAX_ARGS];
  unsigned char *ring; /* RING_BYTES; owned */
  pthread_mutex_t lock;
  pthread_cond_t not_full, not_empty;
  pthread_t thread;
  bool finished;       /* the producer said it has no more */
  /* The producer's own: where it writes, what it published, the head it last saw. */
  alignas(CACHE_LINE) size_t write, published, head_seen;
  /* Shared: bytes written (published) and bytes taken, as running counts. */
  alignas(CACHE_LINE) _Atomic size_t tail;
  alignas(CACHE_LINE) _Atomic size_t head;
  alignas(CACHE_LINE) atomic_bool producer_waits, consumer_waits, done;
  atomic_int status;   /* the consumer's first non-zero status */
};

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

static void signal_locked(struct consumer_thread *p, pthread_cond_t *cond) {
  pthread_mutex_lock(&p->lock);
  pthread_cond_signal(cond);
  pthread_mutex_unlock(&p->lock);
}

/* ---- The consumer's side ----------------------------------------------------------- */

/* The call's arguments: its named slots, then those it came with. */
static void decode_args(struct consumer_thread *p, struct trace_call *c) {
  size_t count = 0;
  call_args_add(p->arg_cache, &c->desc->functions[c->function], c->slots, c->slot_count,
                p->args, &count, READER_MAX_ARGS);
  for (size_t i = 0; i < c->arg_count && count < READER_MAX_ARGS; i++)
    p->args[count++] = c->args[i];
  c->args = p->args;
  c->arg_count = count;
}

/* Hands a record to each downstream consumer that takes its kind, in their order. */
static void dispatch(struct consumer_thread *p, struct record *r) {
  int rc = 0;
  if (r->type == RECORD_CALL) {
    if (p->arg_cache)
      decode_args(p, &r->u.call);
    for (size_t i = 0; i < p->call_target_count && !rc; i++)
      rc = p->call_targets[i].call(p->call_targets[i].context, &r->u.call);
    if (rc)
      atomic_store(&p->status, rc);
    return;
  }
  for (size_t i = 0; i < p->downstream_count && !rc; i++) {
    const struct trace_consumer *d = &p->downstream[i];
    switch ((enum record_type)r->type) {
    case RECORD_SKIP: break;
    case RECORD_CALL: break; /* above */
    case RECORD_DEVICE: rc = d->device ? d->device(d->context, &r->u.dev) : 0; break;
    case RECORD_REGION: rc = d->region ? d->region(d->context, &r->u.region) : 0; break;
    case RECORD_RANK: rc = d->rank ? d->rank(d->context, &r->u.rank) : 0; break;
    case RECORD_SAMPLE: rc = d->sample ? d->sample(d->context, &r->u.sample) : 0; break;
    case RECORD_PAUSE: rc = d->pause ? d->pause(d->context, &r->u.pause) : 0; break;
    case RECORD_COUNTED: rc = d->counted ? d->counted(d->context, &r->u.counted) : 0; break;
    case RECORD_UNFINISHED:
      rc = d->unfinished ? d->unfinished(d->context, &r->u.unfinished) : 0;
      break;
    case RECORD_COST: rc = d->cost ? d->cost(d->context, &r->u.cost) : 0; break;
    case RECORD_NOTICE: rc = d->notice ? d->notice(d->context, &r->u.notice) : 0; break;
    case RECORD_PC_SAMPLE:
      rc = d->pc_sample ? d->pc_sample(d->context, &r->u.pc_sample) : 0;
      break;
    case RECORD_STREAM_DONE:
      rc = d->stream_done ? d->stream_done(d->context, &r->u.stream) : 0;
      break;
    }
  }
  if (rc)
    atomic_store(&p->status, rc);
}

/* Publishes what the consumer took, and wakes the producer when it waits for room. */
static void give_back(struct consumer_thread *p, size_t head) {
  atomic_store(&p->head, head);
  if (atomic_load(&p->producer_waits) &&
      atomic_load(&p->tail) - head <= RING_BYTES / 2)
    signal_locked(p, &p->not_full);
}

static void *consume(void *arg) {
  struct consumer_thread *p = arg;
  size_t head = atomic_load_explicit(&p->head, memory_order_relaxed), given = head;
  for (;;) {
    size_t tail = atomic_load(&p->tail);
    if (head == tail) {
      give_back(p, head);
      given = head;
      pthread_mutex_lock(&p->lock);
      atomic_store(&p->consumer_waits, true);
      while (atomic_load(&p->tail) - head < WAKE_BYTES && !atomic_load(&p->done))
        pthread_cond_wait(&p->not_empty, &p->lock);
      atomic_store(&p->consumer_waits, false);
      bool finished = head == atomic_load(&p->tail) && atomic_load(&p->done);
      pthread_mutex_unlock(&p->lock);
      if (finished)
        break;
      continue;
    }
    while (head != tail) {
      struct record *r = (struct record *)(p->ring + head % RING_BYTES);
      if (atomic_load_explicit(&p->status, memory_order_relaxed) == 0)
        dispatch(p, r);
      head += r->size;
      if (head - given >= PUBLISH_BYTES) {
        give_back(p, head);
        given = head;
      }
    }
  }
  return NULL;
}

/* ---- The producer's side ----------------------------------------------------------- */

static void publish(struct consumer_thread *p) {
  atomic_store(&p->tail, p->write);
  p->published = p->write;
  if (atomic_load(&p->consumer_waits) &&
      (p->write - atomic_load(&p->head) >= WAKE_BYTES || atomic_load(&p->done)))
    signal_locked(p, &p->not_empty);
}

/* Room for a record of `size` bytes, contiguous, waiting for it; NULL once the consumer
 * has failed. The record is the consumer's once commit() has counted it. */
static struct record *reserve(struct consumer_thread *p, size_t size) {
  size_t at = p->write % RING_BYTES;
  size_t skip = at + size > RING_BYTES ? RING_BYTES - at : 0;
  if (p->write + skip + size - p->head_seen > RING_BYTES) {
    p->head_seen = atomic_load(&p->head);
    if (p->write + skip + size - p->head_seen > RING_BYTES) {
      publish(p); /* what the consumer must take to make room */
      pthread_mutex_lock(&p->lock);
      atomic_store(&p->producer_waits, true);
      while (p->write - atomic_load(&p->head) > RING_BYTES / 2 && !atomic_load(&p->status))
        pthread_cond_wait(&p->not_full, &p->lock);
      atomic_store(&p->producer_waits, false);
      pthread_mutex_unlock(&p->lock);
      p->head_seen = atomic_load(&p->head);
    }
  }
  if (atomic_load_explicit(&p->status, memory_order_relaxed))
    return NULL;
  if (skip) {
    struct record *filler = (struct record *)(p->ring + at);
    filler->size = (uint32_t)skip;
    filler->type = RECORD_SKIP;
    p->write += skip;
    at = 0;
  }
  struct record *r = (struct record *)(p->ring + at);
  r->size = (uint32_t)size;
  return r;
}

static void commit(struct consumer_thread *p, const struct record *r) {
  p->write += r->size;
  if (p->write - p->published >= PUBLISH_BYTES)
    publish(p);
}

/* A string's length as the record keeps it: whole, unless a record's room cuts it. */
static size_t kept(const char *s, size_t limit) {
  size_t len = s ? strlen(s) : 0;
  return len < limit ? len : limit;
}

enum { STRING_MAX = 4096 };

static int put_call(void *context, const struct trace_call *call) {
  struct consumer_thread *p = context;
  size_t base = align8(offsetof(struct record, u) + sizeof(struct trace_call));
  size_t room = RECORD_MAX - base;
  size_t n = call->arg_count, args_size = n * sizeof *call->args;
  if (args_size > room / 4) {
    n = room / 4 / sizeof *call->args;
    args_size = n * sizeof *call->args;
  }
  size_t text = call->text_used < room / 4 ? call->text_used : room / 4;
  size_t prepared = call->from.prepared_size < room / 4 ? call->from.prepared_size : 0;
  size_t slots = p->copy_slots && call->slots ? call->slot_count : 0;
  if (slots * sizeof *call->slots > room / 8)
    slots = room / 8 / sizeof *call->slots;
  struct record *r = reserve(p, align8(base + args_size + slots * sizeof *call->slots +
                                       align8(prepared) + text + 1));
  if (!r)
    return atomic_load(&p->status);
  r->type = RECORD_CALL;
  struct trace_call *c = &r->u.call;
  *c = *call;
  c->from.event = NULL;
  struct trace_arg *args = (struct trace_arg *)((unsigned char *)r + base);
  memcpy(args, call->args, args_size);
  char *after = (char *)args + args_size;
  c->slots = slots ? memcpy(after, call->slots, slots * sizeof *call->slots) : NULL;
  c->slot_count = slots;
  after += slots * sizeof *call->slots;
  if (prepared) {
    memcpy(after, call->from.prepared, prepared);
    c->from.prepared = after;
    after += align8(prepared);
  } else {
    c->from.prepared = NULL;
    c->from.prepared_size = 0;
  }
  /* The trace's strings in one copy; the static ones (names of values) as they are. */
  memcpy(after, call->text, text);
  after[text] = 0; /* a string cut at the end stays terminated */
  for (size_t i = 0; i < n; i++) {
    const char *s = call->args[i].v.s;
    if (call->args[i].kind == TRACE_ARG_STRING && s >= call->text &&
        s < call->text + call->text_used)
      args[i].v.s = s < call->text + text ? after + (s - call->text) : "";
  }
  c->args = args;
  c->arg_count = n;
  c->text = after;
  c->text_used = text;
  commit(p, r);
  return 0;
}

/* A string field of a record's struct, and its length's field (NO_LENGTH: none). */
enum { NO_LENGTH = SIZE_MAX };
struct string_field {
  size_t at, length_at;
};

/* Any record but a call: its struct, then a copy of each of its strings of the trace's
 * own (NULL stays NULL), the struct's pointers and lengths aimed at the copies. A struct
 * that starts with its trace_source (has_source) loses its event; a stream's path lives
 * as long as the trace. */
static int put_struct(void *context, enum record_type kind, const void *record, size_t size,
                      bool has_source, const struct string_field *fields, size_t n) {
  struct consumer_thread *p = context;
  const char *from[8]; /* n is at most 5 */
  size_t len[8], extra = 0;
  for (size_t i = 0; i < n; i++) {
    memcpy(&from[i], (const char *)record + fields[i].at, sizeof from[i]);
    len[i] = kept(from[i], STRING_MAX);
    extra += from[i] ? len[i] + 1 : 0;
  }
  size_t base = offsetof(struct record, u) + size;
  struct record *r = reserve(p, align8(base + extra));
  if (!r)
    return atomic_load(&p->status);
  r->type = kind;
  memcpy(&r->u, record, size);
  if (has_source)
    ((struct trace_source *)(void *)&r->u)->event = NULL;
  char *at = (char *)r + base;
  for (size_t i = 0; i < n; i++) {
    if (!from[i])
      continue;
    const char *copy = memcpy(at, from[i], len[i]);
    at[len[i]] = 0;
    at += len[i] + 1;
    memcpy((char *)&r->u + fields[i].at, &copy, sizeof copy);
    if (fields[i].length_at != NO_LENGTH)
      memcpy((char *)&r->u + fields[i].length_at, &len[i], sizeof len[i]);
  }
  commit(p, r);
  return 0;
}

#define STRING(type, field, length) {offsetof(type, field), length}
#define STRING_WITH_LENGTH(type, field) STRING(type, field, offsetof(type, field##_len))

static int put_device(void *context, const struct trace_device *dev) {
  static const struct string_field strings[] = {
      STRING_WITH_LENGTH(struct trace_device, name),
      STRING_WITH_LENGTH(struct trace_device, device_name)};
  return put_struct(context, RECORD_DEVICE, dev, sizeof *dev, true, strings, 2);
}

static int put_region(void *context, const struct trace_region *region) {
  static const struct string_field strings[] = {
      STRING_WITH_LENGTH(struct trace_region, name),
      STRING_WITH_LENGTH(struct trace_region, backend)};
  return put_struct(context, RECORD_REGION, region, sizeof *region, true, strings, 2);
}

static int put_rank(void *context, const struct trace_rank *rank) {
  static const struct string_field strings[] = {STRING(struct trace_rank, launcher, NO_LENGTH)};
  return put_struct(context, RECORD_RANK, rank, sizeof *rank, true, strings, 1);
}

static int put_sample(void *context, const struct trace_sample *sample) {
  static const struct string_field strings[] = {
      STRING(struct trace_sample, backend, NO_LENGTH),
      STRING(struct trace_sample, counter, NO_LENGTH),
      STRING(struct trace_sample, unit, NO_LENGTH),
      STRING(struct trace_sample, why, NO_LENGTH),
      STRING(struct trace_sample, device_name, NO_LENGTH)};
  return put_struct(context, RECORD_SAMPLE, sample, sizeof *sample, true, strings, 5);
}

static int put_pc_sample(void *context, const struct trace_pc_sample *sample) {
  static const struct string_field strings[] = {
      STRING_WITH_LENGTH(struct trace_pc_sample, function),
      STRING_WITH_LENGTH(struct trace_pc_sample, stall)};
  return put_struct(context, RECORD_PC_SAMPLE, sample, sizeof *sample, true, strings, 2);
}

static int put_notice(void *context, const struct trace_notice *notice) {
  static const struct string_field strings[] = {
      STRING_WITH_LENGTH(struct trace_notice, backend),
      STRING_WITH_LENGTH(struct trace_notice, text)};
  return put_struct(context, RECORD_NOTICE, notice, sizeof *notice, true, strings, 2);
}

#undef STRING_WITH_LENGTH
#undef STRING

static int put_pause(void *context, const struct trace_pause *pause) {
  return put_struct(context, RECORD_PAUSE, pause, sizeof *pause, true, NULL, 0);
}

static int put_counted(void *context, const struct trace_counted *counted) {
  return put_struct(context, RECORD_COUNTED, counted, sizeof *counted, true, NULL, 0);
}

static int put_unfinished(void *context, const struct trace_unfinished *unfinished) {
  return put_struct(context, RECORD_UNFINISHED, unfinished, sizeof *unfinished, true, NULL, 0);
}

static int put_cost(void *context, const struct trace_cost *cost) {
  return put_struct(context, RECORD_COST, cost, sizeof *cost, true, NULL, 0);
}

static int put_stream_done(void *context, const struct trace_stream_stats *stream) {
  return put_struct(context, RECORD_STREAM_DONE, stream, sizeof *stream, false, NULL, 0);
}

/* Stops the thread once it has taken every record; its first non-zero status. */
static int drain(struct consumer_thread *p) {
  if (!p->finished) {
    p->finished = true;
    publish(p);
    pthread_mutex_lock(&p->lock);
    atomic_store(&p->done, true);
    pthread_cond_signal(&p->not_empty);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
  }
  return atomic_load(&p->status);
}

/* A consumer that reads some calls' record itself (TRACE_NEEDS_RECORD: the tally, for a
 * message's bytes) stays where the event is: copying every slot of every call for the
 * few it reads made the tally beside a timeline cost 0.15-0.35 s more on 10M calls, and
 * the reading thread has the room for it (bench/RESULTS.md). */
bool consumer_thread_can_take(const struct trace_consumer *c) {
  return !c->other && !c->horizon && !c->prepare_call && !c->prepare_other &&
         !(c->needs & (TRACE_NEEDS_EVENT | TRACE_NEEDS_HORIZON | TRACE_NEEDS_RECORD));
}

static void free_thread(struct consumer_thread *p) {
  free(p->ring);
  call_args_free(p->arg_cache);
  free(p->downstream);
  free(p->call_targets);
  pthread_mutex_destroy(&p->lock);
  pthread_cond_destroy(&p->not_full);
  pthread_cond_destroy(&p->not_empty);
  free(p);
}

int consumer_thread_open(const struct trace_consumer *const *downstream, size_t n,
                         bool args_beside, struct consumer_thread **out,
                         struct trace_consumer *upstream) {
  *out = NULL;
  for (size_t i = 0; i < n; i++)
    if (!consumer_thread_can_take(downstream[i]))
      return -1;
  struct consumer_thread *p = aligned_alloc(CACHE_LINE, sizeof *p);
  if (!p)
    return -1;
  memset(p, 0, sizeof *p);
  p->ring = aligned_alloc(CACHE_LINE, RING_BYTES);
  p->downstream = calloc(n + 1, sizeof *p->downstream);
  p->call_targets = calloc(n + 1, sizeof *p->call_targets);
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->not_full, NULL);
  pthread_cond_init(&p->not_empty, NULL);
  *upstream = (struct trace_consumer){.name = n ? downstream[0]->name : "thread", .context = p};
  for (size_t i = 0; p->downstream && p->call_targets && i < n; i++) {
    const struct trace_consumer *d = downstream[i];
    p->downstream[p->downstream_count++] = *d;
    if (d->call)
      p->call_targets[p->call_target_count++] = (struct reader_call_target){d->call, d->context};
    p->copy_slots |= (d->needs & TRACE_NEEDS_SLOTS) != 0;
    upstream->needs |= d->needs;
    upstream->call = d->call ? put_call : upstream->call;
    upstream->device = d->device ? put_device : upstream->device;
    upstream->region = d->region ? put_region : upstream->region;
    upstream->rank = d->rank ? put_rank : upstream->rank;
    upstream->sample = d->sample ? put_sample : upstream->sample;
    upstream->pause = d->pause ? put_pause : upstream->pause;
    upstream->counted = d->counted ? put_counted : upstream->counted;
    upstream->unfinished = d->unfinished ? put_unfinished : upstream->unfinished;
    upstream->cost = d->cost ? put_cost : upstream->cost;
    upstream->notice = d->notice ? put_notice : upstream->notice;
    upstream->pc_sample = d->pc_sample ? put_pc_sample : upstream->pc_sample;
    upstream->stream_done = d->stream_done ? put_stream_done : upstream->stream_done;
  }
  bool decodes = args_beside && upstream->needs & TRACE_NEEDS_ARGS;
  if (decodes) {
    p->arg_cache = call_args_new();
    p->copy_slots = true;
    upstream->needs = (upstream->needs & ~(unsigned)TRACE_NEEDS_ARGS) | TRACE_NEEDS_SLOTS |
                      TRACE_NEEDS_STRINGS;
  }
  if (!p->ring || !p->downstream || !p->call_targets || (decodes && !p->arg_cache) ||
      pthread_create(&p->thread, NULL, consume, p) != 0) {
    free_thread(p);
    return -1;
  }
  *out = p;
  return 0;
}

int consumer_thread_close(struct consumer_thread *p) {
  if (!p)
    return 0;
  int rc = drain(p);
  free_thread(p);
  return rc;
}
