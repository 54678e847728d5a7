/* fuzz_result_json: a JSON result of the tracer (cli/reports/diff/result_json.c, what
 * `tracer diff` reads) on any bytes: read into a tally and step figures, which two runs'
 * comparison then prints. Jansson parses it (loaded, not instrumented: the target is the
 * reader's walk over what Jansson gives).
 * Seeds: corpus/result_json/ (a trace's result with steps, a job's report with its
 * ranks' steps, one from before "tracer_result", JSON that breaks), replayed by ctest
 * (fuzz_replay_result_json). Not in build_and_run.sh's targets yet: its source lists
 * for the analyses lack the reader (tally.c needs it) and hta/ (result_file's fails to
 * build the same way). */
#include "fuzz_util.h"

#include <stdio.h>

#include "result_json.h"
#include "run_diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_util_write(fuzz_util_dir(), "run.json", data, size);
  struct result_json r;
  struct diag d;
  diag_init(&d);
  if (result_json_read(path, &r, &d) == RESULT_JSON_READ) {
    struct diff_run run = {.path = path, .tally = &r.tally};
    if (r.step_count)
      diff_run_steps(&run, r.step_ns, r.step_count, r.steps_what);
    FILE *out = fopen("/dev/null", "w");
    if (out) {
      diff_print_json(&run, &run, out);
      diff_print_text(&run, &run, out);
      fclose(out);
    }
  }
  diag_clear(&d);
  result_json_free(&r);
  return 0;
}
