/* itt_regions: an ITT-instrumented program for the tests: two threads each run STEPS
 * steps of nested tasks (Step > Forward > Layer), each level sleeping a known time, with
 * a frame per step and one marker; the recording is then paused around two tasks that
 * must not be recorded. With the argument `start-paused` it first runs one task and only
 * then resumes (for tracer --start-paused).
 *
 * Writes to $APP_MANIFEST what it did: tasks per name, the least time each level's task
 * took (from its sleeps), the number of pauses and the least time spent paused.
 * Exits 77 when no collector is loaded.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "itt_loader.h"

enum { THREADS = 2, STEPS = 3 };
enum { LAYER_MS = 4, FORWARD_MS = 2, STEP_MS = 2, PAUSED_MS = 30 };

static struct itt_api itt;
static __itt_domain *domain;
static __itt_string_handle *step_name, *forward_name, *layer_name, *paused_name, *early_name;

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static void task(__itt_string_handle *name, int ms, void (*inner)(void)) {
  ITT_DOMAIN_CALL(&itt, domain, task_begin, __itt_null, __itt_null, name);
  if (inner)
    inner();
  sleep_ms(ms);
  ITT_DOMAIN_CALL0(&itt, domain, task_end);
}

static void layer(void) { task(layer_name, LAYER_MS, NULL); }
static void forward(void) { task(forward_name, FORWARD_MS, layer); }

static void *worker(void *arg) {
  (void)arg;
  ITT_CALL(&itt, thread_set_name, "worker");
  for (int s = 0; s < STEPS; s++) {
    __itt_id frame = __itt_null;
    ITT_DOMAIN_CALL(&itt, domain, frame_begin_v3, &frame);
    task(step_name, STEP_MS, forward);
    ITT_DOMAIN_CALL(&itt, domain, frame_end_v3, &frame);
  }
  return NULL;
}

int main(int argc, char **argv) {
  int start_paused = argc > 1 && strcmp(argv[1], "start-paused") == 0;
  if (!itt_load(&itt)) {
    fprintf(stderr, "itt_regions: no ITT collector (INTEL_LIBITTNOTIFY64)\n");
    return 77;
  }
  domain = itt.domain_create("tracer.test");
  step_name = itt.string_handle_create("Step");
  forward_name = itt.string_handle_create("Forward");
  layer_name = itt.string_handle_create("Layer");
  paused_name = itt.string_handle_create("Paused.Work");
  early_name = itt.string_handle_create("Before.Resume");
  int pauses = 0, paused_ms = 0;
  if (start_paused) {
    task(early_name, PAUSED_MS, NULL); /* the tracer started paused: not recorded */
    ITT_CALL(&itt, resume);
    pauses++;
    paused_ms += PAUSED_MS;
  }
  ITT_DOMAIN_CALL(&itt, domain, marker, __itt_null, step_name, __itt_scope_global);
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; i++)
    if (pthread_create(&threads[i], NULL, worker, NULL) != 0)
      return 1;
  for (int i = 0; i < THREADS; i++)
    pthread_join(threads[i], NULL);
  ITT_CALL(&itt, pause);
  task(paused_name, PAUSED_MS / 2, NULL);
  task(paused_name, PAUSED_MS / 2, NULL);
  ITT_CALL(&itt, resume);
  pauses++;
  paused_ms += PAUSED_MS;

  const char *path = getenv("APP_MANIFEST");
  FILE *out = path ? fopen(path, "w") : NULL;
  if (out) {
    int n = THREADS * STEPS;
    fprintf(out,
            "{\"threads\": %d, \"pauses\": %d, \"min_paused_ns\": %lld,\n"
            " \"regions\": {\"Step\": {\"calls\": %d, \"min_ns\": %lld, \"depth\": 0},\n"
            "             \"Forward\": {\"calls\": %d, \"min_ns\": %lld, \"depth\": 1},\n"
            "             \"Layer\": {\"calls\": %d, \"min_ns\": %lld, \"depth\": 2}},\n"
            " \"not_recorded\": [\"Paused.Work\", \"Before.Resume\"],\n"
            " \"task_begin_recorded\": %d}\n",
            THREADS, pauses, paused_ms * 1000000LL, n,
            (LAYER_MS + FORWARD_MS + STEP_MS) * 1000000LL, n, (LAYER_MS + FORWARD_MS) * 1000000LL,
            n, LAYER_MS * 1000000LL, 3 * n);
    fclose(out);
  }
  printf("itt_regions: %d threads x %d steps, %d pauses\n", THREADS, STEPS, pauses);
  return 0;
}
