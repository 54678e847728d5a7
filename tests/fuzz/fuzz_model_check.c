/* fuzz_model_check: a model.yaml as apigen --check-source reads it (generator/yamldoc.c
 * and model_check.c), any text, rendered into memory. The spec is fixed and names an
 * empty header in the scratch folder; nothing is parsed by libclang.
 * Seeds: corpus/model_check/ (golden models as apigen writes them, regressions). */
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

#include "model_check.h"
#include "translation_unit.h"

static void load_spec(struct spec *s) {
  const char *dir = fuzz_util_dir();
  fuzz_util_write(dir, "fuzz.h", "", 0);
  char *text = xasprintf("backend: fuzz\n"
                         "library: libfuzz.so.1\n"
                         "headers: [\"%s/fuzz.h\"]\n"
                         "select: {functions: [\"*\"]}\n",
                         dir);
  struct diag d;
  diag_init(&d);
  if (spec_load_buffer(s, text, strlen(text), "fuzz/spec.yaml", &d) != 0) {
    diag_print(&d, stderr, "fuzz_model_check");
    abort();
  }
  /* The header must be found, or every input would stop before the model is read. */
  struct tu_config cfg;
  if (tu_config_init(&cfg, s, &d) != 0) {
    diag_print(&d, stderr, "fuzz_model_check");
    abort();
  }
  tu_config_free(&cfg);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static struct spec s;
  static int loaded;
  if (!loaded) {
    load_spec(&s);
    loaded = 1;
  }
  struct diag d;
  diag_init(&d);
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
