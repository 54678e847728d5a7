/* openmpi hooks: what no template can know about MPI calls.
 *
 * The bytes of a message are its count times the size of one element of its datatype
 * (trace.messages in the spec); only the library knows that size, so the interposer asks
 * here when the call returns, through PMPI_Type_size (mpi_pmpi.h): untraced.
 */
#include "openmpi_args.h"

/* Open MPI's predefined handles (MPI_COMM_WORLD, MPI_DATATYPE_NULL, MPI_REQUEST_NULL ...)
 * are the addresses of objects in libmpi. Referred to as such, they would make the
 * dynamic loader look for libmpi's data when the interposer loads, and a process that
 * loads libmpi only later (python3 with mpi4py) would die there. Each is looked up
 * instead when first used, in the copy of libmpi the app loaded. */
static void *openmpi_predefined(void **cache, const char *name) {
  void *object = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (!object) {
    object = openmpi_library_object(name);
    __atomic_store_n(cache, object, __ATOMIC_RELEASE);
  }
  return object;
}

#undef OMPI_PREDEFINED_GLOBAL
#define OMPI_PREDEFINED_GLOBAL(type, global)                                                 \
  __extension__({                                                                           \
    static void *tracer_object;                                                             \
    (type) openmpi_predefined(&tracer_object, #global);                                     \
  })

#define MPI_LIBRARY_OBJECT openmpi_library_object
#include "mpi_pmpi.h"

uint64_t openmpi_element_size(MPI_Datatype datatype) {
  int size = 0;
  if (datatype == MPI_DATATYPE_NULL)
    return 0;
  if (!pmpi_ready() || pmpi.Type_size(datatype, &size) != MPI_SUCCESS)
    return 0;
  return size > 0 ? (uint64_t)size : 0;
}

/* MPI has no device work: no trace.commands. */
void openmpi_command_begin(struct tracer_command *command) { (void)command; }

void openmpi_command_end(struct tracer_command *command, int64_t status) {
  (void)command;
  (void)status;
}

/* Non-blocking calls: the bytes of each request, from its start to its completion
 * (mpi_requests.h). */
#include "mpi_requests.h"

uint64_t openmpi_request_started(int64_t status, void *request, uint64_t bytes) {
  if (status == MPI_SUCCESS && request)
    request_started(*(MPI_Request *)request, bytes);
  return bytes;
}

uint64_t openmpi_completed_bytes(void) {
  uint64_t bytes = completed_bytes;
  completed_bytes = 0;
  return bytes;
}

/* MPI_Wait and MPI_Waitall complete every request they are given. */
void openmpi_hook_MPI_Wait_before(struct openmpi_MPI_Wait_args *args) {
  completed_bytes = args->request ? request_completed(*args->request) : 0;
}

void openmpi_hook_MPI_Waitall_before(struct openmpi_MPI_Waitall_args *args) {
  completed_bytes = 0;
  for (int i = 0; args->array_of_requests && i < args->count; i++)
    completed_bytes += request_completed(args->array_of_requests[i]);
}

/* MPI_Test completes its request when it sets flag. */
void openmpi_hook_MPI_Test_before(struct openmpi_MPI_Test_args *args) {
  testing = args->request ? *args->request : MPI_REQUEST_NULL;
}

void openmpi_hook_MPI_Test_after(struct openmpi_MPI_Test_args *args) {
  bool done = args->tracer_status == MPI_SUCCESS && args->flag && *args->flag;
  completed_bytes = done ? request_completed(testing) : 0;
}

/* The peers of messages as world ranks, for the job's matrix (mpi_world_ranks.h). */
#include "mpi_world_ranks.h"

int64_t openmpi_comm_world_rank(int64_t status, MPI_Comm handle, int64_t rank) {
  return comm_world_rank(status, handle, rank);
}

int64_t openmpi_win_world_rank(int64_t status, MPI_Win handle, int64_t rank) {
  return win_world_rank(status, handle, rank);
}
