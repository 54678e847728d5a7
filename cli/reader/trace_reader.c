/* trace_reader: see trace_reader.h. The events of a stream are decoded by
 * reader_decode.c; this file decides the order: one merged read (on several threads by
 * reader_ordered.c), or streams shared out over workers. */
#include "trace_reader.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "consumer_thread.h"
#include "reader_internal.h"
#include "run_record.h"

enum { PROGRESS_EVERY = 1 << 16, MAX_PASSES = 4 };
#define PROGRESS_NS 200000000ull /* five times a second */

/* The run record's least clock read cost, in ns of the trace clock (as the decoder turns
 * a clock_read event's cost into ns). */
static void clock_read_least(struct trace_reader *r, const char *dir) {
  struct run_record run;
  run_record_read(dir, &run);
  if (!run.present || !run.clock_read_least || !ctf_trace_event_class_count(r->trace))
    return;
  const struct ctf_clock_class *clock = ctf_trace_event_class(r->trace, 0)->stream_class->clock;
  r->clock_read_least_ns =
      clock && clock->frequency && clock->frequency != 1000000000u
          ? (uint64_t)((double)run.clock_read_least * 1e9 / (double)clock->frequency + 0.5)
          : run.clock_read_least;
  r->has_clock_read_least = true;
}

int trace_reader_open(const char *dir, struct trace_reader **out, struct diag *d) {
  *out = NULL;
  struct trace_reader *r = calloc(1, sizeof *r);
  if (!r)
    return diag_error(d, "out of memory");
  struct ctf_error err;
  if (ctf_trace_open(dir, &r->trace, &err) != CTF_OK) {
    free(r);
    return diag_error(d, "%s", err.message);
  }
  if (event_map_build(r->trace, &r->map)) {
    ctf_trace_close(r->trace);
    free(r);
    return diag_error(d, "out of memory");
  }
  size_t classes = ctf_trace_event_class_count(r->trace);
  size_t streams = ctf_trace_stream_count(r->trace);
  r->extra = calloc(classes + 1, sizeof *r->extra);
  r->stream_host = calloc(streams + 1, sizeof *r->stream_host);
  r->hosts = calloc(streams + 1, sizeof *r->hosts);
  r->stacks = trace_stacks_new();
  if (!r->extra || !r->stream_host || !r->hosts || !r->stacks) {
    trace_reader_close(r);
    return diag_error(d, "out of memory");
  }
  for (size_t i = 0; i < classes; i++) {
    const struct ctf_event_class *c = ctf_trace_event_class(r->trace, i);
    r->extra[c->index] = (struct reader_extra_fields){
        ctf_event_class_field_index(c, "call_tid"), ctf_event_class_field_index(c, "call_start"),
        ctf_event_class_field_index(c, "depth"), ctf_event_class_field_index(c, "device"),
        ctf_event_class_field_index(c, "device_name"), ctf_event_class_field_index(c, "call_stack")};
  }
  for (size_t i = 0; i < r->map.count; i++)
    r->has_batches |= r->map.infos[i].batch;
  /* Hosts by their first stream, in stream order. */
  for (size_t i = 0; i < streams; i++) {
    const struct ctf_stream *s = ctf_trace_stream(r->trace, i);
    const char *name = ctf_subtrace_env_string(s->subtrace, "hostname");
    name = name ? name : "unknown";
    size_t h = 0;
    while (h < r->host_count && strcmp(r->hosts[h], name) != 0)
      h++;
    if (h == r->host_count)
      r->hosts[r->host_count++] = name;
    r->stream_host[i] = (int)h;
    r->bytes += s->file_size;
  }
  clock_read_least(r, dir);
  if (reader_losses_find(r)) {
    trace_reader_close(r);
    return diag_error(d, "out of memory");
  }
  *out = r;
  return 0;
}

void trace_reader_close(struct trace_reader *r) {
  if (!r)
    return;
  reader_losses_free(r);
  event_map_free(&r->map);
  ctf_trace_close(r->trace);
  free(r->extra);
  free(r->stream_host);
  free(r->hosts);
  trace_stacks_free(r->stacks);
  free(r);
}

const struct ctf_trace *trace_reader_trace(const struct trace_reader *r) { return r->trace; }
const struct event_map *trace_reader_map(const struct trace_reader *r) { return &r->map; }
uint64_t trace_reader_bytes(const struct trace_reader *r) { return r->bytes; }

void trace_reader_set_window(struct trace_reader *r, const struct trace_window *window) {
  r->window = window;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void reader_note_error(char **error, const char *message) {
  if (!*error)
    *error = strdup(message);
}

void reader_hand_out_stream(const struct reader_target *targets, size_t n,
                            const struct trace_reader *r, size_t stream,
                            const struct reader_stream_count *count) {
  const struct ctf_stream *s = ctf_trace_stream(r->trace, stream);
  r->stream_events[stream] = count->events;
  struct trace_stream_stats stats = {stream, s->path, r->stream_host[stream], count->events,
                                     count->own_events, count->batch_events, count->discarded,
                                     s->file_size};
  for (size_t i = 0; i < n; i++)
    if (targets[i].consumer->stream_done)
      targets[i].consumer->stream_done(targets[i].context, &stats);
}

/* ---- In time order: the streams merged, on this thread ------------------------------ */

int reader_hand_out_horizon(const struct reader_target *targets, size_t n,
                            const struct event_info *info, uint64_t timestamp,
                            const uint64_t *until, size_t batch_count, size_t *batches_read) {
  if (info->role == EVENT_CALIBRATION_SAMPLE)
    return 0;
  *batches_read += info->role == EVENT_CALL && info->batch;
  uint64_t horizon = timestamp;
  if (*batches_read < batch_count && until[*batches_read] < horizon)
    horizon = until[*batches_read]; /* a batch still to come holds calls from then on */
  int status = 0;
  for (size_t i = 0; i < n && !status; i++)
    if (targets[i].consumer->horizon)
      status = targets[i].consumer->horizon(targets[i].context, horizon);
  return status;
}

void reader_progress_step(struct read_state *st, struct reader_progress *p,
                          const uint64_t *offsets, size_t streams) {
  if (!st->options->progress || ++p->seen % PROGRESS_EVERY != 0 ||
      now_ns() - p->last < PROGRESS_NS)
    return;
  uint64_t done = 0;
  for (size_t i = 0; i < streams; i++)
    done += offsets[i];
  st->options->progress(st->options->progress_context, done, st->reader->bytes, false);
  p->last = now_ns();
}

static void read_in_order(struct read_state *st, const struct reader_target *targets,
                          size_t n) {
  const struct trace_reader *r = st->reader;
  size_t streams = ctf_trace_stream_count(r->trace);
  struct decoder d;
  struct ctf_merge *merge = NULL;
  struct ctf_error err;
  struct reader_stream_count *counts = calloc(streams + 1, sizeof *counts);
  uint64_t *offsets = calloc(streams + 1, sizeof *offsets);
  if (decoder_init(&d, r, targets, n) || !counts || !offsets) {
    st->failed = true;
    reader_note_error(&st->error, "out of memory");
    goto done;
  }
  for (size_t i = 0; i < streams; i++)
    counts[i].packet = UINT64_MAX;
  if (ctf_merge_open(r->trace, NULL, streams, &merge, &err) != CTF_OK) {
    reader_note_error(&st->error, err.message);
    goto done;
  }
  size_t batch_count = 0, batches_read = 0;
  uint64_t *until = d.needs & TRACE_NEEDS_HORIZON ? reader_batch_horizons(r, &batch_count)
                                                  : NULL;
  struct reader_progress progress = {0, now_ns()};
  const struct ctf_event *ev;
  enum ctf_status status;
  while ((status = ctf_merge_next(merge, &ev, &err)) != CTF_END) {
    if (status != CTF_OK) {
      reader_note_error(&st->error, err.message); /* one stream failed; the others go on */
      continue;
    }
    size_t stream = ev->stream->index;
    offsets[stream] = ev->offset;
    if (decoder_event(&d, ev, r->stream_host[stream], &counts[stream])) {
      st->failed = true;
      break;
    }
    /* The run's first and last event: of the window's, when one is set. */
    if (!d.window_left_out && st->summary.events++ == 0)
      st->summary.first = d.time;
    if (!d.window_left_out)
      st->summary.last = d.time;
    const struct event_info *info = &r->map.infos[ev->event_class->index];
    if (d.needs & TRACE_NEEDS_HORIZON &&
        (d.status = reader_hand_out_horizon(targets, n, info, ev->timestamp, until,
                                            batch_count, &batches_read))) {
      st->failed = true;
      break;
    }
    reader_progress_step(st, &progress, offsets, streams);
  }
  free(until);
  for (size_t i = 0; i < streams; i++)
    reader_hand_out_stream(targets, n, r, i, &counts[i]);
done:
  if (st->options->progress)
    st->options->progress(st->options->progress_context, r->bytes, r->bytes, true);
  ctf_merge_close(merge);
  decoder_free(&d);
  free(counts);
  free(offsets);
}

/* ---- Stream by stream, over workers --------------------------------------------------- */

struct worker {
  const struct trace_reader *reader;
  struct reader_target *targets; /* the consumers with this worker's contexts; owned */
  size_t target_count;
  size_t *streams;               /* assigned stream indices; owned */
  size_t stream_count;
  char *error;                   /* this worker's first error; owned */
  bool failed;
  atomic_uint_fast64_t *bytes_done;
  atomic_bool *stop;
  atomic_int *workers_left;      /* the workers still reading */
};

static void read_stream(struct worker *w, struct decoder *d, size_t stream) {
  const struct trace_reader *r = w->reader;
  struct reader_stream_count count = {.packet = UINT64_MAX};
  struct ctf_cursor *cursor;
  struct ctf_error error;
  const struct ctf_stream *s = ctf_trace_stream(r->trace, stream);
  if (ctf_cursor_open(r->trace, stream, &cursor, &error) != CTF_OK) {
    reader_note_error(&w->error, error.message);
    reader_hand_out_stream(w->targets, w->target_count, r, stream, &count);
    return;
  }
  int host = r->stream_host[stream];
  const struct ctf_event *ev;
  uint64_t last_offset = 0;
  enum ctf_status st;
  for (;;) {
    st = ctf_cursor_next(cursor, &ev, &error);
    if (st != CTF_OK) {
      if (st == CTF_END || ctf_cursor_failed(cursor))
        break;
      reader_note_error(&w->error, error.message); /* a damaged packet, skipped: the rest counts */
      continue;
    }
    if (decoder_event(d, ev, host, &count)) {
      w->failed = true;
      atomic_store(w->stop, true);
      break;
    }
    if ((count.events & 0xffff) == 0) {
      atomic_fetch_add(w->bytes_done, ev->offset - last_offset);
      last_offset = ev->offset;
      if (atomic_load(w->stop))
        break;
    }
  }
  if (st != CTF_END && st != CTF_OK && ctf_cursor_failed(cursor))
    reader_note_error(&w->error, error.message);
  atomic_fetch_add(w->bytes_done, s->file_size - last_offset);
  reader_hand_out_stream(w->targets, w->target_count, r, stream, &count);
  ctf_cursor_close(cursor);
}

static void *worker_main(void *arg) {
  struct worker *w = arg;
  struct decoder d;
  if (decoder_init(&d, w->reader, w->targets, w->target_count)) {
    w->failed = true;
    reader_note_error(&w->error, "out of memory");
  }
  for (size_t i = 0; !w->failed && i < w->stream_count && !atomic_load(w->stop); i++)
    read_stream(w, &d, w->streams[i]);
  decoder_free(&d);
  return NULL;
}

static void *worker_thread(void *arg) {
  struct worker *w = arg;
  worker_main(w);
  atomic_fetch_sub(w->workers_left, 1);
  return NULL;
}

static unsigned worker_count(const struct trace_read_options *options,
                             const struct reader_target *targets, size_t n, size_t streams) {
  unsigned threads = options->threads;
  if (threads == 0) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    threads = cores > 0 ? (unsigned)cores : 1;
  }
  for (size_t i = 0; i < n; i++)
    if (!targets[i].consumer->fork || !targets[i].consumer->join)
      threads = 1; /* a consumer that cannot be copied takes one thread */
  if (threads > streams)
    threads = streams ? (unsigned)streams : 1;
  return threads;
}

static void read_by_stream(struct read_state *st, const struct reader_target *targets,
                           size_t n) {
  const struct trace_reader *r = st->reader;
  size_t streams = ctf_trace_stream_count(r->trace);
  unsigned threads = worker_count(st->options, targets, n, streams);
  bool copies = threads > 1;
  st->threads = threads;
  struct worker *workers = calloc(threads, sizeof *workers);
  size_t *order = calloc(streams + 1, sizeof *order);
  uint64_t *load = calloc(threads, sizeof *load);
  pthread_t *ids = calloc(threads, sizeof *ids);
  atomic_uint_fast64_t bytes_done;
  atomic_bool stop;
  atomic_int workers_left;
  atomic_init(&bytes_done, 0);
  atomic_init(&stop, false);
  atomic_init(&workers_left, (int)threads);
  bool ok = workers && order && load && ids;
  /* Streams go to the least loaded worker, largest first. */
  for (size_t i = 0; ok && i < streams; i++)
    order[i] = i;
  for (size_t i = 1; ok && i < streams; i++)
    for (size_t k = i; k > 0 && ctf_trace_stream(r->trace, order[k])->file_size >
                                    ctf_trace_stream(r->trace, order[k - 1])->file_size;
         k--) {
      size_t tmp = order[k];
      order[k] = order[k - 1];
      order[k - 1] = tmp;
    }
  for (unsigned i = 0; ok && i < threads; i++) {
    struct worker *w = &workers[i];
    *w = (struct worker){.reader = r, .target_count = n, .bytes_done = &bytes_done,
                         .stop = &stop, .workers_left = &workers_left};
    w->streams = calloc(streams + 1, sizeof *w->streams);
    w->targets = calloc(n + 1, sizeof *w->targets);
    ok = w->streams && w->targets;
    for (size_t k = 0; ok && k < n; k++) {
      w->targets[k].consumer = targets[k].consumer;
      w->targets[k].context = copies ? targets[k].consumer->fork(targets[k].context)
                                     : targets[k].context;
      ok = w->targets[k].context != NULL;
    }
  }
  for (size_t i = 0; ok && i < streams; i++) {
    unsigned best = 0;
    for (unsigned k = 1; k < threads; k++)
      if (load[k] < load[best])
        best = k;
    workers[best].streams[workers[best].stream_count++] = order[i];
    load[best] += ctf_trace_stream(r->trace, order[i])->file_size;
  }
  for (unsigned i = 0; ok && i < threads; i++)
    if (pthread_create(&ids[i], NULL, worker_thread, &workers[i]) != 0) {
      /* Here instead: the read must not fail for want of a thread. */
      worker_main(&workers[i]);
      atomic_fetch_sub(&workers_left, 1);
      ids[i] = 0;
    }
  while (ok && st->options->progress && atomic_load(&workers_left) > 0) {
    st->options->progress(st->options->progress_context, atomic_load(&bytes_done), r->bytes,
                          false);
    struct timespec nap = {0, PROGRESS_NS};
    nanosleep(&nap, NULL);
  }
  for (unsigned i = 0; ok && i < threads; i++)
    if (ids[i])
      pthread_join(ids[i], NULL);
  if (ok && st->options->progress)
    st->options->progress(st->options->progress_context, atomic_load(&bytes_done), r->bytes,
                          true);
  for (unsigned i = 0; workers && i < threads; i++) {
    struct worker *w = &workers[i];
    for (size_t k = 0; copies && w->targets && k < n; k++)
      if (w->targets[k].context && targets[k].consumer->join(targets[k].context,
                                                             w->targets[k].context))
        st->failed = true;
    if (w->error)
      reader_note_error(&st->error, w->error);
    st->failed |= w->failed;
    free(w->error);
    free(w->streams);
    free(w->targets);
  }
  if (!ok) {
    st->failed = true;
    reader_note_error(&st->error, "out of memory");
  }
  free(workers);
  free(order);
  free(load);
  free(ids);
}

/* ---- A read in time order, some consumers beside it --------------------------------- */

static unsigned usable_cores(const struct trace_read_options *options) {
  if (options->threads)
    return options->threads;
  cpu_set_t set;
  return sched_getaffinity(0, sizeof set, &set) == 0 ? (unsigned)CPU_COUNT(&set) : 1;
}

/* A thread for the consumers that can run beside the read pays when one of them writes
 * every call out in full (it takes the arguments: the timeline) and a core is left beyond
 * those the read takes: the copy through the ring costs the reading thread about what a
 * light consumer (the gaps, HTA) spends on a call, and the writer then no longer waits
 * on the decoding (bench/RESULTS.md: the timeline of a 10M-event trace 1.3 s instead of
 * 1.9 on 2 cores). The light ones that can go with it do (the gaps, HTA, the samples);
 * the reading thread decodes, copies, and runs what cannot go (the tally, which reads
 * some calls' records; -t, which reads the raw events). */
static bool worth_a_thread(const struct read_state *st, const struct reader_target *targets,
                           size_t n) {
  if (usable_cores(st->options) <= reader_ordered_threads(st))
    return false;
  for (size_t i = 0; i < n; i++)
    if (targets[i].consumer->needs & TRACE_NEEDS_ARGS &&
        consumer_thread_can_take(targets[i].consumer))
      return true;
  return false;
}

static void read_ordered(struct read_state *st, const struct reader_target *targets, size_t n) {
  struct reader_target *kept = NULL;
  const struct trace_consumer **moved = NULL;
  struct consumer_thread *beside = NULL;
  struct trace_consumer upstream;
  size_t kept_count = 0, moved_count = 0;
  if (worth_a_thread(st, targets, n)) {
    kept = calloc(n + 1, sizeof *kept);
    moved = calloc(n + 1, sizeof *moved);
    for (size_t i = 0; kept && moved && i < n; i++) {
      if (consumer_thread_can_take(targets[i].consumer))
        moved[moved_count++] = targets[i].consumer;
      else
        kept[kept_count++] = targets[i];
    }
    /* The arguments are decoded beside the read unless one left here takes them too. */
    bool args_beside = true;
    for (size_t i = 0; kept && i < kept_count; i++)
      args_beside &= !(kept[i].consumer->needs & TRACE_NEEDS_ARGS);
    if (kept && moved &&
        consumer_thread_open(moved, moved_count, args_beside, &beside, &upstream) == 0) {
      kept[kept_count++] = (struct reader_target){&upstream, upstream.context};
      targets = kept;
      n = kept_count;
      st->beside = (unsigned)moved_count;
      size_t used = 0;
      for (size_t i = 0; i < moved_count && used < sizeof st->beside_names; i++)
        used += (size_t)snprintf(st->beside_names + used, sizeof st->beside_names - used,
                                 "%s%s", i ? ", " : "", moved[i]->name);
    }
  }
  if (!reader_read_ordered_parallel(st, targets, n))
    read_in_order(st, targets, n);
  if (beside && consumer_thread_close(beside))
    st->failed = true;
  free(kept);
  free(moved);
}

/* ---- The read ------------------------------------------------------------------------ */

enum trace_read_status trace_read(struct trace_reader *r,
                                  const struct trace_consumer *const *consumers, size_t n,
                                  const struct trace_read_options *options, struct diag *d) {
  static const struct trace_read_options defaults = {0};
  struct reader_target *targets = calloc(n + 1, sizeof *targets);
  if (!targets) {
    diag_error(d, "out of memory");
    return TRACE_READ_FAILED;
  }
  for (size_t i = 0; i < n; i++)
    targets[i] = (struct reader_target){consumers[i], consumers[i]->context};
  enum trace_read_status result = TRACE_READ_OK;
  size_t count = n;
  for (int pass = 0; count && pass < MAX_PASSES; pass++) {
    struct read_state st = {.reader = r, .options = pass == 0 && options ? options : &defaults};
    bool ordered = false;
    for (size_t i = 0; i < count; i++)
      ordered |= (targets[i].consumer->needs & TRACE_NEEDS_ORDER) != 0;
    st.threads = 1;
    if (ordered) {
      read_ordered(&st, targets, count);
    } else {
      read_by_stream(&st, targets, count);
    }
    if (pass == 0 && options && options->report) {
      *options->report = (struct trace_read_report){ordered, st.threads, st.beside, ""};
      memcpy(options->report->beside_names, st.beside_names, sizeof st.beside_names);
    }
    st.summary.error = st.error;
    st.summary.hosts = r->hosts;
    st.summary.host_count = r->host_count;
    /* Those that want the trace once more are read again, alone. */
    size_t again = 0;
    for (size_t i = 0; i < count; i++) {
      int rc = targets[i].consumer->finish
                   ? targets[i].consumer->finish(targets[i].context, &st.summary)
                   : 0;
      if (rc == TRACE_READ_AGAIN && !st.failed)
        targets[again++] = targets[i];
      else if (rc)
        st.failed = true;
    }
    count = again;
    if (st.failed) {
      diag_error(d, "%s", st.error ? st.error : "a report or export stopped the read");
      result = TRACE_READ_FAILED;
    } else if (st.error && result == TRACE_READ_OK) {
      diag_error(d, "%s", st.error);
      result = TRACE_READ_PARTIAL;
    }
    free(st.error);
    if (result == TRACE_READ_FAILED)
      break;
  }
  free(targets);
  return result;
}
