/* check_mpi: the MPI launcher whose environment this process sees, with its rank, local
 * rank and node, and what several ranks on one node mean for the tracer today. */
#include <stdlib.h>
#include <unistd.h>

#include "check_report.h"

/* The variables each launcher sets in every rank's environment; NULL where it has none. */
struct launcher {
  const char *name;
  const char *rank, *size, *local_rank, *node;
};

static const struct launcher launchers[] = {
    {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
     NULL},
    {"HPE Cray PALS", "PALS_RANKID", NULL, "PALS_LOCAL_RANKID", "PALS_NODEID"},
    {"MPICH Hydra (PMI)", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", NULL},
    {"PMIx", "PMIX_RANK", NULL, NULL, NULL},
    {"MVAPICH2", "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_LOCAL_RANK", NULL},
    /* Last: Slurm also sets SLURM_PROCID in a batch script, outside any srun step. */
    {"Slurm (srun)", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NODEID"},
};

static const char *value(const char *name) {
  const char *v = name ? getenv(name) : NULL;
  return v && *v ? v : NULL;
}

void check_mpi(struct check_report *report) {
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  for (size_t i = 0; i < sizeof launchers / sizeof *launchers; i++) {
    const struct launcher *l = &launchers[i];
    if (!value(l->rank))
      continue;
    check_say(report, CHECK_INFO, "MPI launcher",
              "%s: rank %s%s%s, local rank %s, node %s%s%s; each rank records its own trace "
              "(%s)",
              l->name, value(l->rank), value(l->size) ? " of " : "",
              value(l->size) ? value(l->size) : "", value(l->local_rank) ? value(l->local_rank) : "?",
              host, value(l->node) ? " #" : "", value(l->node) ? value(l->node) : "",
              geteuid() == 0 ? "one session daemon per node, root's"
                             : "and starts its own session daemon");
    return;
  }
  check_say(report, CHECK_INFO, "MPI launcher",
            "none seen (no PMI_RANK, OMPI_COMM_WORLD_RANK, PALS_RANKID, SLURM_PROCID, ...): "
            "one process, node %s",
            host);
}
