/* fuzz_ctf_analysis: the analyses (cli/analysis/event_map.c, tally.c, trace_text.c over the
 * OpenCL backend's description) on any bytes as a stream file, under a fixed real
 * metadata of the tracer's own OpenCL events (corpus/ctf_metadata/lttng_opencl.tsdl,
 * from `tracer -m full` on the vadd app by make_ctf_seeds.sh).
 * Seeds: corpus/ctf_analysis/ (that trace's stream files). */
#include "fuzz_util.h"

#include <stdlib.h>

#include "ctf.h"
#include "event_map.h"
#include "tally.h"
#include "trace_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int ready;
  const char *dir = fuzz_util_dir();
  if (!ready) {
    fuzz_util_copy("ctf_metadata/lttng_opencl.tsdl", dir, "metadata");
    ready = 1;
  }
  fuzz_util_write(dir, "tracer_0", data, size);
  struct ctf_trace *trace = NULL;
  struct ctf_error error;
  if (ctf_trace_open(dir, &trace, &error) != CTF_OK)
    return 0;
  struct event_map map;
  if (event_map_build(trace, &map) == 0) {
    struct tally tally;
    tally_trace(trace, &map, 1, false, &tally);
    tally_free(&tally); /* as tracer_main.c does, whatever tally_trace() returned */
    char *message = NULL;
    trace_text_print(trace, &map, fuzz_util_null(), &message);
    free(message);
    event_map_free(&map);
  }
  ctf_trace_close(trace);
  return 0;
}
