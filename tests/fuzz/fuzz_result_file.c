/* fuzz_result_file: an MPI job's per-node result files (cli/job/result_file.c) on
 * any bytes: read into a result, merged into another, written again.
 * Seeds: corpus/result_file/ (results of the tests' MPI jobs). */
#include "fuzz_util.h"

#include <stdlib.h>

#include "result_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_util_write(fuzz_util_dir(), "node.result", data, size);
  struct job_result r, job;
  char error[512];
  int made = job_result_init(&r) | job_result_init(&job);
  r.want_actors = job.want_actors = true; /* the actors' lines (-e, --ranks) too */
  if (made == 0 && result_file_read(path, &r, error, sizeof error) == 0 &&
      job_result_merge(&job, &r) == 0) {
    job_result_sort(&job);
    long *ranks;
    result_file_ranks(path, &ranks);
    free(ranks);
    result_file_write(fuzz_util_write(fuzz_util_dir(), "again.result", "", 0), &job);
  }
  job_result_free(&r);
  job_result_free(&job);
  return 0;
}
