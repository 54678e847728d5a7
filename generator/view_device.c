/* view_device: see view_device.h. */
#include "view_device.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "view_callbacks.h"
#include "view_expr.h"

struct view_device {
  const struct model *m;
  const struct spec *s;
  struct diag *d;
  const char *prefix; /* of the hook functions */
  bool has_hooks, host_timed;
  bool interposed_commands; /* commands of wrapped functions, not of callbacks */
  const char *success; /* a call's success status, as C */
  unsigned *kernel_name_matches;
  int status;
};

static const char *tracer_direction(const char *direction) {
  static const char *const names[][2] = {{"h2d", "TRACER_COPY_H2D"},    {"d2h", "TRACER_COPY_D2H"},
                                         {"d2d", "TRACER_COPY_D2D"},    {"h2h", "TRACER_COPY_H2H"},
                                         {"fill", "TRACER_COPY_FILL"},  {"map", "TRACER_COPY_MAP"},
                                         {"unmap", "TRACER_COPY_UNMAP"}};
  for (size_t i = 0; direction && i < sizeof names / sizeof *names; i++)
    if (strcmp(direction, names[i][0]) == 0)
      return names[i][1];
  return "TRACER_COPY_UNKNOWN";
}

static char *upper(const char *prefix, const char *s) {
  char *out = xasprintf("%s%s", prefix, s);
  for (char *c = out; *c; c++)
    *c = (char)toupper((unsigned char)*c);
  return out;
}

/* An expression of the spec as C over tracer_args, or an error naming what and where. */
static char *value_of(struct view_device *v, const struct model_function *f, struct spec_loc at,
                      const char *what, const char *key, const char *expr, bool string) {
  char *out =
      string ? view_string_expr(f, expr, "tracer_args.") : view_value_expr(f, expr, "tracer_args.");
  if (!out)
    v->status = diag_error_at(v->d, v->s->path, at.line, at.column,
                              "Cannot wire %s: function=%s, %s=%s names no param", what, f->name,
                              key, expr);
  return out;
}

static void set_value(struct view_device *v, const struct model_function *f, struct spec_loc at,
                      struct tree *t, const char *key, const char *expr) {
  char *value = expr ? value_of(v, f, at, "command", key, expr, false) : NULL;
  tree_set_string(t, key, value ? value : "0");
  free(value);
}

static void build_command(struct view_device *v, const struct model_function *f,
                          const struct spec_command *c, struct tree *fn) {
  const char *b = v->m->backend;
  struct tree *cmd = tree_set(fn, "command", tree_map());
  char *kind = upper("TRACER_COMMAND_", c->kind);
  tree_set_string(cmd, "kind", kind);
  free(kind);
  set_value(v, f, c->loc, cmd, "queue", c->queue);
  set_value(v, f, c->loc, cmd, "kernel", c->kernel);
  set_value(v, f, c->loc, cmd, "src", c->src);
  set_value(v, f, c->loc, cmd, "dst", c->dst);
  char *bytes = c->bytes ? view_length_expr(f, c->bytes, "tracer_args.") : xstrdup("0");
  tree_set_string(cmd, "bytes", bytes);
  free(bytes);
  if (c->completion && !view_param_named(f, c->completion, strlen(c->completion)))
    v->status = diag_error_at(v->d, v->s->path, c->loc.line, c->loc.column,
                              "Cannot wire command: function=%s, completion=%s names no param",
                              f->name, c->completion);
  char *completion =
      c->completion ? xasprintf("(void **)&tracer_args.%s", c->completion) : xstrdup("NULL");
  tree_set_string(cmd, "completion", completion);
  free(completion);
  char *direction = xstrdup(tracer_direction(c->direction));
  if (c->direction_param) {
    if (!view_param_named(f, c->direction_param, strlen(c->direction_param)))
      v->status = diag_error_at(v->d, v->s->path, c->loc.line, c->loc.column,
                                "Cannot wire command: function=%s, direction_param=%s names no "
                                "param",
                                f->name, c->direction_param);
    else if (!v->s->trace.directions.len)
      v->status = diag_error_at(v->d, v->s->path, c->loc.line, c->loc.column,
                                "Cannot wire command: function=%s, direction_param=%s: "
                                "trace.directions says what no value means",
                                f->name, c->direction_param);
    free(direction);
    direction = xasprintf("tracer_copy_direction_of(%s_directions, %zu, (int64_t)tracer_args.%s)",
                          b, v->s->trace.directions.len, c->direction_param);
  }
  tree_set_string(cmd, "direction", direction);
  free(direction);
  tree_set_bool(cmd, "named_copy", (c->src && c->dst) || c->direction_param);
  /* The hooks time a command on the device; without hooks, or where the spec says so,
   * the runtime records the call's own times. */
  tree_set_bool(cmd, "hooks", !v->host_timed);
  tree_set_bool(cmd, "host", v->host_timed);
  tree_set_string(cmd, "success", v->success);
}

static void build_call(struct view_device *v, const struct model_function *f,
                       const struct spec_call *c, struct tree *fn) {
  /* The hooks' pending commands are read after the calls that synchronize. */
  if (c->meaning && strcmp(c->meaning, "sync") == 0 && v->s->trace.commands.len &&
      !v->host_timed)
    tree_set_bool(fn, "drain", true);
  if (!c->pointer)
    return;
  char *pointer = value_of(v, f, c->loc, "call", "pointer", c->pointer, false);
  if (!pointer)
    return;
  if (c->meaning && strcmp(c->meaning, "free") == 0) {
    tree_set_string(tree_set(fn, "deallocation", tree_map()), "pointer", pointer);
  } else {
    struct tree *a = tree_set(fn, "allocation", tree_map());
    tree_set_string(a, "pointer", pointer);
    char *bytes = c->bytes ? view_length_expr(f, c->bytes, "tracer_args.") : xstrdup("0");
    tree_set_string(a, "bytes", bytes);
    free(bytes);
    char *memory = upper("TRACER_MEMORY_", c->memory);
    tree_set_string(a, "memory", memory);
    free(memory);
    tree_set_string(a, "success", v->success);
  }
  free(pointer);
}

static void build_kernel_name(struct view_device *v, const struct model_function *f,
                              const struct spec_kernel_name *k, struct tree *fn) {
  char *kernel = value_of(v, f, k->loc, "kernel name", "kernel", k->kernel, false);
  char *name = value_of(v, f, k->loc, "kernel name", "name", k->name, true);
  if (kernel && name) {
    struct tree *t = tree_set(fn, "kernel_named", tree_map());
    tree_set_string(t, "kernel", kernel);
    tree_set_string(t, "name", name);
    tree_set_string(t, "success", v->success);
  }
  free(kernel);
  free(name);
}

static void build_command_list(struct view_device *v, const struct model_function *f,
                               const struct spec_command_list *l, struct tree *fn) {
  const char *what = "command list";
  if (l->create) {
    struct tree *t = tree_set(fn, "list_created", tree_map());
    const char *keys[] = {"list", "context", "device"};
    const char *exprs[] = {l->create, l->context, l->device};
    for (size_t i = 0; i < 3; i++) {
      char *value = exprs[i] ? value_of(v, f, l->loc, what, keys[i], exprs[i], false) : NULL;
      tree_set_string(t, keys[i], value ? value : "0");
      free(value);
    }
    tree_set_string(t, "immediate", l->immediate ? "true" : "false");
    tree_set_string(t, "success", v->success);
  } else if (l->execute) {
    if (!view_param_named(f, l->execute, strlen(l->execute)) ||
        !view_param_named(f, l->count, strlen(l->count)))
      v->status = diag_error_at(v->d, v->s->path, l->loc.line, l->loc.column,
                                "Cannot wire command list: function=%s, execute=%s and "
                                "count=%s must name params",
                                f->name, l->execute, l->count);
    struct tree *t = tree_set(fn, "lists_executed", tree_map());
    tree_set_string(t, "lists", l->execute);
    tree_set_string(t, "count", l->count);
    tree_set_string(t, "success", v->success);
  } else {
    const char *expr = l->reset ? l->reset : l->destroy;
    char *list = value_of(v, f, l->loc, what, l->reset ? "reset" : "destroy", expr, false);
    struct tree *t = tree_set(fn, "list_reset", tree_map());
    tree_set_string(t, "list", list ? list : "0");
    tree_set_string(t, "destroy", l->destroy ? "true" : "false");
    free(list);
  }
}

struct view_device *view_device_new(const struct model *m, const struct spec *s, struct diag *d,
                                    const char *prefix) {
  struct view_device *v = xcalloc(1, sizeof *v);
  *v = (struct view_device){m, s, d, prefix, false, false, false, NULL, NULL, 0};
  v->has_hooks = s->trace.hooks != NULL;
  v->host_timed =
      !v->has_hooks || (s->trace.device_times && strcmp(s->trace.device_times, "host") == 0);
  v->success = s->trace.status_success ? s->trace.status_success : "0";
  v->kernel_name_matches = xcalloc(s->trace.kernel_names.len + 1, sizeof(unsigned));
  return v;
}

bool view_device_submits(const struct view_device *v, const struct model_function *f) {
  const struct spec_trace *t = &v->s->trace;
  for (size_t i = 0; i < t->commands.len; i++) {
    const struct spec_command *c = t->commands.items[i];
    if (fnmatch(c->function, f->name, 0) == 0)
      return !view_is_callback(v->m, f);
  }
  return false;
}

void view_device_function(struct view_device *v, const struct model_function *f, struct tree *fn) {
  const struct spec_trace *t = &v->s->trace;
  for (size_t i = 0; i < t->commands.len; i++) {
    struct spec_command *c = t->commands.items[i];
    if (fnmatch(c->function, f->name, 0) == 0) {
      c->matches++;
      if (view_is_callback(v->m, f))
        break; /* the tool records it (view_callbacks.c) */
      v->interposed_commands = true;
      build_command(v, f, c, fn);
      break;
    }
  }
  for (size_t i = 0; i < t->calls.len; i++) {
    const struct spec_call *c = t->calls.items[i];
    if (fnmatch(c->function, f->name, 0) == 0) {
      build_call(v, f, c, fn);
      break;
    }
  }
  for (size_t i = 0; i < t->command_lists.len; i++) {
    struct spec_command_list *l = t->command_lists.items[i];
    if (fnmatch(l->function, f->name, 0) == 0) {
      l->matches++;
      build_command_list(v, f, l, fn);
      break;
    }
  }
  for (size_t i = 0; i < t->kernel_names.len; i++) {
    const struct spec_kernel_name *k = t->kernel_names.items[i];
    if (fnmatch(k->function, f->name, 0) == 0) {
      v->kernel_name_matches[i]++;
      build_kernel_name(v, f, k, fn);
      break;
    }
  }
}

/* The backend's struct tracer_device, and the table of trace.directions. */
static void build_device(struct view_device *v, struct tree *root) {
  const struct spec_trace *t = &v->s->trace;
  const struct spec_copy_kinds *k = &t->copy_kinds;
  const char *b = v->prefix;
  bool kernels = false; /* launches that name their kernel, for the hooks to name */
  for (size_t i = 0; i < t->commands.len; i++) {
    const struct spec_command *c = t->commands.items[i];
    kernels |= strcmp(c->kind, "kernel") == 0 && c->kernel;
  }
  struct tree *dev = tree_set(root, "device", tree_map());
  char *kernel_name = v->has_hooks && kernels ? xasprintf("%s_kernel_name", b) : NULL;
  char *memory_of = k->present ? xasprintf("%s_memory_of", b) : NULL;
  tree_set_string(dev, "kernel_name", kernel_name ? kernel_name : "NULL");
  tree_set_string(dev, "memory_of", memory_of ? memory_of : "NULL");
  tree_set_bool(root, "kernel_name_hook", kernel_name != NULL);
  tree_set_bool(root, "memory_hook", memory_of != NULL);
  free(kernel_name);
  free(memory_of);
  char letters[4] = {k->present ? k->host : 'H', k->present ? k->pageable : 'H',
                     k->present ? k->device : 'D', k->present ? k->shared : 'S'};
  tree_set(dev, "copy_names",
           tree_stringf("'%c', '%c', '%c', '%c', %s", letters[0], letters[1], letters[2],
                        letters[3], k->host_kind ? "true" : "false"));
  tree_set_bool(root, "command_hooks", !v->host_timed && v->interposed_commands);
  struct tree *directions = tree_set(root, "directions", tree_list());
  for (size_t i = 0; i < t->directions.len; i++) {
    const struct spec_direction_value *d = t->directions.items[i];
    if (!model_has_constant(v->m, d->value))
      v->status = diag_error_at(v->d, v->s->path, d->loc.line, d->loc.column,
                                "Cannot read trace.directions: value=%s is no constant of the "
                                "model",
                                d->value);
    struct tree *item = tree_push(directions, tree_map());
    tree_set_string(item, "value", d->value);
    tree_set_string(item, "direction", tracer_direction(d->direction));
  }
}

int view_device_finish(struct view_device *v, struct tree *root) {
  const struct spec_trace *t = &v->s->trace;
  if (t->commands.len)
    build_device(v, root);
  if (t->copy_kinds.present && !v->has_hooks)
    v->status = diag_error_at(v->d, v->s->path, t->copy_kinds.loc.line, t->copy_kinds.loc.column,
                              "Cannot use trace.copy_kinds: the hooks say where memory lives "
                              "(<backend>_memory_of), and the spec has no hooks file");
  for (size_t i = 0; i < t->commands.len; i++) {
    const struct spec_command *c = t->commands.items[i];
    if (!c->matches)
      v->status = diag_error_at(v->d, v->s->path, c->loc.line, c->loc.column,
                                "Filter matches nothing: trace.commands function=%s", c->function);
  }
  for (size_t i = 0; i < t->kernel_names.len; i++) {
    const struct spec_kernel_name *k = t->kernel_names.items[i];
    if (!v->kernel_name_matches[i])
      v->status =
          diag_error_at(v->d, v->s->path, k->loc.line, k->loc.column,
                        "Filter matches nothing: trace.kernel_names function=%s", k->function);
  }
  for (size_t i = 0; i < t->command_lists.len; i++) {
    const struct spec_command_list *l = t->command_lists.items[i];
    if (!l->matches)
      v->status =
          diag_error_at(v->d, v->s->path, l->loc.line, l->loc.column,
                        "Filter matches nothing: trace.command_lists function=%s", l->function);
  }
  int status = v->status;
  free(v->kernel_name_matches);
  free(v);
  return status;
}
