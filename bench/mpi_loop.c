/* mpi_loop: many small MPI calls, for bench/mpi_merge_bench.sh's per-node reduction speed.
 *   mpi_loop ITERATIONS
 * Ranks pair up (0-1, 2-3, ...): each iteration one MPI_Send and one MPI_Recv of 8 bytes
 * each way; every 100 iterations an MPI_Allreduce over the world. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long iterations = argc > 1 ? atol(argv[1]) : 100000;
  int partner = rank ^ 1;
  double value = rank, sum;
  for (long i = 0; i < iterations; i++) {
    if (partner < size) {
      if (rank % 2 == 0) {
        MPI_Send(&value, 1, MPI_DOUBLE, partner, 0, MPI_COMM_WORLD);
        MPI_Recv(&value, 1, MPI_DOUBLE, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&value, 1, MPI_DOUBLE, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&value, 1, MPI_DOUBLE, partner, 0, MPI_COMM_WORLD);
      }
    }
    if (i % 100 == 0)
      MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
