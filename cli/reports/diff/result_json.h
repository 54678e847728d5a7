/* result_json: a JSON result of the tracer (`tracer -j -o run.json ...`, a job's `-j`
 * report; docs/analysis-output.md#json--j) read back for `tracer diff A B`: what the diff
 * takes from a trace, so that the diff of two JSON results is the diff of their traces
 * (run_diff.h):
 *   - its tally: per backend the host functions (calls, errors, time, bytes of message
 *     calls; those made inside other APIs' calls apart: "inside_other") and the device
 *     rows (kernels, transfers, others, per device, with their bytes), as the JSON has
 *     them;
 *   - its steps' lengths, when it was made with --steps: a trace's from its "steps" (the
 *     first process with steps, as the diff takes them from a trace), a job's from its
 *     "slowest_ranks" (per step the slowest rank's time, as the diff takes them from a
 *     job's folder: job_steps.h).
 * Rows of a backend or a function this tracer does not know (a result of a build with
 * other backends, or of other specs) are left out and counted, as the job's result
 * files do (result_file.h).
 *
 * Jansson parses the file (loaded when first needed: jansson_library.h); a file that is
 * not JSON is named with the parser's line and column. Library code: no messages.
 */
#ifndef TRACER_RESULT_JSON_H
#define TRACER_RESULT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "tally.h"

enum result_json_status {
  RESULT_JSON_READ,   /* read */
  RESULT_JSON_BAD,    /* not JSON, not a tracer result, or of a version this tracer does
                         not read: the input's fault (the cause names the file) */
  RESULT_JSON_FAILED, /* Jansson could not be loaded, or out of memory */
};

struct result_json {
  struct tally tally;   /* owned (tally_empty, filled from the file) */
  uint64_t *step_ns;    /* the steps' lengths, owned; NULL when the result has none */
  size_t step_count;
  char steps_what[64];  /* what its steps are ("Step.N") */
  bool is_job;          /* a job's report (its "job" member) */
  size_t left_out;      /* rows of backends or functions this tracer does not know */
};

/* Reads the result in path into r (result_json_free it whatever the status). The cause
 * in d says why not. */
enum result_json_status result_json_read(const char *path, struct result_json *r,
                                         struct diag *d);
void result_json_free(struct result_json *r);

#endif
