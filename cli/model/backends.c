/* backends: the compiled-in backend descriptions and those of TRACER_BACKEND_PATH. */
#include "backends.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct tracer_backend_desc *const *tracer_backends = tracer_backends_builtin;

/* Backends found on the path, and the folder of each; kept for the process's life. */
static const struct tracer_backend_desc **path_backends;
static char **path_dirs;
static size_t path_count;

static int compare_names(const void *a, const void *b) {
  return strcmp((*(const struct tracer_backend_desc *const *)a)->name,
                (*(const struct tracer_backend_desc *const *)b)->name);
}

/* dir/libtracer_<name>_events.so: its tracer_backend_<name>, or NULL. */
static const struct tracer_backend_desc *load_events_library(const char *dir, const char *file) {
  static const char prefix[] = "libtracer_", suffix[] = "_events.so";
  size_t len = strlen(file);
  if (strncmp(file, prefix, sizeof prefix - 1) != 0 || len <= sizeof prefix + sizeof suffix - 2 ||
      strcmp(file + len - (sizeof suffix - 1), suffix) != 0)
    return NULL;
  char name[256], path[4096], symbol[300];
  size_t name_len = len - (sizeof prefix - 1) - (sizeof suffix - 1);
  if (name_len >= sizeof name)
    return NULL;
  memcpy(name, file + sizeof prefix - 1, name_len);
  name[name_len] = '\0';
  snprintf(path, sizeof path, "%s/%s", dir, file);
  snprintf(symbol, sizeof symbol, "tracer_backend_%s", name);
  /* Data only: nothing runs when it loads, and it stays loaded while the tracer runs. */
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return NULL;
  const struct tracer_backend_desc *desc = dlsym(handle, symbol);
  if (!desc || strcmp(desc->name, name) != 0) {
    dlclose(handle);
    return NULL;
  }
  return desc;
}

static void add_path_backend(const struct tracer_backend_desc *desc, const char *dir) {
  for (size_t i = 0; tracer_backends[i]; i++)
    if (strcmp(tracer_backends[i]->name, desc->name) == 0)
      return;
  for (size_t i = 0; i < path_count; i++)
    if (strcmp(path_backends[i]->name, desc->name) == 0)
      return; /* an earlier folder of the path wins */
  const struct tracer_backend_desc **b = realloc(path_backends, (path_count + 1) * sizeof *b);
  char **d = b ? realloc(path_dirs, (path_count + 1) * sizeof *d) : NULL;
  char *copy = d ? strdup(dir) : NULL;
  if (b)
    path_backends = b;
  if (d)
    path_dirs = d;
  if (!copy)
    return;
  path_backends[path_count] = desc;
  path_dirs[path_count++] = copy;
}

void backends_load_path(void) {
  static int loaded;
  const char *env = getenv("TRACER_BACKEND_PATH");
  if (loaded++ || !env || !*env)
    return;
  char *copy = strdup(env), *save = NULL;
  for (char *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir; dir = strtok_r(NULL, ":", &save)) {
    struct dirent **entries = NULL;
    int n = scandir(dir, &entries, NULL, alphasort);
    for (int i = 0; i < n; i++) {
      const struct tracer_backend_desc *desc = load_events_library(dir, entries[i]->d_name);
      if (desc)
        add_path_backend(desc, dir);
      free(entries[i]);
    }
    free(entries);
  }
  free(copy);
  if (path_count == 0)
    return;
  size_t builtin = 0;
  while (tracer_backends_builtin[builtin])
    builtin++;
  const struct tracer_backend_desc **all = calloc(builtin + path_count + 1, sizeof *all);
  if (!all)
    return;
  memcpy(all, tracer_backends_builtin, builtin * sizeof *all);
  memcpy(all + builtin, path_backends, path_count * sizeof *all);
  qsort(all, builtin + path_count, sizeof *all, compare_names);
  tracer_backends = all;
}

const char *backends_path_dir(const char *name) {
  for (size_t i = 0; i < path_count; i++)
    if (strcmp(path_backends[i]->name, name) == 0)
      return path_dirs[i];
  return NULL;
}

size_t backends_count(void) {
  size_t n = 0;
  while (tracer_backends[n])
    n++;
  return n;
}

const struct tracer_backend_desc *backends_find(const char *name) {
  for (size_t i = 0; tracer_backends[i]; i++)
    if (strcmp(tracer_backends[i]->name, name) == 0)
      return tracer_backends[i];
  return NULL;
}

const struct tracer_backend_desc *backends_find_provider(const char *provider, size_t len) {
  for (size_t i = 0; tracer_backends[i]; i++)
    if (strlen(tracer_backends[i]->provider) == len &&
        strncmp(tracer_backends[i]->provider, provider, len) == 0)
      return tracer_backends[i];
  return NULL;
}

void backends_names(const char *separator, char *out, size_t size) {
  size_t used = 0;
  if (size)
    out[0] = '\0';
  for (size_t i = 0; tracer_backends[i] && used < size; i++) {
    int n = snprintf(out + used, size - used, "%s%s", i ? separator : "", tracer_backends[i]->name);
    used += n > 0 ? (size_t)n : 0;
  }
  if (size && !out[0])
    snprintf(out, size, "none");
}

void backends_title(const struct tracer_backend_desc *b, char *out, size_t size) {
  const char *name = b->symbol_group && b->symbol_group[0] ? b->symbol_group : b->label;
  size_t i = 0;
  for (; name[i] && i + 1 < size; i++)
    out[i] = (char)toupper((unsigned char)name[i]);
  if (size)
    out[i] = '\0';
}

int backends_function_index(const struct tracer_backend_desc *b, const char *name, size_t len) {
  /* Event classes are mapped once per trace, so a linear scan is fine here. */
  for (uint32_t i = 0; i < b->function_count; i++)
    if (strlen(b->functions[i].name) == len && strncmp(b->functions[i].name, name, len) == 0)
      return (int)i;
  return -1;
}

const char *backends_value_name(const struct tracer_names *names, int64_t value) {
  uint32_t lo = 0, hi = names ? names->count : 0;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (names->values[mid].value < value)
      lo = mid + 1;
    else
      hi = mid;
  }
  return names && lo < names->count && names->values[lo].value == value
             ? names->values[lo].name
             : NULL;
}

const struct tracer_field_format *backends_field_format(const struct tracer_function_desc *f,
                                                        const char *name, size_t len) {
  for (uint32_t i = 0; i < f->format_count; i++)
    if (strlen(f->formats[i].field) == len && strncmp(f->formats[i].field, name, len) == 0)
      return &f->formats[i];
  return NULL;
}

const char *backends_meaning_name(enum tracer_meaning m) {
  switch (m) {
  case TRACER_MEANING_NONE: return NULL;
  case TRACER_MEANING_KERNEL_LAUNCH: return "kernel_launch";
  case TRACER_MEANING_TRANSFER: return "transfer";
  case TRACER_MEANING_COMMAND: return "command";
  case TRACER_MEANING_ALLOC: return "alloc";
  case TRACER_MEANING_FREE: return "free";
  case TRACER_MEANING_SYNC: return "sync";
  case TRACER_MEANING_GROUP_BEGIN: return "group_begin";
  case TRACER_MEANING_GROUP_END: return "group_end";
  }
  return NULL;
}
