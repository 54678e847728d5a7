/* rank_timeline_driver: what rank 0 of a job does with -l (cli/job/rank_timeline.h), on a
 * job folder the test put together: each rank-N folder's timeline written, then joined.
 * Usage: rank_timeline_driver JOB_DIR OUT.pftrace */
#include <stdio.h>
#include <stdlib.h>

#include "job_folder.h"
#include "rank_timeline.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s JOB_DIR OUT.pftrace\n", argv[0]);
    return 2;
  }
  struct diag d;
  diag_init(&d);
  char chain[1024], dir[4096];
  long *ranks = NULL;
  size_t count = job_folder_ranks(argv[1], &ranks);
  int rc = count ? 0 : 1;
  for (size_t i = 0; i < count && rc == 0; i++) {
    job_rank_folder(argv[1], ranks[i], dir, sizeof dir);
    rc = rank_timeline_write(dir, 0, NULL, NULL, NULL, &d);
  }
  unsigned joined = 0;
  uint64_t bytes = 0;
  if (rc == 0)
    rc = rank_timeline_join(argv[1], argv[2], &joined, &bytes, &d);
  if (rc)
    fprintf(stderr, "rank_timeline_driver: %s\n",
            count ? diag_join(&d, chain, sizeof chain) : "no rank-N folder");
  free(ranks);
  diag_clear(&d);
  return rc ? 1 : 0;
}
