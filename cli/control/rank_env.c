/* rank_env: see rank_env.h. */
#include "rank_env.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct launcher {
  const char *name;
  const char *rank, *size, *local_rank, *node, *local_size;
  const char *marker; /* a variable that must be set too (rank's name alone is too common) */
  bool mpi;           /* starts MPI jobs (or may: srun) */
};

static const struct launcher launchers[] = {
    {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
     NULL, "OMPI_COMM_WORLD_LOCAL_SIZE", NULL, true},
    {"HPE Cray PALS", "PALS_RANKID", "PMI_SIZE", "PALS_LOCAL_RANKID", NULL, "PALS_LOCAL_SIZE", NULL, true},
    {"MPICH Hydra", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", NULL, "MPI_LOCALNRANKS", NULL, true},
    /* PyTorch's torchrun (torch.distributed.elastic): RANK alone is too common a name. It
     * comes before Slurm, which sets SLURM_PROCID for torchrun itself under srun. */
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", NULL, "LOCAL_WORLD_SIZE",
     "TORCHELASTIC_RUN_ID", false},
    /* Slurm's SLURM_TASKS_PER_NODE is a list per node ("2(x3),1"): not read. */
    {"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURMD_NODENAME", NULL, NULL, true},
};

static const char *value(const char *name) {
  const char *v = name ? getenv(name) : NULL;
  return v && *v ? v : NULL;
}

static long number(const char *name) {
  const char *v = value(name);
  char *end;
  long n = v ? strtol(v, &end, 10) : -1;
  return v && !*end && n >= 0 ? n : -1;
}

void rank_env_read(struct rank_env *r) {
  memset(r, 0, sizeof *r);
  r->rank = r->size = r->local_rank = r->local_size = -1;
  for (size_t i = 0; i < sizeof launchers / sizeof *launchers; i++) {
    const struct launcher *l = &launchers[i];
    if (number(l->rank) < 0 || (l->marker && !value(l->marker)))
      continue;
    r->present = true;
    r->launcher = l->name;
    r->mpi_launcher = l->mpi;
    r->rank = number(l->rank);
    r->size = number(l->size);
    r->local_rank = number(l->local_rank);
    r->local_size = number(l->local_size);
    if (value(l->node))
      snprintf(r->node, sizeof r->node, "%s", value(l->node));
    break;
  }
  if (!r->node[0] && gethostname(r->node, sizeof r->node - 1) != 0)
    snprintf(r->node, sizeof r->node, "unknown");
  if (value("PMIX_NAMESPACE"))
    snprintf(r->job_id, sizeof r->job_id, "%s", value("PMIX_NAMESPACE"));
  else if (value("PALS_APID"))
    snprintf(r->job_id, sizeof r->job_id, "%s", value("PALS_APID"));
  else if (r->launcher && strcmp(r->launcher, "torchrun") == 0 &&
           strcmp(value("TORCHELASTIC_RUN_ID"), "none") != 0)
    snprintf(r->job_id, sizeof r->job_id, "%s", value("TORCHELASTIC_RUN_ID"));
  else if (value("SLURM_JOB_ID"))
    snprintf(r->job_id, sizeof r->job_id, "%s.%s", value("SLURM_JOB_ID"),
             value("SLURM_STEP_ID") ? value("SLURM_STEP_ID") : "0");
  else
    snprintf(r->job_id, sizeof r->job_id, "%s.%ld", r->node, (long)getppid());
}

bool rank_list_has(const char *list, long rank, const char **bad) {
  bool found = false;
  *bad = NULL;
  for (const char *p = list; *p;) {
    if (!isdigit((unsigned char)*p)) {
      *bad = p;
      return false;
    }
    char *end;
    errno = 0;
    long lo = strtol(p, &end, 10), hi = lo;
    if (*end == '-') {
      if (!isdigit((unsigned char)end[1])) {
        *bad = end;
        return false;
      }
      hi = strtol(end + 1, &end, 10);
    }
    if (errno == ERANGE || hi < lo) { /* a rank past 64 bits, a range backwards (5-2) */
      *bad = p;
      return false;
    }
    found |= rank >= lo && rank <= hi;
    if (*end == ',')
      end++;
    else if (*end) {
      *bad = end;
      return false;
    }
    p = end;
  }
  return found;
}
