/* rank_env_test: where a process stands in a job, read from each launcher's variables as
 * the launchers set them (docs/multi-rank.md), and --traced-ranks lists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank_env.h"

#include "expect.h"

static const char *const all[] = {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                                  "OMPI_COMM_WORLD_LOCAL_RANK", "PMIX_NAMESPACE",
                                  "PALS_RANKID", "PALS_LOCAL_RANKID", "PALS_APID", "PMI_RANK",
                                  "PMI_SIZE", "MPI_LOCALRANKID", "SLURM_PROCID",
                                  "SLURM_NTASKS", "SLURM_LOCALID", "SLURMD_NODENAME",
                                  "SLURM_JOB_ID", "SLURM_STEP_ID", "MPI_LOCALNRANKS",
                                  "OMPI_COMM_WORLD_LOCAL_SIZE", "PALS_LOCAL_SIZE", "RANK",
                                  "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
                                  "TORCHELASTIC_RUN_ID"};

static void clear(void) {
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    unsetenv(all[i]);
}

int main(void) {
  struct rank_env r;
  clear();
  rank_env_read(&r);
  EXPECT(!r.present && r.rank == -1);

  setenv("PMI_RANK", "3", 1);
  setenv("PMI_SIZE", "4", 1);
  setenv("MPI_LOCALRANKID", "1", 1);
  rank_env_read(&r);
  EXPECT(r.present && r.rank == 3 && r.size == 4 && r.local_rank == 1 && r.local_size == -1);
  setenv("MPI_LOCALNRANKS", "2", 1);
  rank_env_read(&r);
  EXPECT(r.local_size == 2);
  EXPECT(strcmp(r.launcher, "MPICH Hydra") == 0 && r.job_id[0]);

  clear();
  setenv("OMPI_COMM_WORLD_RANK", "5", 1);
  setenv("OMPI_COMM_WORLD_SIZE", "8", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "2", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "4", 1);
  setenv("PMIX_NAMESPACE", "1242300417", 1);
  /* A batch script's Slurm variables around mpirun do not win over Open MPI's. */
  setenv("SLURM_PROCID", "0", 1);
  rank_env_read(&r);
  EXPECT(r.present && r.rank == 5 && r.size == 8 && r.local_rank == 2 && r.local_size == 4);
  EXPECT(strcmp(r.launcher, "Open MPI") == 0 && strcmp(r.job_id, "1242300417") == 0);

  /* torchrun: RANK alone is not a launcher; with torchrun's run id it is, ahead of the
   * Slurm variables of an srun around torchrun. */
  clear();
  setenv("RANK", "1", 1);
  setenv("WORLD_SIZE", "2", 1);
  rank_env_read(&r);
  EXPECT(!r.present);
  setenv("LOCAL_RANK", "1", 1);
  setenv("LOCAL_WORLD_SIZE", "2", 1);
  setenv("TORCHELASTIC_RUN_ID", "ddp-7", 1);
  setenv("SLURM_PROCID", "0", 1);
  rank_env_read(&r);
  EXPECT(r.present && r.rank == 1 && r.size == 2 && r.local_rank == 1 && r.local_size == 2);
  EXPECT(strcmp(r.launcher, "torchrun") == 0 && strcmp(r.job_id, "ddp-7") == 0);
  setenv("TORCHELASTIC_RUN_ID", "none", 1); /* torchrun's default: no job id of its own */
  rank_env_read(&r);
  EXPECT(strcmp(r.launcher, "torchrun") == 0 && strcmp(r.job_id, "none") != 0 && r.job_id[0]);

  clear();
  setenv("PALS_RANKID", "7", 1);
  setenv("PALS_LOCAL_RANKID", "3", 1);
  setenv("PMI_SIZE", "16", 1);
  setenv("PALS_APID", "abc", 1);
  rank_env_read(&r);
  EXPECT(r.present && r.rank == 7 && r.size == 16 && r.local_rank == 3);
  EXPECT(strcmp(r.launcher, "HPE Cray PALS") == 0 && strcmp(r.job_id, "abc") == 0);

  clear();
  setenv("SLURM_PROCID", "9", 1);
  setenv("SLURM_NTASKS", "10", 1);
  setenv("SLURM_LOCALID", "1", 1);
  setenv("SLURMD_NODENAME", "nid0042", 1);
  setenv("SLURM_JOB_ID", "777", 1);
  setenv("SLURM_STEP_ID", "2", 1);
  rank_env_read(&r);
  EXPECT(r.present && r.rank == 9 && r.size == 10 && r.local_rank == 1);
  EXPECT(strcmp(r.node, "nid0042") == 0 && strcmp(r.job_id, "777.2") == 0);

  clear();
  setenv("PMI_RANK", "x", 1); /* not a rank */
  rank_env_read(&r);
  EXPECT(!r.present);

  const char *bad;
  EXPECT(rank_list_has("0,4-7", 0, &bad) && !bad);
  EXPECT(rank_list_has("0,4-7", 5, &bad) && !bad);
  EXPECT(!rank_list_has("0,4-7", 3, &bad) && !bad);
  EXPECT(!rank_list_has("0,4-7", 8, &bad) && !bad);
  EXPECT(!rank_list_has("0,a", 0, &bad) && bad && *bad == 'a');
  EXPECT(!rank_list_has("1-", 1, &bad) && bad);
  if (failures)
    return 1;
  puts("PASS: rank_env_test");
  return 0;
}
