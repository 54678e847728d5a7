/* mpich hooks: what no template can know about MPI calls.
 *
 * The bytes of a message are its count times the size of one element of its datatype
 * (trace.messages in the spec); only the library knows that size, so the interposer asks
 * here when the call returns, through PMPI_Type_size (mpi_pmpi.h): untraced.
 */
#include "mpich_args.h"

#define MPI_LIBRARY_OBJECT mpich_library_object
#include "mpi_pmpi.h"

uint64_t mpich_element_size(MPI_Datatype datatype) {
  int size = 0;
  if (datatype == MPI_DATATYPE_NULL)
    return 0;
  if (!pmpi_ready() || pmpi.Type_size(datatype, &size) != MPI_SUCCESS)
    return 0;
  return size > 0 ? (uint64_t)size : 0;
}

/* MPI has no device work: no trace.commands. */
void mpich_command_begin(struct tracer_command *command) { (void)command; }

void mpich_command_end(struct tracer_command *command, int64_t status) {
  (void)command;
  (void)status;
}

/* Non-blocking calls: the bytes of each request, from its start to its completion
 * (mpi_requests.h). */
#include "mpi_requests.h"

uint64_t mpich_request_started(int64_t status, void *request, uint64_t bytes) {
  if (status == MPI_SUCCESS && request)
    request_started(*(MPI_Request *)request, bytes);
  return bytes;
}

uint64_t mpich_completed_bytes(void) {
  uint64_t bytes = completed_bytes;
  completed_bytes = 0;
  return bytes;
}

/* MPI_Wait and MPI_Waitall complete every request they are given. */
void mpich_hook_MPI_Wait_before(struct mpich_MPI_Wait_args *args) {
  completed_bytes = args->request ? request_completed(*args->request) : 0;
}

void mpich_hook_MPI_Waitall_before(struct mpich_MPI_Waitall_args *args) {
  completed_bytes = 0;
  for (int i = 0; args->array_of_requests && i < args->count; i++)
    completed_bytes += request_completed(args->array_of_requests[i]);
}

/* MPI_Test completes its request when it sets flag. */
void mpich_hook_MPI_Test_before(struct mpich_MPI_Test_args *args) {
  testing = args->request ? *args->request : MPI_REQUEST_NULL;
}

void mpich_hook_MPI_Test_after(struct mpich_MPI_Test_args *args) {
  bool done = args->tracer_status == MPI_SUCCESS && args->flag && *args->flag;
  completed_bytes = done ? request_completed(testing) : 0;
}

/* The peers of messages as world ranks, for the job's matrix (mpi_world_ranks.h). */
#include "mpi_world_ranks.h"

int64_t mpich_comm_world_rank(int64_t status, MPI_Comm handle, int64_t rank) {
  return comm_world_rank(status, handle, rank);
}

int64_t mpich_win_world_rank(int64_t status, MPI_Win handle, int64_t rank) {
  return win_world_rank(status, handle, rank);
}
