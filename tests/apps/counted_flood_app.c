/* counted_flood: THREADS threads start together; each makes CALLS rounds of a counted
 * call (cuCtxGetCurrent: trace.counted in api-specs/cuda.yaml) and a recorded one
 * (cuDeviceGetCount), as fast as it can. Run into small buffers, the recorded calls
 * keep the event channel full while each thread's counted entry is written, once every
 * 65,536 calls and at the thread's end: none of those entries may be lost.
 * Prints "counted_flood: THREADS threads x CALLS calls".
 * usage: counted_flood THREADS CALLS */
#define _GNU_SOURCE /* pthread barriers under -std=c11 */
#include <cuda.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_barrier_t start;
static long calls;

static void *worker(void *arg) {
  (void)arg;
  pthread_barrier_wait(&start);
  for (long i = 0; i < calls; i++) {
    CUcontext context = NULL;
    int devices = 0;
    cuCtxGetCurrent(&context);
    cuDeviceGetCount(&devices);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3 || atoi(argv[1]) <= 0 || atol(argv[2]) <= 0) {
    fprintf(stderr, "usage: counted_flood THREADS CALLS\n");
    return 2;
  }
  int threads = atoi(argv[1]);
  calls = atol(argv[2]);
  if (cuInit(0) != CUDA_SUCCESS) {
    fprintf(stderr, "counted_flood: cuInit failed\n");
    return 1;
  }
  pthread_t *tids = calloc((size_t)threads, sizeof *tids);
  pthread_barrier_init(&start, NULL, (unsigned)threads);
  for (int t = 0; t < threads; t++)
    if (pthread_create(&tids[t], NULL, worker, NULL) != 0) {
      fprintf(stderr, "counted_flood: pthread_create failed\n");
      return 1;
    }
  for (int t = 0; t < threads; t++)
    pthread_join(tids[t], NULL);
  printf("counted_flood: %d threads x %ld calls\n", threads, calls);
  free(tids);
  return 0;
}
