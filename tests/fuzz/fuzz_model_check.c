/* fuzz_model_check: a model.yaml as apigen --check-source reads it (generator/yamldoc.c
 * and model_check.c), any text, rendered into memory. The spec is fixed and names one
 * header found in the compiler's own folder, so no libclang parse happens.
 * Seeds: corpus/model_check/ (a real model, golden expected models). */
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

#include "model_check.h"

static const char spec_text[] = "backend: fuzz\n"
                                "library: libfuzz.so.1\n"
                                "headers: [stddef.h]\n"
                                "select:\n"
                                "  functions: ['*']\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static struct spec s;
  static int loaded;
  struct diag d;
  diag_init(&d);
  if (!loaded) {
    if (spec_load_buffer(&s, spec_text, strlen(spec_text), "fuzz/spec.yaml", &d) != 0) {
      diag_print(&d, stderr, "fuzz_model_check");
      abort();
    }
    loaded = 1;
  }
  struct yamldoc y;
  if (yamldoc_load_buffer(&y, (const char *)data, size, "fuzz/model.yaml", &d) == 0) {
    struct strbuf src;
    if (model_check_build_source(&s, &y, &src, &d) == 0)
      strbuf_free(&src);
  }
  yamldoc_free(&y);
  diag_print(&d, fuzz_util_null(), "apigen");
  diag_clear(&d);
  return 0;
}
