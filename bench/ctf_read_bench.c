/* ctf_read_bench: events per second of the CTF reader (cli/ctf/ctf_*.c) on a trace.
 *
 * Each pass reads every event's header, timestamp, the `vtid` context field and one
 * u64 payload field (default `n`, the ctf_test provider's tick counter), and folds
 * them into a checksum so nothing is optimized away. Passes:
 *   cursors   one cursor per stream, streams one after the other (single thread)
 *   merge     all streams merged in time order (single thread)
 *   threads   one thread per stream at once (per-stream parallel use)
 *   headers   cursors, header and timestamp only (payloads skipped)
 *   decode    cursors, every payload field decoded into values
 * Each pass runs `--runs` times (default 3; the best is shown: page cache warm).
 *
 * Build (not part of the CMake build):
 *   cc -O2 -std=c11 -D_GNU_SOURCE -Icli/ctf -o /tmp/ctf_read_bench bench/ctf_read_bench.c \
 *      cli/ctf/ctf_*.c -lpthread
 * Usage: ctf_read_bench TRACE [--field NAME] [--runs N]
 * Compare with: babeltrace2 --component=source.ctf.fs --params='inputs=["DIR"]' \
 *                 --component=sink.utils.dummy            (DIR: the folder of `metadata`) */
#include "ctf.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum pass { PASS_CURSORS, PASS_MERGE, PASS_THREADS, PASS_HEADERS, PASS_DECODE, PASS_COUNT };
static const char *const pass_names[PASS_COUNT] = {"cursors", "merge", "threads", "headers",
                                                   "decode"};

struct bench {
  const struct ctf_trace *trace;
  int vtid_key;
  int *field_of_class;   /* payload field index per event class, -1 when absent */
};

struct tally {
  uint64_t events;
  uint64_t checksum;
  int failed;
};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* What an analysis does per event: timestamp, vtid, one u64 field. */
static inline void visit(const struct bench *b, const struct ctf_event *event,
                         struct tally *tally) {
  int64_t vtid = 0;
  ctf_event_context_int(event, b->vtid_key, &vtid);
  uint64_t field = 0;
  int index = b->field_of_class[event->event_class->index];
  if (index >= 0) {
    struct ctf_value value;
    if (ctf_event_decode_field(event, (size_t)index, &value, NULL) == CTF_OK)
      field = value.u.u;
  }
  tally->checksum += event->timestamp ^ (uint64_t)vtid ^ field;
  tally->events++;
}

static void read_stream(const struct bench *b, size_t stream, enum pass pass,
                        struct tally *tally) {
  struct ctf_cursor *cursor = NULL;
  struct ctf_error error;
  if (ctf_cursor_open(b->trace, stream, &cursor, &error) != CTF_OK) {
    fprintf(stderr, "ctf_read_bench: %s\n", error.message);
    tally->failed = 1;
    return;
  }
  struct ctf_value values[64];
  const struct ctf_event *event;
  enum ctf_status status;
  while ((status = ctf_cursor_next(cursor, &event, &error)) == CTF_OK) {
    if (pass == PASS_HEADERS) {
      tally->checksum += event->timestamp ^ event->event_class->id;
      tally->events++;
    } else if (pass == PASS_DECODE) {
      if (event->event_class->field_count <= 64 &&
          ctf_event_decode_payload(event, values, 64, &error) == CTF_OK &&
          event->event_class->field_count)
        tally->checksum += values[0].u.u;
      tally->checksum += event->timestamp;
      tally->events++;
    } else {
      visit(b, event, tally);
    }
  }
  if (status != CTF_END) {
    fprintf(stderr, "ctf_read_bench: %s\n", error.message);
    tally->failed = 1;
  }
  ctf_cursor_close(cursor);
}

struct thread_job {
  const struct bench *bench;
  size_t stream;
  struct tally tally;
};

static void *thread_main(void *arg) {
  struct thread_job *job = arg;
  read_stream(job->bench, job->stream, PASS_CURSORS, &job->tally);
  return NULL;
}

static struct tally run_pass(const struct bench *b, enum pass pass) {
  struct tally tally = {0};
  size_t streams = ctf_trace_stream_count(b->trace);
  if (pass == PASS_MERGE) {
    struct ctf_merge *merge = NULL;
    struct ctf_error error;
    if (ctf_merge_open(b->trace, NULL, 0, &merge, &error) != CTF_OK) {
      fprintf(stderr, "ctf_read_bench: %s\n", error.message);
      tally.failed = 1;
      return tally;
    }
    const struct ctf_event *event;
    enum ctf_status status;
    while ((status = ctf_merge_next(merge, &event, &error)) == CTF_OK)
      visit(b, event, &tally);
    if (status != CTF_END) {
      fprintf(stderr, "ctf_read_bench: %s\n", error.message);
      tally.failed = 1;
    }
    ctf_merge_close(merge);
  } else if (pass == PASS_THREADS) {
    struct thread_job *jobs = calloc(streams, sizeof *jobs);
    pthread_t *threads = calloc(streams, sizeof *threads);
    for (size_t i = 0; i < streams; i++) {
      jobs[i].bench = b;
      jobs[i].stream = i;
      pthread_create(&threads[i], NULL, thread_main, &jobs[i]);
    }
    for (size_t i = 0; i < streams; i++) {
      pthread_join(threads[i], NULL);
      tally.events += jobs[i].tally.events;
      tally.checksum += jobs[i].tally.checksum;
      tally.failed |= jobs[i].tally.failed;
    }
    free(jobs);
    free(threads);
  } else {
    for (size_t i = 0; i < streams; i++)
      read_stream(b, i, pass, &tally);
  }
  return tally;
}

int main(int argc, char **argv) {
  const char *path = NULL, *field = "n";
  int runs = 3;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--field") && i + 1 < argc)
      field = argv[++i];
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = atoi(argv[++i]);
    else
      path = argv[i];
  }
  if (!path || runs < 1) {
    fprintf(stderr, "usage: ctf_read_bench TRACE [--field NAME] [--runs N]\n");
    return 2;
  }
  double opened_at = now();
  struct ctf_trace *trace = NULL;
  struct ctf_error error;
  if (ctf_trace_open(path, &trace, &error) != CTF_OK) {
    fprintf(stderr, "ctf_read_bench: %s\n", error.message);
    return 1;
  }
  double open_seconds = now() - opened_at;
  struct bench b = {.trace = trace, .vtid_key = ctf_trace_context_key(trace, "vtid")};
  size_t classes = ctf_trace_event_class_count(trace);
  b.field_of_class = calloc(classes + 1, sizeof *b.field_of_class);
  for (size_t i = 0; i < classes; i++)
    b.field_of_class[i] = ctf_event_class_field_index(ctf_trace_event_class(trace, i), field);
  printf("trace %s: %zu sub-traces, %zu streams, %zu event classes, opened in %.1f ms\n",
         path, ctf_trace_subtrace_count(trace), ctf_trace_stream_count(trace), classes,
         open_seconds * 1e3);
  int status = 0;
  for (int pass = 0; pass < PASS_COUNT; pass++) {
    double best = 0;
    struct tally tally = {0};
    for (int run = 0; run < runs; run++) {
      double start = now();
      tally = run_pass(&b, (enum pass)pass);
      double seconds = now() - start;
      if (run == 0 || seconds < best)
        best = seconds;
    }
    status |= tally.failed;
    printf("%-8s %10" PRIu64 " events in %7.3f s: %6.2f M events/s (checksum %016" PRIx64
           ")\n", pass_names[pass], tally.events, best, (double)tally.events / best / 1e6,
           tally.checksum);
  }
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  printf("peak RSS: %.1f MiB\n", (double)usage.ru_maxrss / 1024.0);
  free(b.field_of_class);
  ctf_trace_close(trace);
  return status;
}
