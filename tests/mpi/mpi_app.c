/* mpi_app: an MPI program that counts its own calls and the bytes of its messages, for the
 * MPI tests (tests/mpi/mpi_test.sh). Each rank writes its count to $APP_MANIFEST.RANK as
 *   {"rank": R, "calls": {"MPI_Send": 1, ...}, "bytes": {"MPI_Send": 800, ...},
 *    "sent": {"PEER": {"bytes": 1864, "messages": 3}, ...}}
 * where bytes are count x the C size of the elements, as the program knows them, and
 * "sent" is what this rank sent or put to each world rank (the job's matrix row).
 * With APP_ABORT_RANK=R, rank R calls MPI_Abort after its count (MPI_Abort not in it);
 * with APP_HANG_RANK=R, rank R sleeps a minute there (for a job killed mid-run).
 * With APP_SLOW_RANK=R, every rank makes one more MPI_Barrier, which the others reach
 * 0.3 s after rank R: R waits there, a straggler in MPI time (tracer --ranks).
 * Point-to-point (blocking between pairs, non-blocking in a ring), collectives on the
 * world and on a split communicator, one-sided puts and reads (MPI_Get_accumulate with
 * MPI_NO_OP and with MPI_SUM, and its request-based twin); messages and puts on a split
 * communicator, a duplicate and a reversed split of it, whose peers the program turns into
 * world ranks itself (MPI_Group_translate_ranks); any rank count from 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { NAMES = 64 };
static const char *names[NAMES];
static unsigned long long calls[NAMES], bytes[NAMES];
static int name_count;
enum { PEERS = 64 };
static unsigned long long sent_bytes[PEERS], sent_messages[PEERS];

/* A message this rank sends (or puts) to world rank peer. */
static void sent(int peer, unsigned long long moved) {
  if (peer >= 0 && peer < PEERS) {
    sent_bytes[peer] += moved;
    sent_messages[peer]++;
  }
}

/* The world rank of rank in comm, as the program knows it (counted like its other calls). */
static int world_rank(MPI_Comm comm, int rank);

static void count(const char *name, unsigned long long moved) {
  int i = 0;
  while (i < name_count && strcmp(names[i], name) != 0)
    i++;
  if (i == name_count)
    names[name_count++] = name;
  calls[i]++;
  bytes[i] += moved;
}

/* Calls an MPI function, counts it with the bytes it moves, stops the job on failure. */
#define CALL(function, moved, ...)                                                        \
  do {                                                                                    \
    count(#function, (moved));                                                            \
    if (function(__VA_ARGS__) != MPI_SUCCESS) {                                           \
      fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #function);              \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                       \
    }                                                                                     \
  } while (0)

static int world_rank(MPI_Comm comm, int rank) {
  MPI_Group group, world;
  int translated;
  CALL(MPI_Comm_group, 0, comm, &group);
  CALL(MPI_Comm_group, 0, MPI_COMM_WORLD, &world);
  CALL(MPI_Group_translate_ranks, 0, group, 1, &rank, world, &translated);
  CALL(MPI_Group_free, 0, &group);
  CALL(MPI_Group_free, 0, &world);
  return translated;
}

static void write_manifest(int rank) {
  const char *base = getenv("APP_MANIFEST");
  if (!base)
    return;
  char path[4096];
  snprintf(path, sizeof path, "%s.%d", base, rank);
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(1);
  }
  fprintf(f, "{\"rank\": %d, \"calls\": {", rank);
  for (int i = 0; i < name_count; i++)
    fprintf(f, "%s\"%s\": %llu", i ? ", " : "", names[i], calls[i]);
  fputs("}, \"bytes\": {", f);
  for (int i = 0; i < name_count; i++)
    fprintf(f, "%s\"%s\": %llu", i ? ", " : "", names[i], bytes[i]);
  fputs("}, \"sent\": {", f);
  for (int p = 0, first = 1; p < PEERS; p++)
    if (sent_messages[p]) {
      fprintf(f, "%s\"%d\": {\"bytes\": %llu, \"messages\": %llu}", first ? "" : ", ", p,
              sent_bytes[p], sent_messages[p]);
      first = 0;
    }
  fputs("}}\n", f);
  fclose(f);
}

int main(int argc, char **argv) {
  int rank, size;
  CALL(MPI_Init, 0, &argc, &argv);
  CALL(MPI_Comm_rank, 0, MPI_COMM_WORLD, &rank);
  CALL(MPI_Comm_size, 0, MPI_COMM_WORLD, &size);

  /* Blocking between pairs (0-1, 2-3, ...): 100 doubles each way. */
  double pair[100];
  for (int i = 0; i < 100; i++)
    pair[i] = rank + i;
  int partner = rank ^ 1;
  if (partner < size) {
    if (rank % 2 == 0) {
      CALL(MPI_Send, sizeof pair, pair, 100, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD);
      sent(partner, sizeof pair);
      CALL(MPI_Recv, sizeof pair, pair, 100, MPI_DOUBLE, partner, 2, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
    } else {
      CALL(MPI_Recv, sizeof pair, pair, 100, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
      CALL(MPI_Send, sizeof pair, pair, 100, MPI_DOUBLE, partner, 2, MPI_COMM_WORLD);
      sent(partner, sizeof pair);
    }
  }

  /* Non-blocking in a ring: 256 ints to the right, completed one request at a time; each
   * completion counts the bytes of the request it completed. */
  int out[256], in[256];
  for (int i = 0; i < 256; i++)
    out[i] = rank * 1000 + i;
  MPI_Request requests[2];
  CALL(MPI_Irecv, sizeof in, in, 256, MPI_INT, (rank + size - 1) % size, 3, MPI_COMM_WORLD,
       &requests[0]);
  CALL(MPI_Isend, sizeof out, out, 256, MPI_INT, (rank + 1) % size, 3, MPI_COMM_WORLD,
       &requests[1]);
  sent((rank + 1) % size, sizeof out);
  CALL(MPI_Wait, sizeof out, &requests[1], MPI_STATUS_IGNORE);
  CALL(MPI_Wait, sizeof in, &requests[0], MPI_STATUS_IGNORE);
  if (in[5] != ((rank + size - 1) % size) * 1000 + 5) {
    fprintf(stderr, "rank %d: ring message wrong\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  /* Collectives on the world. */
  int block[64] = {0};
  double sums[16], local[16];
  for (int i = 0; i < 16; i++)
    local[i] = rank;
  CALL(MPI_Bcast, sizeof block, block, 64, MPI_INT, 0, MPI_COMM_WORLD);
  CALL(MPI_Allreduce, sizeof local, local, sums, 16, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  CALL(MPI_Reduce, 8 * sizeof(double), local, sums, 8, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  CALL(MPI_Barrier, 0, MPI_COMM_WORLD);

  /* A split communicator: even and odd ranks. Each sends to the next rank of its half
   * (itself when alone), named by its rank in the half. */
  MPI_Comm half;
  int four[4] = {rank, rank, rank, rank}, four_sum[4];
  CALL(MPI_Comm_split, 0, MPI_COMM_WORLD, rank % 2, rank, &half);
  CALL(MPI_Allreduce, sizeof four, four, four_sum, 4, MPI_INT, MPI_SUM, half);
  int half_rank, half_size;
  CALL(MPI_Comm_rank, 0, half, &half_rank);
  CALL(MPI_Comm_size, 0, half, &half_size);
  int next = (half_rank + 1) % half_size, previous = (half_rank + half_size - 1) % half_size;
  long twelve[12], twelve_in[12];
  for (int i = 0; i < 12; i++)
    twelve[i] = rank;
  CALL(MPI_Sendrecv, sizeof twelve, twelve, 12, MPI_LONG, next, 4, twelve_in, 12, MPI_LONG,
       previous, 4, half, MPI_STATUS_IGNORE);
  sent(world_rank(half, next), sizeof twelve);
  CALL(MPI_Comm_free, 0, &half);

  /* A duplicate of the world, and a split of it in reverse order (made after the half is
   * freed, so the library may hand out its handle again): each rank sends to the next
   * rank of the reversed communicator, its left neighbour in the world, and puts into its
   * window, and sends to its right neighbour on the duplicate. */
  MPI_Comm dup, reversed;
  CALL(MPI_Comm_dup, 0, MPI_COMM_WORLD, &dup);
  CALL(MPI_Comm_split, 0, dup, 0, size - rank, &reversed);
  int reversed_rank;
  CALL(MPI_Comm_rank, 0, reversed, &reversed_rank);
  short seven[7] = {0}, seven_in[7];
  MPI_Request reversed_requests[2];
  CALL(MPI_Irecv, sizeof seven_in, seven_in, 7, MPI_SHORT, (reversed_rank + size - 1) % size, 5,
       reversed, &reversed_requests[0]);
  CALL(MPI_Isend, sizeof seven, seven, 7, MPI_SHORT, (reversed_rank + 1) % size, 5, reversed,
       &reversed_requests[1]);
  sent(world_rank(reversed, (reversed_rank + 1) % size), sizeof seven);
  CALL(MPI_Wait, sizeof seven, &reversed_requests[1], MPI_STATUS_IGNORE);
  CALL(MPI_Wait, sizeof seven_in, &reversed_requests[0], MPI_STATUS_IGNORE);
  CALL(MPI_Sendrecv, sizeof four, four, 4, MPI_INT, (rank + 1) % size, 6, four_sum, 4, MPI_INT,
       (rank + size - 1) % size, 6, dup, MPI_STATUS_IGNORE);
  sent(world_rank(dup, (rank + 1) % size), sizeof four);
  /* A window over the reversed communicator. Not over the halves: Debian's Open MPI 4.1
   * fails to make windows over both halves at once (osc_rdma names their shared memory
   * files alike: /dev/shm/osc_rdma.HOST.JOB.4 for both, seen untraced too). */
  int reversed_window[6] = {0}, six[6] = {rank, rank, rank, rank, rank, rank};
  MPI_Win reversed_win;
  CALL(MPI_Win_create, 0, reversed_window, sizeof reversed_window, sizeof(int), MPI_INFO_NULL,
       reversed, &reversed_win);
  CALL(MPI_Win_fence, 0, 0, reversed_win);
  CALL(MPI_Put, sizeof six, six, 6, MPI_INT, (reversed_rank + 1) % size, 0, 6, MPI_INT,
       reversed_win);
  sent(world_rank(reversed, (reversed_rank + 1) % size), sizeof six);
  CALL(MPI_Win_fence, 0, 0, reversed_win);
  CALL(MPI_Win_free, 0, &reversed_win);
  CALL(MPI_Comm_free, 0, &reversed);
  CALL(MPI_Comm_free, 0, &dup);

  /* One-sided: 10 ints put into the right neighbour's window. */
  int window[10] = {0}, mine[10];
  for (int i = 0; i < 10; i++)
    mine[i] = rank;
  MPI_Win win;
  CALL(MPI_Win_create, 0, window, sizeof window, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
       &win);
  CALL(MPI_Win_fence, 0, 0, win);
  CALL(MPI_Put, sizeof mine, mine, 10, MPI_INT, (rank + 1) % size, 0, 10, MPI_INT, win);
  sent((rank + 1) % size, sizeof mine);
  CALL(MPI_Win_fence, 0, 0, win);
  /* Reads through MPI_Get_accumulate: with MPI_NO_OP a plain read of 10 ints (its origin
   * ignored, none given, as ARMCI's gets over MPI do); with MPI_SUM, 4 ints added and the
   * 4 before read back: both ways are traffic. */
  int fetched[10], added[4] = {1, 1, 1, 1}, before[4];
  CALL(MPI_Get_accumulate, sizeof fetched, NULL, 0, MPI_INT, fetched, 10, MPI_INT,
       (rank + 1) % size, 0, 10, MPI_INT, MPI_NO_OP, win);
  CALL(MPI_Get_accumulate, sizeof added + sizeof before, added, 4, MPI_INT, before, 4, MPI_INT,
       (rank + 1) % size, 0, 4, MPI_INT, MPI_SUM, win);
  CALL(MPI_Win_fence, 0, 0, win);
  /* The same non-blocking, in a passive epoch: its bytes again at the MPI_Wait. */
  MPI_Request got;
  CALL(MPI_Win_lock_all, 0, 0, win);
  CALL(MPI_Rget_accumulate, sizeof fetched, NULL, 0, MPI_INT, fetched, 10, MPI_INT,
       (rank + 1) % size, 0, 10, MPI_INT, MPI_NO_OP, win, &got);
  CALL(MPI_Wait, sizeof fetched, &got, MPI_STATUS_IGNORE);
  CALL(MPI_Win_unlock_all, 0, win);
  CALL(MPI_Win_free, 0, &win);

  const char *slow_rank = getenv("APP_SLOW_RANK");
  if (slow_rank) {
    if (atoi(slow_rank) != rank)
      usleep(300 * 1000);
    CALL(MPI_Barrier, 0, MPI_COMM_WORLD);
  }

  write_manifest(rank);
  const char *hang_rank = getenv("APP_HANG_RANK");
  if (hang_rank && atoi(hang_rank) == rank)
    sleep(60);
  const char *abort_rank = getenv("APP_ABORT_RANK");
  if (abort_rank && atoi(abort_rank) == rank)
    MPI_Abort(MPI_COMM_WORLD, 3);
  CALL(MPI_Finalize, 0);
  /* Finalize is counted before the call: rewrite the count with it. */
  write_manifest(rank);
  return 0;
}
