/* omp_offload: an OpenMP offload program for the tests, built with clang-19 for the host
 * as its device (-fopenmp-targets=x86_64-pc-linux-gnu). It maps known arrays in known
 * ways and writes to $APP_MANIFEST what it mapped: target constructs by kind, kernels
 * submitted, and the data operations the OpenMP runtime must make for them (allocations,
 * transfers each way with their bytes, deletions).
 */
#include <stdio.h>
#include <stdlib.h>

enum { REGIONS = 3, N = 4096, M = 1000 };

static double x[N], y[M];

int main(void) {
  for (int i = 0; i < N; i++)
    x[i] = i;
  for (int i = 0; i < M; i++)
    y[i] = 1;
  /* Each region copies x in and out: alloc, to, from, delete; one kernel. */
  for (int r = 0; r < REGIONS; r++) {
#pragma omp target map(tofrom : x[0 : N])
    for (int i = 0; i < N; i++)
      x[i] *= 2;
  }
  /* y stays on the device across constructs: alloc and to once, from once, delete once. */
#pragma omp target enter data map(to : y[0 : M])
#pragma omp target update from(y[0 : M])
#pragma omp target exit data map(delete : y[0 : M])

  long long x_bytes = (long long)sizeof(double) * N, y_bytes = (long long)sizeof(double) * M;
  const char *path = getenv("APP_MANIFEST");
  FILE *out = path ? fopen(path, "w") : NULL;
  if (out) {
    fprintf(out,
            "{\"target\": %d, \"target_enter_data\": 1, \"target_update\": 1,"
            " \"target_exit_data\": 1, \"submits\": %d,\n"
            " \"alloc\": %d, \"delete\": %d,\n"
            " \"transfer_to_device\": {\"calls\": %d, \"bytes\": %lld},\n"
            " \"transfer_from_device\": {\"calls\": %d, \"bytes\": %lld}}\n",
            REGIONS, REGIONS, REGIONS + 1, REGIONS + 1, REGIONS + 1,
            REGIONS * x_bytes + y_bytes, REGIONS + 1, REGIONS * x_bytes + y_bytes);
    fclose(out);
  }
  printf("omp_offload: x[1] = %g\n", x[1]);
  return x[1] == 8.0 ? 0 : 1;
}
