/* rank_env: where this process stands in an MPI job, read from the launcher's
 * environment before the app starts (docs/multi-rank.md lists the variables):
 *
 *   launcher        rank                  size                 local rank                 node
 *   Open MPI        OMPI_COMM_WORLD_RANK  OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_LOCAL_RANK  hostname
 *   HPE Cray PALS   PALS_RANKID           PMI_SIZE             PALS_LOCAL_RANKID          hostname
 *   MPICH Hydra     PMI_RANK              PMI_SIZE             MPI_LOCALRANKID            hostname
 *   torchrun        RANK                  WORLD_SIZE           LOCAL_RANK                 hostname
 *   Slurm (srun)    SLURM_PROCID          SLURM_NTASKS         SLURM_LOCALID              SLURMD_NODENAME
 * and the ranks on this node: OMPI_COMM_WORLD_LOCAL_SIZE, PALS_LOCAL_SIZE, MPI_LOCALNRANKS,
 * LOCAL_WORLD_SIZE (Slurm: not read). torchrun counts only when TORCHELASTIC_RUN_ID is set
 * too, since RANK alone is a common name.
 *
 * The first launcher whose rank variable is set wins; Slurm comes last because it also
 * sets SLURM_PROCID in a batch script around mpirun. The job id, which names the job's
 * trace folder the same way on every rank, is PMIX_NAMESPACE (Open MPI), PALS_APID,
 * TORCHELASTIC_RUN_ID (unless it is torchrun's default, "none"), SLURM_JOB_ID.SLURM_STEP_ID,
 * else the launcher's process on this node (Hydra and torchrun without --rdzv-id have no
 * job id: several nodes then need --trace-output).
 */
#ifndef TRACER_RANK_ENV_H
#define TRACER_RANK_ENV_H

#include <stdbool.h>

struct rank_env {
  bool present;          /* a launcher's rank variable is set */
  const char *launcher;  /* "MPICH Hydra", ...; static */
  bool mpi_launcher;     /* one that starts MPI jobs (not torchrun) */
  long rank, size, local_rank, local_size; /* -1 when the launcher does not say */
  char node[256];
  char job_id[300];
};

void rank_env_read(struct rank_env *r);

/* Parses a rank list ("0,2-3"): true when rank is in it. *bad is set to the first
 * character that is neither a number, ',' nor '-', or to the start of a number too large
 * or of a range that ends before it starts (NULL when the list is well formed). */
bool rank_list_has(const char *list, long rank, const char **bad);

#endif
