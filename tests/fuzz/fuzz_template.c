/* fuzz_template: apigen's template engine (generator/template.c) on any template text,
 * parsed and rendered over a small fixed tree shaped like a view (view.c): strings,
 * booleans, a list of maps with nested lists, a map, an empty list.
 * Seeds: corpus/template/ (the templates of templates/, small cases, regressions). */
#include "fuzz_util.h"

#include <stdlib.h>

#include "template.h"

static struct tree *fixed_tree(void) {
  struct tree *root = tree_map();
  tree_set_string(root, "backend", "opencl");
  tree_set_string(root, "provider", "lttng_ust_opencl");
  tree_set_string(root, "empty", "");
  tree_set_bool(root, "yes", true);
  tree_set_bool(root, "no", false);
  struct tree *functions = tree_set(root, "functions", tree_list());
  for (int i = 0; i < 3; i++) {
    struct tree *f = tree_push(functions, tree_map());
    tree_set(f, "name", tree_stringf("clFunction%d", i));
    tree_set(f, "id", tree_stringf("%d", i));
    tree_set_bool(f, "returns", i != 1);
    tree_set_bool(f, "variadic", i == 2);
    struct tree *params = tree_set(f, "params", tree_list());
    for (int k = 0; k < i; k++) {
      struct tree *p = tree_push(params, tree_map());
      tree_set(p, "name", tree_stringf("param%d", k));
      tree_set_string(p, "decl", "const void *");
    }
    struct tree *tags = tree_set(f, "tags", tree_list());
    tree_push(tags, tree_string("entry"));
    tree_push(tags, tree_string("exit"));
  }
  struct tree *spec = tree_set(root, "spec", tree_map());
  tree_set_string(spec, "library", "libOpenCL.so.1");
  tree_set(spec, "defines", tree_list());
  return root;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static struct tree *tree;
  if (!tree)
    tree = fixed_tree();
  char *text = fuzz_util_cstring(data, size);
  struct diag d;
  diag_init(&d);
  struct template *t;
  if (template_parse("fuzz.tmpl", text, &t, &d) == 0) {
    struct strbuf out;
    strbuf_init(&out);
    template_render(t, tree, &out, &d);
    strbuf_free(&out);
    template_free(t);
  }
  diag_print(&d, fuzz_util_null(), "apigen");
  diag_clear(&d);
  free(text);
  return 0;
}
