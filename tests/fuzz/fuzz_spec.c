/* fuzz_spec: apigen's spec reader (generator/spec.c) on any text.
 * Seeds: corpus/spec/ (the real api-specs and golden specs). */
#include "fuzz_util.h"

#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct diag d;
  diag_init(&d);
  struct spec s;
  /* A relative name: include_dirs resolve against "fuzz", as for a spec in that folder. */
  if (spec_load_buffer(&s, (const char *)data, size, "fuzz/spec.yaml", &d) == 0) {
    /* What the model builder does next with the patterns. */
    spec_patterns_match(&s.functions, "clGetPlatformIDs");
    spec_patterns_match(&s.exclude_functions, "clGetPlatformIDs");
    spec_patterns_match(&s.trace.exclude, "clGetPlatformIDs");
    spec_free(&s);
  }
  diag_print(&d, fuzz_util_null(), "apigen");
  diag_clear(&d);
  return 0;
}
