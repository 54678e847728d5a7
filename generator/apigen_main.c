/* apigen: parses a backend's API headers into generated/<backend>/model.yaml. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apigen_exit.h"
#include "diag.h"
#include "model.h"
#include "model_build.h"
#include "model_check.h"
#include "model_write.h"
#include "render.h"
#include "spec.h"
#include "spec_init.h"
#include "translation_unit.h"
#include "util.h"

#ifndef APIGEN_VERSION
#define APIGEN_VERSION "0.1.0"
#endif

static const char usage[] =
    "Usage: apigen [options] --spec SPEC [--spec SPEC ...]\n"
    "  or:  apigen [options] --all\n"
    "\n"
    "Parses the C headers a backend spec names (with libclang) and writes the backend's\n"
    "exact API model, generated/<backend>/model.yaml: every function with its params,\n"
    "types and roles, typedefs, enums, structs and unions with offsets, function-pointer\n"
    "types and the integer and string constants the API defines as macros. For a spec\n"
    "with a `trace` section it then renders the templates over the model: the\n"
    "LTTng-UST tracepoint provider, the LD_PRELOAD interposer, its export map, and the\n"
    "event descriptions the analyses use, all in the same folder, laid out by\n"
    "clang-format with the .clang-format beside the templates folder (CLANG_FORMAT names\n"
    "the program, default clang-format from PATH).\n"
    "\n"
    "Options:\n"
    "  -s, --spec SPEC       a spec file; a bare name such as ze or ze.yaml is looked up\n"
    "                        in ./api-specs/, then in the installed specs: PREFIX/\n"
    "                        " APIGEN_SPEC_SUBDIR ", PREFIX being the folder above\n"
    "                        apigen's own\n"
    "  -a, --all             every spec in the api-specs folder\n"
    "  -o, --output DIR      folder for the model (default: generated/<backend> beside the\n"
    "                        api-specs folder the spec is in, else ./generated/<backend>)\n"
    "      --stdout          write the model to standard output instead of a file\n"
    "      --check-source F  do not parse; read the written model and write F, a C program\n"
    "                        that checks every declaration of the model against the real\n"
    "                        headers with the compiler (see scripts/model-check.sh)\n"
    "      --print-cflags    print the compiler flags that find the spec's headers, and exit\n"
    "      --print KEY       print a key of the spec as apigen reads it, and exit (no\n"
    "                        header is parsed): backend, library, collector, description,\n"
    "                        headers (one a line), defines (one a line), hooks, trace\n"
    "                        (true when the spec has a trace section); so that scripts\n"
    "                        read a spec as YAML, whatever its quoting or flow style\n"
    "      --init HEADER...  write a starting spec for a C library from its headers\n"
    "                        alone (the headers given as #include names them, or as\n"
    "                        paths), to standard output or --output FILE: see below\n"
    "      --library SONAME  with --init: the library that exports the functions\n"
    "                        (default: found through the Debian package of the first\n"
    "                        header, the one of its libraries that exports the most of\n"
    "                        the header's functions)\n"
    "      --backend NAME    with --init: the backend's name (default: the first\n"
    "                        header's name, a-z0-9_)\n"
    "  -t, --templates DIR   templates for specs with a `trace` section (default: templates/\n"
    "                        beside the api-specs folder, else the installed ones in\n"
    "                        PREFIX/" APIGEN_TEMPLATE_SUBDIR ")\n"
    "  -q, --quiet           print nothing but errors\n"
    "  -h, --help            show this help and exit\n"
    "  -V, --version         show the version and exit\n"
    "\n"
    "Errors are printed as FILE:LINE:COLUMN: error: MESSAGE. Nothing is written for a\n"
    "spec that fails. Exit status: 0 success, 2 bad usage, 3 invalid spec, 4 header\n"
    "missing or not compilable, 5 model cannot be built or read, 6 output not written\n"
    "(or clang-format missing or failing).\n"
    "--init parses the headers (adding the defines a header's #error demands), selects\n"
    "the functions declared in the headers of the headers' package that the library\n"
    "exports, by prefix (json_*), and infers each result's status from the header's own\n"
    "words: an enum whose constants name errors, a type named *_status, *_result,\n"
    "*_error_t, *_errorCode_t, a size_t that the header's own *isError() function tests,\n"
    "an int whose error constants are negative or whose comments say what an error or\n"
    "success returns (and which values are answers: -EEXIST \"if it is not present\"),\n"
    "a boolean whose comments say which value fails; an enum constant is no error for a\n"
    "function its doc comment says goes on normally after it. Sizes, counts, pointers,\n"
    "other booleans and versions are no statuses. Each rule comes with a comment saying\n"
    "why. The spec is checked (its model built) before it is written. See\n"
    "docs/adding-a-backend.md.\n"
    "\n"
    "The spec format is described in docs/spec-format.md, the model in\n"
    "docs/model-format.md.\n";

struct options {
  struct ptrvec specs; /* char* */
  const char *output;
  const char *check_source;
  const char *templates;
  const char *print_key; /* --print KEY */
  const char *library, *backend; /* --init's */
  int to_stdout, print_cflags, quiet, all, init;
};

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* PREFIX/SUBDIR for the prefix apigen runs from (its folder's parent), so an installed
 * apigen finds its specs and templates wherever the tree was installed or moved. */
static char *installed_dir(const char *subdir) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return NULL;
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (!slash)
    return NULL;
  *slash = '\0';
  return xasprintf("%s/../%s", exe, subdir);
}

/* "ze", "ze.yaml" or a path: the spec file to read (owned), or NULL. */
static char *find_spec(const char *arg) {
  if (strchr(arg, '/') || is_file(arg))
    return xstrdup(arg);
  char *installed = installed_dir(APIGEN_SPEC_SUBDIR);
  const char *dirs[] = {"api-specs", installed ? installed : APIGEN_SPEC_DIR, APIGEN_SPEC_DIR};
  char *found = NULL;
  for (size_t i = 0; i < sizeof dirs / sizeof *dirs && !found; i++) {
    const char *suffix = strstr(arg, ".yaml") ? "" : ".yaml";
    char *p = xasprintf("%s/%s%s", dirs[i], arg, suffix);
    if (is_file(p))
      found = p;
    else
      free(p);
  }
  free(installed);
  return found;
}

static char *default_output(const struct spec *s) {
  const char *slash = strrchr(s->dir, '/');
  const char *base = slash ? slash + 1 : s->dir;
  if (strcmp(base, "api-specs") == 0) {
    char *root = slash ? xstrndup(s->dir, (size_t)(slash - s->dir)) : xstrdup(".");
    char *out = strcmp(root, ".") == 0 ? xasprintf("generated/%s", s->backend)
                                       : xasprintf("%s/generated/%s", root, s->backend);
    free(root);
    return out;
  }
  return xasprintf("generated/%s", s->backend);
}

static int make_dirs(const char *path) {
  char *p = xstrdup(path);
  for (char *s = p + 1; *s; s++) {
    if (*s != '/')
      continue;
    *s = '\0';
    if (mkdir(p, 0777) != 0 && errno != EEXIST) {
      free(p);
      return -1;
    }
    *s = '/';
  }
  int rc = (mkdir(p, 0777) != 0 && errno != EEXIST) ? -1 : 0;
  free(p);
  return rc;
}

static char *default_templates(const struct spec *s) {
  const char *slash = strrchr(s->dir, '/');
  const char *base = slash ? slash + 1 : s->dir;
  if (strcmp(base, "api-specs") == 0) {
    char *root = slash ? xstrndup(s->dir, (size_t)(slash - s->dir)) : xstrdup(".");
    char *dir = xasprintf("%s/templates", root);
    free(root);
    if (is_dir(dir))
      return dir;
    free(dir);
  }
  char *installed = installed_dir(APIGEN_TEMPLATE_SUBDIR);
  if (installed && is_dir(installed))
    return installed;
  free(installed);
  return xstrdup(APIGEN_TEMPLATE_DIR);
}

static int print_cflags(const struct spec *s, struct diag *d) {
  struct tu_config cfg;
  int rc = tu_config_init(&cfg, s, d);
  if (rc == 0) {
    for (size_t i = 0; i < cfg.args.len; i++) {
      const char *arg = cfg.args.items[i];
      if (strcmp(arg, "-xc") != 0) /* the language is the caller's business */
        printf("%s%s", i ? " " : "", arg);
    }
    printf("\n");
  }
  tu_config_free(&cfg);
  return rc ? APIGEN_EXIT_HEADER : APIGEN_EXIT_OK;
}

/* One key of the spec, as read: for scripts, which then never parse YAML themselves. */
static int print_key(const struct spec *s, const char *key, struct diag *d) {
  const char *value = strcmp(key, "backend") == 0       ? s->backend
                      : strcmp(key, "library") == 0     ? s->library
                      : strcmp(key, "collector") == 0   ? s->collector
                      : strcmp(key, "description") == 0 ? s->description
                      : strcmp(key, "hooks") == 0       ? s->trace.hooks
                      : strcmp(key, "trace") == 0       ? (s->trace.present ? "true" : "false")
                                                        : NULL;
  const struct ptrvec *list = strcmp(key, "headers") == 0   ? &s->headers
                              : strcmp(key, "defines") == 0 ? &s->defines
                                                            : NULL;
  if (list) {
    for (size_t i = 0; i < list->len; i++)
      printf("%s\n", ((const struct spec_string *)list->items[i])->value);
    return APIGEN_EXIT_OK;
  }
  if (!value && strcmp(key, "backend") && strcmp(key, "library") && strcmp(key, "collector") &&
      strcmp(key, "description") && strcmp(key, "hooks")) {
    diag_error(d, "Cannot print key=%s: use backend, library, collector, description, headers, "
                  "defines, hooks or trace",
               key);
    return APIGEN_EXIT_USAGE;
  }
  if (value)
    printf("%s\n", value);
  return APIGEN_EXIT_OK;
}

static int run_spec(const char *arg, const struct options *o) {
  struct diag d;
  diag_init(&d);
  int status = APIGEN_EXIT_OK;
  char *path = find_spec(arg);
  struct spec s;
  struct model m;
  memset(&m, 0, sizeof m);
  char *outdir = NULL;
  if (!path) {
    diag_error_at(&d, arg, 0, 0, "Cannot find spec: no such file, and no %s%s in api-specs/",
                  arg, strstr(arg, ".yaml") ? "" : ".yaml");
    status = APIGEN_EXIT_SPEC;
    goto done;
  }
  if (spec_load(&s, path, &d)) {
    status = APIGEN_EXIT_SPEC;
    goto done;
  }
  if (o->print_cflags) {
    status = print_cflags(&s, &d);
    goto free_spec;
  }
  if (o->print_key) {
    status = print_key(&s, o->print_key, &d);
    goto free_spec;
  }
  outdir = o->output ? xstrdup(o->output) : default_output(&s);
  if (o->check_source) {
    char *model_path = xasprintf("%s/model.yaml", outdir);
    if (model_check_write_source(&s, model_path, o->check_source, &d))
      status = APIGEN_EXIT_MODEL;
    free(model_path);
    goto free_spec;
  }
  if ((status = model_build(&s, &m, &d)) != APIGEN_EXIT_OK)
    goto free_spec;
  char *yaml = model_write_yaml(&m, &d);
  if (!yaml) {
    status = APIGEN_EXIT_MODEL;
    goto free_spec;
  }
  if (o->to_stdout) {
    fputs(yaml, stdout);
  } else {
    char *model_path = xasprintf("%s/model.yaml", outdir);
    /* The generated sources first: a spec whose trace section is wrong writes nothing. */
    if (status == APIGEN_EXIT_OK && s.trace.present) {
      char *templates = o->templates ? xstrdup(o->templates) : default_templates(&s);
      /* Comments name the model where it is committed, wherever this run writes. */
      char *model_name = xasprintf("generated/%s/model.yaml", s.backend);
      status = render_backend(&m, &s, templates, outdir, model_name, &d);
      free(model_name);
      free(templates);
    }
    if (status == APIGEN_EXIT_OK && make_dirs(outdir)) {
      diag_error(&d, "Cannot create output folder: path=%s: %s", outdir, strerror(errno));
      status = APIGEN_EXIT_IO;
    }
    if (status == APIGEN_EXIT_OK && write_file_atomic(model_path, yaml, strlen(yaml))) {
      diag_error(&d, "Cannot write model: path=%s: %s", model_path, strerror(errno));
      status = APIGEN_EXIT_IO;
    }
    if (status == APIGEN_EXIT_OK && !o->quiet)
      fprintf(stderr, "apigen: %s: %zu functions, %zu types, %zu constants -> %s%s\n",
              s.backend, m.functions.len,
              m.typedefs.len + m.enums.len + m.records.len + m.function_pointers.len,
              m.constants.len, model_path, s.trace.present ? " and its tracer sources" : "");
    free(model_path);
  }
  free(yaml);
free_spec:
  model_free(&m);
  spec_free(&s);
done:
  if (status != APIGEN_EXIT_OK)
    diag_print(&d, stderr, "apigen");
  diag_clear(&d);
  free(path);
  free(outdir);
  return status;
}

/* Every *.yaml of the api-specs folder, sorted so runs and messages are stable. */
static void add_all_specs(struct options *o) {
  const char *dir = is_dir("api-specs") ? "api-specs" : APIGEN_SPEC_DIR;
  struct dirent **entries = NULL;
  int n = scandir(dir, &entries, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    const char *name = entries[i]->d_name;
    size_t len = strlen(name);
    if (len > 5 && strcmp(name + len - 5, ".yaml") == 0)
      ptrvec_push(&o->specs, xasprintf("%s/%s", dir, name));
    free(entries[i]);
  }
  free(entries);
}

static void free_specs(struct options *o) {
  for (size_t i = 0; i < o->specs.len; i++)
    free(o->specs.items[i]);
  ptrvec_free(&o->specs);
}

int main(int argc, char **argv) {
  static const struct option longopts[] = {
      {"spec", required_argument, NULL, 's'},   {"all", no_argument, NULL, 'a'},
      {"output", required_argument, NULL, 'o'}, {"stdout", no_argument, NULL, 'S'},
      {"check-source", required_argument, NULL, 'C'},
      {"print-cflags", no_argument, NULL, 'F'}, {"quiet", no_argument, NULL, 'q'},
      {"templates", required_argument, NULL, 't'},
      {"print", required_argument, NULL, 'P'},
      {"init", no_argument, NULL, 'I'},
      {"library", required_argument, NULL, 'L'},
      {"backend", required_argument, NULL, 'B'},
      {"help", no_argument, NULL, 'h'},         {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0}};
  struct options o;
  memset(&o, 0, sizeof o);
  int c;
  while ((c = getopt_long(argc, argv, "s:ao:t:qhV", longopts, NULL)) != -1) {
    switch (c) {
    case 's': ptrvec_push(&o.specs, xstrdup(optarg)); break;
    case 'a': o.all = 1; break;
    case 'o': o.output = optarg; break;
    case 'S': o.to_stdout = 1; break;
    case 'C': o.check_source = optarg; break;
    case 'F': o.print_cflags = 1; break;
    case 't': o.templates = optarg; break;
    case 'P': o.print_key = optarg; break;
    case 'I': o.init = 1; break;
    case 'L': o.library = optarg; break;
    case 'B': o.backend = optarg; break;
    case 'q': o.quiet = 1; break;
    case 'h':
      fputs(usage, stdout);
      free_specs(&o);
      return APIGEN_EXIT_OK;
    case 'V':
      printf("apigen %s\n", APIGEN_VERSION);
      free_specs(&o);
      return APIGEN_EXIT_OK;
    default:
      fputs("Try 'apigen --help' for more information.\n", stderr);
      free_specs(&o);
      return APIGEN_EXIT_USAGE;
    }
  }
  for (; optind < argc; optind++)
    ptrvec_push(&o.specs, xstrdup(argv[optind])); /* `apigen ze.yaml` works too */
  if (o.init) {
    if (o.specs.len == 0) {
      fputs("apigen: error: --init needs at least one HEADER\n", stderr);
      return APIGEN_EXIT_USAGE;
    }
    struct spec_init_options io = {(const char *const *)o.specs.items, o.specs.len, o.library,
                                   o.backend, o.output};
    int status = spec_init_write(&io);
    free_specs(&o);
    return status;
  }
  if (o.all)
    add_all_specs(&o);
  if (o.specs.len == 0) {
    fputs("apigen: error: Missing --spec SPEC (or --all)\nTry 'apigen --help' for more "
          "information.\n",
          stderr);
    return APIGEN_EXIT_USAGE;
  }
  if (o.specs.len > 1 && (o.output || o.check_source)) {
    fputs("apigen: error: --output and --check-source take a single --spec\n", stderr);
    free_specs(&o);
    return APIGEN_EXIT_USAGE;
  }
  int status = APIGEN_EXIT_OK;
  for (size_t i = 0; i < o.specs.len; i++) {
    int rc = run_spec(o.specs.items[i], &o);
    if (rc && !status)
      status = rc;
    free(o.specs.items[i]);
  }
  ptrvec_free(&o.specs);
  return status;
}
