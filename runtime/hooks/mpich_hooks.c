/* mpich hooks: what no template can know about MPI calls.
 *
 * The bytes of a message are its count times the size of one element of its datatype
 * (trace.messages in the spec); only the library knows that size, so the interposer asks
 * here when the call returns. The call goes to the library untraced (mpich_depth).
 */
#include "mpich_args.h"

uint64_t mpich_element_size(MPI_Datatype datatype) {
  int size = 0;
  if (datatype == MPI_DATATYPE_NULL)
    return 0;
  mpich_depth++;
  int status = MPI_Type_size(datatype, &size); /* the wrapper passes it straight on */
  mpich_depth--;
  return status == MPI_SUCCESS && size > 0 ? (uint64_t)size : 0;
}

/* MPI has no device work: no trace.commands. */
void mpich_command_begin(struct tracer_command *command) { (void)command; }

void mpich_command_end(struct tracer_command *command, int64_t status) {
  (void)command;
  (void)status;
}
