/* fuzz_ctf_analysis: the analyses (the reader, the tally and trace_text.c over the
 * OpenCL backend's description) on any bytes as a stream file, under a fixed real
 * metadata of the tracer's own OpenCL events (corpus/ctf_metadata/lttng_opencl.tsdl,
 * from `tracer -m full` on the vadd app by make_ctf_seeds.sh).
 * Seeds: corpus/ctf_analysis/ (that trace's stream files). */
#include "fuzz_util.h"

#include <stdlib.h>

#include "tally.h"
#include "trace_reader.h"
#include "trace_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int ready;
  const char *dir = fuzz_util_dir();
  if (!ready) {
    fuzz_util_copy("ctf_metadata/lttng_opencl.tsdl", dir, "metadata");
    ready = 1;
  }
  fuzz_util_write(dir, "tracer_0", data, size);
  struct trace_reader *reader;
  struct diag d;
  diag_init(&d);
  if (trace_reader_open(dir, &reader, &d) == 0) {
    struct tally tally;
    struct trace_read_options one_thread = {.threads = 1};
    tally_trace(reader, &one_thread, false, &tally, &d);
    tally_free(&tally); /* as the tracer does, whatever tally_trace() returned */
    struct trace_text *text;
    struct trace_consumer consumer;
    if (trace_text_open(trace_reader_map(reader), fuzz_util_null(), &text, &consumer, &d) == 0) {
      const struct trace_consumer *consumers[] = {&consumer};
      trace_read(reader, consumers, 1, NULL, &d);
      trace_text_close(text);
    }
    trace_reader_close(reader);
  }
  diag_clear(&d);
  return 0;
}
