/* poll_loop: the cost of an MPI_Test that finds nothing, for bench/polls.sh.
 *   poll_loop CALLS
 * Two ranks. Rank 0 starts a receive that rank 1 answers only when told to, then calls
 * MPI_Test CALLS times (each finds nothing), timed with MPI_Wtime around the loop, then
 * MPI_Testany on an array of that one request CALLS times (hpcc's RandomAccess loop); then
 * it tells rank 1 to send and waits for the message. Prints (rank 0) "ns_per_test WALL CPU"
 * and "ns_per_testany WALL CPU": each loop's wall time and its thread's CPU time per call,
 * in ns; the CPU time is the steadier on a machine shared with other work, where the wall
 * holds the waits for a core. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double thread_cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, value = 0, go = 1, flag = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long calls = argc > 1 ? atol(argv[1]) : 1000000;
  if (rank == 0) {
    MPI_Request request;
    MPI_Irecv(&value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &request);
    double start = MPI_Wtime(), cpu_start = thread_cpu_seconds();
    long found = 0;
    for (long i = 0; i < calls; i++) {
      MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
      found += flag;
    }
    double seconds = MPI_Wtime() - start, cpu = thread_cpu_seconds() - cpu_start;
    int index = 0;
    double any_start = MPI_Wtime(), any_cpu_start = thread_cpu_seconds();
    for (long i = 0; i < calls; i++) {
      MPI_Testany(1, &request, &index, &flag, MPI_STATUS_IGNORE);
      found += flag;
    }
    double any_seconds = MPI_Wtime() - any_start, any_cpu = thread_cpu_seconds() - any_cpu_start;
    MPI_Send(&go, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    if (found) {
      fprintf(stderr, "poll_loop: %ld tests found a message never sent\n", found);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    printf("ns_per_test %.2f %.2f\n", seconds * 1e9 / (double)calls, cpu * 1e9 / (double)calls);
    printf("ns_per_testany %.2f %.2f\n", any_seconds * 1e9 / (double)calls,
           any_cpu * 1e9 / (double)calls);
  } else if (rank == 1) {
    MPI_Recv(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&value, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
