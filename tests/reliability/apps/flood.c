/* flood: THREADS threads start together and each calls clGetPlatformIDs CALLS times as
 * fast as it can: a burst that overflows small trace buffers. The count file
 * ($REL_COUNT, rel_count.h) is written once at the end: 2 + THREADS x CALLS calls of
 * clGetPlatformIDs (the 2 of rel_start).
 * usage: flood THREADS CALLS */
#include "rel_count.h"

#include <pthread.h>

static pthread_barrier_t start;
static long calls;

static void *worker(void *arg) {
  (void)arg;
  pthread_barrier_wait(&start);
  for (long i = 0; i < calls; i++) {
    cl_uint n = 0;
    rel_platform_ids(0, NULL, &n);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3 || atoi(argv[1]) <= 0 || atol(argv[2]) <= 0) {
    fprintf(stderr, "usage: flood THREADS CALLS\n");
    return 2;
  }
  int threads = atoi(argv[1]);
  calls = atol(argv[2]);
  rel_start();
  pthread_t *tids = calloc((size_t)threads, sizeof *tids);
  pthread_barrier_init(&start, NULL, (unsigned)threads);
  for (int t = 0; t < threads; t++)
    if (pthread_create(&tids[t], NULL, worker, NULL) != 0) {
      fprintf(stderr, "flood: pthread_create failed\n");
      return 1;
    }
  for (int t = 0; t < threads; t++)
    pthread_join(tids[t], NULL);
  rel_flush();
  printf("flood: %d threads x %ld calls\n", threads, calls);
  free(tids);
  return 0;
}
