/* rank_crash: one rank of a job dies, the others wait for it (tests/mpi/faults_test.sh).
 *
 *   crash   rank 0 writes through a null pointer after MPI_Init and an MPI_Barrier; every
 *           other rank sits in MPI_Recv from rank 0, which never sends. Untraced, the
 *           launcher sees rank 0 die and ends the job at once.
 *   inside  MPI_Init, an MPI_Barrier and MPI_Finalize, nothing else: MPICH's hwloc
 *           probes the OpenCL devices (PoCL here) inside MPI_Init, untraced too; the
 *           program itself makes no OpenCL call.
 *
 * Each rank writes what it did to $APP_MANIFEST.RANK before the crash or the wait (JSON:
 * the MPI calls it made, and for rank 1 the call it is in).
 * usage: rank_crash crash|inside */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void manifest(int rank, const char *text) {
  const char *base = getenv("APP_MANIFEST");
  if (!base || !*base)
    return;
  char path[4096];
  snprintf(path, sizeof path, "%s.%d", base, rank);
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "crash";
  int rank = 0, x = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (strcmp(mode, "inside") == 0) {
    manifest(rank, "{\"MPI_Init\": 1, \"MPI_Comm_rank\": 1, \"MPI_Barrier\": 1, "
                   "\"MPI_Finalize\": 1, \"opencl\": 0}\n");
    MPI_Finalize();
    return 0;
  }
  if (rank == 0) {
    manifest(rank, "{\"MPI_Init\": 1, \"MPI_Comm_rank\": 1, \"MPI_Barrier\": 1}\n");
    fflush(stdout);
    *(volatile int *)(uintptr_t)(argc - argc) = 1; /* address 0: never mapped */
  }
  manifest(rank, "{\"MPI_Init\": 1, \"MPI_Comm_rank\": 1, \"MPI_Barrier\": 1, "
                 "\"in_flight\": \"MPI_Recv\"}\n");
  MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
