/* nvtx_app: an NVTX-instrumented program for the tests (NVTX v3, header-only, from the
 * CUDA toolkit; no GPU). Two threads each run STEPS steps of nested ranges: Step (a
 * nvtxRangePushA), Forward (a push in the domain "trainer", named by its attributes),
 * Layer (nvtxRangePushEx), each level sleeping a known time, with a mark inside each
 * Layer; the main thread wraps them in a start/end range, Epoch.
 *
 * Writes to $APP_MANIFEST what it did: its NVTX calls, ranges per name, the least time
 * each took (from its sleeps), and the depth it was opened at on its thread. Exits 77 when no NVTX tool
 * is named (NVTX_INJECTION64_PATH).
 */
#define _POSIX_C_SOURCE 200809L
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { THREADS = 2, STEPS = 3 };
enum { LAYER_MS = 4, FORWARD_MS = 2, STEP_MS = 2 };

static nvtxDomainHandle_t trainer;

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static nvtxEventAttributes_t named(const char *name) {
  nvtxEventAttributes_t attributes = {0};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = name;
  return attributes;
}

static void *worker(void *arg) {
  (void)arg;
  for (int s = 0; s < STEPS; s++) {
    nvtxRangePushA("Step");
    nvtxEventAttributes_t forward = named("Forward");
    nvtxDomainRangePushEx(trainer, &forward);
    nvtxEventAttributes_t layer = named("Layer");
    nvtxRangePushEx(&layer);
    nvtxMarkA("Checkpoint");
    sleep_ms(LAYER_MS);
    nvtxRangePop();
    sleep_ms(FORWARD_MS);
    nvtxDomainRangePop(trainer);
    sleep_ms(STEP_MS);
    nvtxRangePop();
  }
  return NULL;
}

int main(void) {
  const char *tool = getenv("NVTX_INJECTION64_PATH");
  if (!tool || !*tool) {
    fprintf(stderr, "nvtx_app: no NVTX tool (NVTX_INJECTION64_PATH)\n");
    return 77;
  }
  trainer = nvtxDomainCreateA("trainer");
  nvtxRangeId_t epoch = nvtxRangeStartA("Epoch");
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; i++)
    if (pthread_create(&threads[i], NULL, worker, NULL) != 0)
      return 1;
  for (int i = 0; i < THREADS; i++)
    pthread_join(threads[i], NULL);
  nvtxRangeEnd(epoch);
  nvtxDomainDestroy(trainer);

  const char *path = getenv("APP_MANIFEST");
  FILE *out = path ? fopen(path, "w") : NULL;
  if (out) {
    int n = THREADS * STEPS;
    long long ms = 1000000LL;
    fprintf(out,
            "{\"threads\": %d,\n"
            " \"calls\": {\"nvtxDomainCreateA\": 1, \"nvtxRangeStartA\": 1, \"nvtxRangePushA\": %d,\n"
            "           \"nvtxDomainRangePushEx\": %d, \"nvtxRangePushEx\": %d, \"nvtxMarkA\": %d,\n"
            "           \"nvtxRangePop\": %d, \"nvtxDomainRangePop\": %d, \"nvtxRangeEnd\": 1,\n"
            "           \"nvtxDomainDestroy\": 1},\n"
            " \"regions\": {\"Step\": {\"calls\": %d, \"min_ns\": %lld, \"depth\": 0},\n"
            "             \"Forward\": {\"calls\": %d, \"min_ns\": %lld, \"depth\": 1},\n"
            "             \"Layer\": {\"calls\": %d, \"min_ns\": %lld, \"depth\": 2},\n"
            "             \"Checkpoint\": {\"calls\": %d, \"min_ns\": 0, \"depth\": 3},\n"
            "             \"Epoch\": {\"calls\": 1, \"min_ns\": %lld, \"depth\": 0}}}\n",
            THREADS + 1, n, n, n, n, 2 * n, n, n, (LAYER_MS + FORWARD_MS + STEP_MS) * ms, n,
            (LAYER_MS + FORWARD_MS) * ms, n, LAYER_MS * ms, n,
            STEPS * (LAYER_MS + FORWARD_MS + STEP_MS) * ms);
    fclose(out);
  }
  printf("nvtx_app: %d threads x %d steps\n", THREADS, STEPS);
  return 0;
}
