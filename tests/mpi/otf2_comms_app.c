/* MPI calls whose OTF2 records need more than the world (tests/exports/otf2_comms_test.sh,
 * whose check, otf2_comms_check.py, knows this pattern): a sub-communicator (the world
 * split in two halves) with a collective and a message on it, MPI_Sendrecv, Isend/Irecv
 * completed by MPI_Waitall, MPI_Waitany and MPI_Testsome, and RMA (put, get, accumulate)
 * on a window over the world with fence and lock/unlock, and on a window over the half
 * with lock_all, flush, unlock_all and a shared lock. Receives from MPI_ANY_SOURCE of
 * fewer bytes than their count allows (MPI_Recv; MPI_Irecv completed by MPI_Wait, by
 * MPI_Waitall and by MPI_Waitany with statuses), whose records must name the sender and
 * the bytes that came (as must those of the requests rounds whose completions give
 * statuses: Waitall's and Testsome's, not Waitany's), and an MPI_Allreduce on
 * MPI_COMM_SELF, whose records must name the rank alone. Needs an even number of ranks,
 * 2 at least. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2 || size % 2) {
    fprintf(stderr, "otf2_comms_app: an even number of ranks, please\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* Halves: ranks [0, size/2) and [size/2, size), in reverse order of world rank. */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, -rank, &half);
  int hrank, hsize;
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_size(half, &hsize);
  double sum = rank, total = 0;
  MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, half);
  int token[3] = {rank, 0, 0};
  if (hsize > 1) { /* half rank 0 sends 3 ints to half rank 1 */
    if (hrank == 0)
      MPI_Send(token, 3, MPI_INT, 1, 7, half);
    else if (hrank == 1)
      MPI_Recv(token, 3, MPI_INT, 0, 7, half, MPI_STATUS_IGNORE);
  }
  /* Sendrecv around the world ring: 4 ints out, 2 ints in... of the same 4 sent. */
  int out[4] = {rank, rank, rank, rank}, in[4];
  MPI_Sendrecv(out, 4, MPI_INT, (rank + 1) % size, 1, in, 4, MPI_INT, (rank + size - 1) % size,
               1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv_replace(out, 2, MPI_INT, (rank + 1) % size, 2, (rank + size - 1) % size, 2,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  /* From any source: 2 ints around the ring into room for 4. Even ranks send first, odd
   * ones receive first: no rank waits on a send that has no receive posted. */
  int ring[4] = {rank, rank, 0, 0};
  MPI_Status status;
  if (rank % 2 == 0)
    MPI_Send(ring, 2, MPI_INT, (rank + 1) % size, 20, MPI_COMM_WORLD);
  MPI_Recv(in, 4, MPI_INT, MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, &status);
  if (rank % 2 == 1)
    MPI_Send(ring, 2, MPI_INT, (rank + 1) % size, 20, MPI_COMM_WORLD);
  /* Non-blocking from any source: 3 doubles from the partner into room for 8, the
   * receive posted before the send on both sides, completed by MPI_Wait with a status. */
  {
    int other = (rank + size / 2) % size;
    double room[8], three[3] = {rank, rank, rank};
    MPI_Request any;
    MPI_Irecv(room, 8, MPI_DOUBLE, MPI_ANY_SOURCE, 30, MPI_COMM_WORLD, &any);
    MPI_Send(three, 3, MPI_DOUBLE, other, 30, MPI_COMM_WORLD);
    MPI_Wait(&any, &status);
  }
  /* The same completed through arrays with statuses: 4 ints into room for 6 by
   * MPI_Waitall (beside an MPI_Isend), then 2 ints into room for 6 by MPI_Waitany. */
  {
    int other = (rank + size / 2) % size;
    int room[6], four[4] = {rank, rank, rank, rank};
    MPI_Request pair[2];
    MPI_Status got[2];
    MPI_Irecv(room, 6, MPI_INT, MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, &pair[0]);
    MPI_Isend(four, 4, MPI_INT, other, 40, MPI_COMM_WORLD, &pair[1]);
    MPI_Waitall(2, pair, got);
    int index;
    MPI_Irecv(room, 6, MPI_INT, MPI_ANY_SOURCE, 41, MPI_COMM_WORLD, &pair[0]);
    MPI_Send(four, 2, MPI_INT, other, 41, MPI_COMM_WORLD);
    MPI_Waitany(1, pair, &index, &status);
  }
  /* A collective on MPI_COMM_SELF: its communicator is the rank alone. */
  double own = rank, own_total = 0;
  MPI_Allreduce(&own, &own_total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
  /* Requests: two exchanges with the partner in the other half, completed by Waitall,
   * then by Waitany twice, then by Testsome until done. */
  int partner = (rank + size / 2) % size;
  double a[8] = {0}, b[8];
  MPI_Request reqs[2];
  MPI_Status statuses[2]; /* not MPI_STATUSES_IGNORE: GCC's -Wstringop-overflow misreads it */
  for (int round = 0; round < 3; round++) {
    MPI_Irecv(b, 8, MPI_DOUBLE, partner, 10 + round, MPI_COMM_WORLD, &reqs[0]);
    if (round == 2) {
      /* A poll that finds nothing: the partner sends after the barrier (counted, not
       * recorded). */
      int outcount, index;
      MPI_Testsome(1, reqs, &outcount, &index, statuses);
      MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Isend(a, 5, MPI_DOUBLE, partner, 10 + round, MPI_COMM_WORLD, &reqs[1]);
    if (round == 0) {
      MPI_Waitall(2, reqs, statuses);
    } else if (round == 1) {
      int index;
      MPI_Waitany(2, reqs, &index, MPI_STATUS_IGNORE);
      MPI_Waitany(2, reqs, &index, MPI_STATUS_IGNORE);
    } else {
      int done = 0, outcount, indices[2];
      while (done < 2) {
        MPI_Testsome(2, reqs, &outcount, indices, statuses);
        if (outcount != MPI_UNDEFINED)
          done += outcount;
      }
    }
  }
  /* RMA on a window of 16 ints over the world. */
  int *base;
  MPI_Win win;
  MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 16; i++)
    base[i] = 0;
  int mine[4] = {1, 2, 3, 4}, got[2];
  MPI_Win_fence(0, win);
  MPI_Put(mine, 4, MPI_INT, (rank + 1) % size, 0, 4, MPI_INT, win);
  MPI_Win_fence(0, win);
  MPI_Get(got, 2, MPI_INT, (rank + size - 1) % size, 0, 2, MPI_INT, win);
  MPI_Win_fence(0, win);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
  MPI_Accumulate(mine, 3, MPI_INT, 0, 8, 3, MPI_INT, MPI_SUM, win);
  MPI_Win_unlock(0, win);
  MPI_Win_free(&win);
  /* A window over the half: targets are ranks of the half. Made by MPI_Win_create: Open
   * MPI 4.1's MPI_Win_allocate over a split communicator now and then fails to open its
   * shared memory ("MPI_ERR_WIN: invalid window"). */
  int hbase[16] = {0};
  MPI_Win hwin;
  MPI_Win_create(hbase, sizeof hbase, sizeof(int), MPI_INFO_NULL, half, &hwin);
  MPI_Win_lock_all(0, hwin);
  MPI_Put(mine, 1, MPI_INT, 0, hrank, 1, MPI_INT, hwin);
  MPI_Win_flush(0, hwin);
  MPI_Win_unlock_all(hwin);
  MPI_Barrier(half);
  MPI_Win_lock(MPI_LOCK_SHARED, hsize - 1, 0, hwin);
  MPI_Get(got, 1, MPI_INT, hsize - 1, 0, 1, MPI_INT, hwin);
  MPI_Win_unlock(hsize - 1, hwin);
  MPI_Win_free(&hwin);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}
