/* consumer_thread: see consumer_thread.h. A single-producer single-consumer ring: each side owns
 * one index and publishes it; a side with nothing to do sleeps on a condition variable
 * (never spins: the machines it runs on may be shared), and the other side wakes it
 * only when it said it sleeps, so the common path takes no lock. The waiting flags and
 * indices are sequentially consistent: of a sleeper's flag store and the other side's
 * index store, each side sees the other's, so no wake-up is lost. */
#include "consumer_thread.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { CONSUMER_THREAD_SLOTS = 2048, PIPE_ARGS = 32, PIPE_TEXT = 1024, PIPE_NAME = 256 };
/* Hysteresis, so that the two threads do not wake each other for every record: a full
 * ring's producer sleeps until half of it is free, an empty ring's consumer until
 * WAKE_BATCH records wait (or the read ends). */
enum { WAKE_BATCH = 512 };

enum record_type { RECORD_CALL, RECORD_DEVICE, RECORD_REGION, RECORD_RANK, RECORD_SAMPLE };

struct record {
  enum record_type type;
  struct trace_call call;
  struct trace_device dev;
  struct trace_region region;
  struct trace_rank rank;
  struct trace_sample sample;
  struct trace_arg args[PIPE_ARGS];
  char text[PIPE_TEXT]; /* the arguments' strings */
  char name[PIPE_NAME]; /* the device command's or region's name */
  char device_name[64]; /* the device command's device */
};

struct consumer_thread {
  struct trace_consumer downstream;
  bool finished;       /* the read's finish() was handed on */
  struct record *ring; /* CONSUMER_THREAD_SLOTS; owned */
  _Atomic size_t head; /* next slot the consumer reads */
  _Atomic size_t tail; /* next slot the producer writes */
  atomic_bool done;
  atomic_int status;   /* the consumer's first non-zero status */
  atomic_bool producer_waits, consumer_waits;
  pthread_mutex_t lock;
  pthread_cond_t not_full, not_empty;
  pthread_t thread;
};

static void wake(struct consumer_thread *p, atomic_bool *waits, pthread_cond_t *cond) {
  if (!atomic_load(waits))
    return;
  size_t queued = atomic_load(&p->tail) - atomic_load(&p->head);
  if (waits == &p->producer_waits ? queued > CONSUMER_THREAD_SLOTS / 2 : queued < WAKE_BATCH)
    return;
  pthread_mutex_lock(&p->lock);
  pthread_cond_signal(cond);
  pthread_mutex_unlock(&p->lock);
}

static void *consume(void *arg) {
  struct consumer_thread *p = arg;
  size_t head = atomic_load_explicit(&p->head, memory_order_relaxed);
  for (;;) {
    size_t tail = atomic_load(&p->tail);
    if (head == tail) {
      pthread_mutex_lock(&p->lock);
      atomic_store(&p->consumer_waits, true);
      while (atomic_load(&p->tail) - head < WAKE_BATCH && !atomic_load(&p->done))
        pthread_cond_wait(&p->not_empty, &p->lock);
      atomic_store(&p->consumer_waits, false);
      bool finished = head == atomic_load(&p->tail) && atomic_load(&p->done);
      pthread_mutex_unlock(&p->lock);
      if (finished)
        break;
      continue;
    }
    for (; head != tail; head++) {
      struct record *r = &p->ring[head % CONSUMER_THREAD_SLOTS];
      int rc = 0;
      if (atomic_load_explicit(&p->status, memory_order_relaxed) == 0) {
        const struct trace_consumer *d = &p->downstream;
        switch (r->type) {
        case RECORD_CALL: rc = d->call(d->context, &r->call); break;
        case RECORD_DEVICE: rc = d->device(d->context, &r->dev); break;
        case RECORD_REGION: rc = d->region(d->context, &r->region); break;
        case RECORD_RANK: rc = d->rank(d->context, &r->rank); break;
        case RECORD_SAMPLE: rc = d->sample(d->context, &r->sample); break;
        }
      }
      if (rc)
        atomic_store(&p->status, rc);
      atomic_store(&p->head, head + 1);
      wake(p, &p->producer_waits, &p->not_full);
    }
  }
  return NULL;
}

/* The next free slot, waiting for one; NULL once the consumer has failed. */
static struct record *slot(struct consumer_thread *p) {
  size_t tail = atomic_load_explicit(&p->tail, memory_order_relaxed);
  if (tail - atomic_load(&p->head) >= CONSUMER_THREAD_SLOTS) {
    pthread_mutex_lock(&p->lock);
    atomic_store(&p->producer_waits, true);
    while (tail - atomic_load(&p->head) > CONSUMER_THREAD_SLOTS / 2 && !atomic_load(&p->status))
      pthread_cond_wait(&p->not_full, &p->lock);
    atomic_store(&p->producer_waits, false);
    pthread_mutex_unlock(&p->lock);
  }
  return atomic_load(&p->status) ? NULL : &p->ring[tail % CONSUMER_THREAD_SLOTS];
}

static void publish(struct consumer_thread *p) {
  atomic_fetch_add(&p->tail, 1);
  wake(p, &p->consumer_waits, &p->not_empty);
}

static int put_call(void *context, const struct trace_call *call) {
  struct consumer_thread *p = context;
  struct record *r = slot(p);
  if (!r)
    return atomic_load(&p->status);
  r->type = RECORD_CALL;
  r->call = *call;
  r->call.from.event = NULL;
  r->call.slots = NULL;
  r->call.slot_count = 0;
  /* The trace's strings in one copy; the static ones (names of values) as they are. */
  size_t n = call->arg_count < PIPE_ARGS ? call->arg_count : PIPE_ARGS;
  size_t used = call->text_used < PIPE_TEXT ? call->text_used : PIPE_TEXT;
  memcpy(r->text, call->text, used);
  memcpy(r->args, call->args, n * sizeof *r->args);
  for (size_t i = 0; i < n; i++) {
    const char *s = call->args[i].v.s;
    if (call->args[i].kind == TRACE_ARG_STRING && s >= call->text &&
        s < call->text + call->text_used)
      r->args[i].v.s = s < call->text + used ? r->text + (s - call->text) : "";
  }
  r->text[used ? used - 1 : 0] = 0; /* a string cut at the end stays terminated */
  r->call.args = r->args;
  r->call.arg_count = n;
  r->call.text = r->text;
  r->call.text_used = used;
  publish(p);
  return 0;
}

static const char *copy_into(char *to, size_t size, const char *from) {
  size_t len = strlen(from);
  if (len >= size)
    len = size - 1;
  memcpy(to, from, len);
  to[len] = 0;
  return to;
}

static int put_device(void *context, const struct trace_device *dev) {
  struct consumer_thread *p = context;
  struct record *r = slot(p);
  if (!r)
    return atomic_load(&p->status);
  r->type = RECORD_DEVICE;
  r->dev = *dev;
  r->dev.from.event = NULL;
  r->dev.name = copy_into(r->name, sizeof r->name, dev->name);
  r->dev.name_len = strlen(r->dev.name);
  r->dev.device_name = copy_into(r->device_name, sizeof r->device_name, dev->device_name);
  r->dev.device_name_len = strlen(r->dev.device_name);
  publish(p);
  return 0;
}

static int put_rank(void *context, const struct trace_rank *rank) {
  struct consumer_thread *p = context;
  struct record *r = slot(p);
  if (!r)
    return atomic_load(&p->status);
  r->type = RECORD_RANK;
  r->rank = *rank;
  r->rank.from.event = NULL;
  r->rank.launcher = copy_into(r->name, sizeof r->name, rank->launcher);
  publish(p);
  return 0;
}

static int put_region(void *context, const struct trace_region *region) {
  struct consumer_thread *p = context;
  struct record *r = slot(p);
  if (!r)
    return atomic_load(&p->status);
  r->type = RECORD_REGION;
  r->region = *region;
  r->region.from.event = NULL;
  r->region.name = copy_into(r->name, sizeof r->name, region->name);
  r->region.name_len = strlen(r->region.name);
  r->region.backend = copy_into(r->text, sizeof r->text, region->backend);
  r->region.backend_len = strlen(r->region.backend);
  publish(p);
  return 0;
}

/* A sample's strings: the device's name in `name`, the others one after another in
 * `text`. */
static int put_sample(void *context, const struct trace_sample *sample) {
  struct consumer_thread *p = context;
  struct record *r = slot(p);
  if (!r)
    return atomic_load(&p->status);
  r->type = RECORD_SAMPLE;
  r->sample = *sample;
  r->sample.from.event = NULL;
  size_t third = PIPE_TEXT / 4;
  r->sample.backend = copy_into(r->text, third, sample->backend);
  r->sample.counter = sample->counter ? copy_into(r->text + third, third, sample->counter) : NULL;
  r->sample.unit = sample->unit ? copy_into(r->text + 2 * third, third, sample->unit) : NULL;
  r->sample.why = sample->why ? copy_into(r->text + 3 * third, third, sample->why) : NULL;
  r->sample.device_name =
      sample->device_name ? copy_into(r->name, sizeof r->name, sample->device_name) : NULL;
  publish(p);
  return 0;
}

/* Stops the thread once it has taken every record; its first non-zero status. */
static int drain(struct consumer_thread *p) {
  if (!p->finished) {
    p->finished = true;
    pthread_mutex_lock(&p->lock);
    atomic_store(&p->done, true);
    pthread_cond_signal(&p->not_empty);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
  }
  return atomic_load(&p->status);
}

static int put_finish(void *context, const struct trace_summary *summary) {
  struct consumer_thread *p = context;
  int rc = drain(p);
  if (p->downstream.finish) {
    int finished = p->downstream.finish(p->downstream.context, summary);
    rc = rc ? rc : finished;
  }
  return rc;
}

int consumer_thread_open(const struct trace_consumer *downstream,
                         struct consumer_thread **out, struct trace_consumer *upstream) {
  *out = NULL;
  /* Raw events (`other`: the runtime's lttng_ust_tracer:group, completed, ...) are not
   * copied into the ring: a consumer that takes them reads on the reader's thread. */
  if (downstream->other)
    return -1;
  struct consumer_thread *p = calloc(1, sizeof *p);
  if (!p)
    return -1;
  p->ring = malloc(CONSUMER_THREAD_SLOTS * sizeof *p->ring);
  p->downstream = *downstream;
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->not_full, NULL);
  pthread_cond_init(&p->not_empty, NULL);
  if (!p->ring || pthread_create(&p->thread, NULL, consume, p) != 0) {
    free(p->ring);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->not_full);
    pthread_cond_destroy(&p->not_empty);
    free(p);
    return -1;
  }
  *upstream = (struct trace_consumer){.name = downstream->name, .needs = downstream->needs,
                                      .context = p,
                                      .call = downstream->call ? put_call : NULL,
                                      .device = downstream->device ? put_device : NULL,
                                      .region = downstream->region ? put_region : NULL,
                                      .rank = downstream->rank ? put_rank : NULL,
                                      .sample = downstream->sample ? put_sample : NULL,
                                      .finish = put_finish};
  *out = p;
  return 0;
}

int consumer_thread_close(struct consumer_thread *p) {
  if (!p)
    return 0;
  int rc = drain(p);
  free(p->ring);
  pthread_mutex_destroy(&p->lock);
  pthread_cond_destroy(&p->not_full);
  pthread_cond_destroy(&p->not_empty);
  free(p);
  return rc;
}
