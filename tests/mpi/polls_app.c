/* polls_app: an MPI program of two ranks that polls, for the polls test
 * (tests/mpi/polls_test.sh). Rank 0 starts a receive and tests it $APP_POLLS times
 * (default 1000) before it tells rank 1 to send: those tests cannot find the message.
 * Then it tests until the message is there. Rank 1 probes (MPI_Iprobe) for the go
 * message until it is there, receives it and sends; rank 0 sends the go message only
 * once rank 1 has probed once (a ready message), so that some probes find nothing.
 * Each rank writes what it counted to $APP_MANIFEST.RANK as
 *   {"rank": R, "calls": {"MPI_Test": N, "MPI_Iprobe": N},
 *    "not_ready": {"MPI_Test": N, "MPI_Iprobe": N}}
 * where not_ready counts the calls that returned with flag 0. */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static void check(int status, const char *what) {
  if (status != MPI_SUCCESS) {
    fprintf(stderr, "polls_app: %s failed\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

int main(int argc, char **argv) {
  int rank, size;
  check(MPI_Init(&argc, &argv), "MPI_Init");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    fprintf(stderr, "polls_app: needs 2 ranks, has %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *env = getenv("APP_POLLS");
  long polls = env ? atol(env) : 1000;
  unsigned long long test_calls = 0, test_empty = 0, probe_calls = 0, probe_empty = 0;
  int value = 0, go = 1, flag = 0;
  if (rank == 0) {
    MPI_Request request;
    check(MPI_Irecv(&value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &request), "MPI_Irecv");
    for (long i = 0; i < polls; i++) {
      check(MPI_Test(&request, &flag, MPI_STATUS_IGNORE), "MPI_Test");
      test_calls++;
      if (flag) {
        fprintf(stderr, "polls_app: a message that was never sent is there\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
      test_empty++;
    }
    /* Rank 1 says it has probed once, which then cannot have found the go message: a
     * rank that started late would otherwise find it at its first probe. */
    int ready = 0;
    check(MPI_Recv(&ready, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
    check(MPI_Send(&go, 1, MPI_INT, 1, 2, MPI_COMM_WORLD), "MPI_Send");
    do {
      check(MPI_Test(&request, &flag, MPI_STATUS_IGNORE), "MPI_Test");
      test_calls++;
      test_empty += !flag;
    } while (!flag);
  } else {
    int ready = 1;
    for (bool told = false; !flag; told = true) {
      check(MPI_Iprobe(0, 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE), "MPI_Iprobe");
      probe_calls++;
      probe_empty += !flag;
      if (!told)
        check(MPI_Send(&ready, 1, MPI_INT, 0, 3, MPI_COMM_WORLD), "MPI_Send");
    }
    check(MPI_Recv(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
    value = 42;
    check(MPI_Send(&value, 1, MPI_INT, 0, 1, MPI_COMM_WORLD), "MPI_Send");
  }
  const char *base = getenv("APP_MANIFEST");
  if (base) {
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", base, rank);
    FILE *f = fopen(path, "w");
    if (!f) {
      perror(path);
      MPI_Abort(MPI_COMM_WORLD, 4);
    }
    fprintf(f,
            "{\"rank\": %d, \"calls\": {\"MPI_Test\": %llu, \"MPI_Iprobe\": %llu}, "
            "\"not_ready\": {\"MPI_Test\": %llu, \"MPI_Iprobe\": %llu}}\n",
            rank, test_calls, probe_calls, test_empty, probe_empty);
    fclose(f);
  }
  MPI_Finalize();
  return 0;
}
