/* fuzz_ctf_stream: the CTF reader's stream decoder (cli/ctf/ctf_cursor.c, ctf_exec.c,
 * ctf_value.c, ctf_merge.c) on any bytes as a stream file, under a fixed real LTTng
 * metadata that declares every field kind (corpus/ctf_metadata/lttng_ctf_test.metadata,
 * recorded from tests/ctf/ctf_test_app by make_ctf_seeds.sh). A fixed real stream of the
 * same trace sits beside it, so the merge interleaves two streams.
 * Seeds: corpus/ctf_stream/ (that trace's stream files). */
#include "fuzz_util.h"

#include "ctf.h"
#include "ctf_walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int ready;
  const char *dir = fuzz_util_dir();
  if (!ready) {
    fuzz_util_copy("ctf_metadata/lttng_ctf_test.metadata", dir, "metadata");
    fuzz_util_copy("ctf_stream/ctf_test_c0_1", dir, "c0_1");
    ready = 1;
  }
  fuzz_util_write(dir, "c0_0", data, size);
  struct ctf_trace *trace = NULL;
  struct ctf_error error;
  if (ctf_trace_open(dir, &trace, &error) != CTF_OK)
    return 0;
  ctf_walk_trace(trace);
  ctf_trace_close(trace);
  return 0;
}
