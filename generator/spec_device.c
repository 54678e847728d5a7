/* spec_device: see spec_device.h. */
#include "spec_device.h"

#include <stdlib.h>
#include <string.h>

#include "spec_yaml.h"

static const char *const command_keys[] = {"kind",       "queue",     "kernel",          "bytes",
                                           "completion", "direction", "direction_param", "src",
                                           "dst",        NULL};
static const char *const call_keys[] = {"meaning", "bytes", "pointer", "memory", "waits_for",
                                        "setup", NULL};
static const char *const kernel_name_keys[] = {"kernel", "name", NULL};
static const char *const command_list_keys[] = {
    "create", "context", "device", "immediate", "execute", "count", "reset", "destroy", NULL};
static const char *const copy_kinds_keys[] = {"host",   "pageable",  "device",
                                              "shared", "host_kind", NULL};
static const char *const devices_keys[] = {"current", "name", "hooks", NULL};
static const char *const directions[] = {"h2d", "d2h", "d2d", "h2h", "fill", "map", "unmap", NULL};

static bool one_of(const char *value, const char *const *allowed) {
  for (size_t i = 0; allowed[i]; i++)
    if (strcmp(value, allowed[i]) == 0)
      return true;
  return false;
}

static int check_direction(struct yamldoc *y, yaml_node_t *at, const char *value, struct diag *d) {
  if (!value || one_of(value, directions))
    return 0;
  return yamldoc_error(y, at, d,
                       "Cannot read direction: expected h2d, d2h, d2d, h2h, fill, map or "
                       "unmap, got %s",
                       value);
}

static int read_command(struct yamldoc *y, const char *function, struct spec_loc loc,
                        yaml_node_t *body, struct spec_trace *t, struct diag *d) {
  struct spec_command *c = xcalloc(1, sizeof *c);
  c->function = xstrdup(function);
  c->loc = loc;
  ptrvec_push(&t->commands, c);
  int rc = spec_read_string(y, body, "kind", true, &c->kind, d);
  rc |= spec_read_string(y, body, "queue", false, &c->queue, d);
  rc |= spec_read_string(y, body, "kernel", false, &c->kernel, d);
  rc |= spec_read_string(y, body, "bytes", false, &c->bytes, d);
  rc |= spec_read_string(y, body, "completion", false, &c->completion, d);
  rc |= spec_read_string(y, body, "direction", false, &c->direction, d);
  rc |= spec_read_string(y, body, "direction_param", false, &c->direction_param, d);
  rc |= spec_read_string(y, body, "src", false, &c->src, d);
  rc |= spec_read_string(y, body, "dst", false, &c->dst, d);
  rc |= check_direction(y, yamldoc_get(y, body, "direction"), c->direction, d);
  static const char *const kinds[] = {"kernel", "transfer", "other", NULL};
  if (c->kind && !one_of(c->kind, kinds))
    rc = yamldoc_error(y, yamldoc_get(y, body, "kind"), d,
                       "Cannot read command kind: expected kernel, transfer or other, got %s",
                       c->kind);
  if (!c->src != !c->dst)
    rc = yamldoc_error(y, body, d,
                       "Cannot read trace command: function=%s: src and dst go "
                       "together",
                       c->function);
  if (c->direction && c->direction_param)
    rc = yamldoc_error(y, body, d,
                       "Cannot read trace command: function=%s: direction and "
                       "direction_param exclude each other",
                       c->function);
  return rc;
}

static int read_call(struct yamldoc *y, const char *function, struct spec_loc loc,
                     yaml_node_t *body, struct spec_trace *t, struct diag *d) {
  struct spec_call *c = xcalloc(1, sizeof *c);
  c->function = xstrdup(function);
  c->loc = loc;
  ptrvec_push(&t->calls, c);
  int rc = spec_read_string(y, body, "meaning", false, &c->meaning, d);
  rc |= spec_read_string(y, body, "waits_for", false, &c->waits_for, d);
  yaml_node_t *setup = yamldoc_get(y, body, "setup");
  rc |= setup ? spec_read_bool(y, setup, &c->setup, d) : 0;
  rc |= spec_read_string(y, body, "bytes", false, &c->bytes, d);
  rc |= spec_read_string(y, body, "pointer", false, &c->pointer, d);
  rc |= spec_read_string(y, body, "memory", false, &c->memory, d);
  static const char *const meanings[] = {"alloc", "free", "sync", "group_begin", "group_end",
                                         NULL};
  static const char *const memories[] = {"host", "device", "shared", NULL};
  static const char *const waits[] = {"device", "peer", NULL};
  if (!c->meaning && !c->waits_for && !c->setup)
    return yamldoc_error(y, body, d,
                         "Cannot read trace call: function=%s: expected a meaning, waits_for or "
                         "setup",
                         c->function);
  if (c->waits_for && !one_of(c->waits_for, waits))
    return yamldoc_error(y, yamldoc_get(y, body, "waits_for"), d,
                         "Cannot read waits_for: expected device or peer, got %s", c->waits_for);
  if (c->waits_for && c->setup)
    return yamldoc_error(y, body, d,
                         "Cannot read trace call: function=%s: waits_for and setup exclude each "
                         "other",
                         c->function);
  if (c->meaning && !one_of(c->meaning, meanings))
    return yamldoc_error(y, yamldoc_get(y, body, "meaning"), d,
                         "Cannot read meaning: expected alloc, free, sync, group_begin or "
                         "group_end, got %s",
                         c->meaning);
  if (c->memory && !one_of(c->memory, memories))
    rc = yamldoc_error(y, yamldoc_get(y, body, "memory"), d,
                       "Cannot read memory: expected host, device or shared, got %s", c->memory);
  bool alloc = c->meaning && strcmp(c->meaning, "alloc") == 0;
  bool is_free = c->meaning && strcmp(c->meaning, "free") == 0;
  if (c->pointer && !alloc && !is_free)
    rc = yamldoc_error(y, yamldoc_get(y, body, "pointer"), d,
                       "Cannot read trace call: function=%s: only alloc and free calls have a "
                       "pointer",
                       c->function);
  if (alloc && !c->pointer != !c->memory)
    rc = yamldoc_error(y, body, d,
                       "Cannot read trace call: function=%s: an alloc's pointer "
                       "and memory go together",
                       c->function);
  if (!alloc && c->memory)
    rc = yamldoc_error(y, yamldoc_get(y, body, "memory"), d,
                       "Cannot read trace call: function=%s: only alloc calls have a memory",
                       c->function);
  return rc;
}

static int read_kernel_name(struct yamldoc *y, const char *function, struct spec_loc loc,
                            yaml_node_t *body, struct spec_trace *t, struct diag *d) {
  struct spec_kernel_name *k = xcalloc(1, sizeof *k);
  k->function = xstrdup(function);
  k->loc = loc;
  ptrvec_push(&t->kernel_names, k);
  int rc = spec_read_string(y, body, "kernel", true, &k->kernel, d);
  return rc | spec_read_string(y, body, "name", true, &k->name, d);
}

static int read_command_list(struct yamldoc *y, const char *function, struct spec_loc loc,
                             yaml_node_t *body, struct spec_trace *t, struct diag *d) {
  struct spec_command_list *l = xcalloc(1, sizeof *l);
  l->function = xstrdup(function);
  l->loc = loc;
  ptrvec_push(&t->command_lists, l);
  int rc = spec_read_string(y, body, "create", false, &l->create, d);
  rc |= spec_read_string(y, body, "context", false, &l->context, d);
  rc |= spec_read_string(y, body, "device", false, &l->device, d);
  rc |= spec_read_string(y, body, "execute", false, &l->execute, d);
  rc |= spec_read_string(y, body, "count", false, &l->count, d);
  rc |= spec_read_string(y, body, "reset", false, &l->reset, d);
  rc |= spec_read_string(y, body, "destroy", false, &l->destroy, d);
  yaml_node_t *immediate = yamldoc_get(y, body, "immediate");
  rc |= immediate ? spec_read_bool(y, immediate, &l->immediate, d) : 0;
  int roles = !!l->create + !!l->execute + !!l->reset + !!l->destroy;
  if (roles != 1 || !l->execute != !l->count ||
      ((l->context || l->device || immediate) && !l->create))
    rc = yamldoc_error(y, body, d,
                       "Cannot read trace command list: function=%s: expected one of create "
                       "(with context, device, immediate), execute (with count), reset or "
                       "destroy",
                       l->function);
  return rc;
}

/* One pair of trace.directions: CONSTANT: DIRECTION. */
static int add_direction(struct yamldoc *y, yaml_node_t *key, yaml_node_t *value,
                         const char *constant, const char *direction, struct spec_trace *t,
                         struct diag *d) {
  struct spec_direction_value *v = xcalloc(1, sizeof *v);
  v->value = xstrdup(constant);
  v->direction = xstrdup(direction);
  v->loc = spec_loc_of(key);
  ptrvec_push(&t->directions, v);
  return check_direction(y, value, direction, d);
}

static int read_letter(struct yamldoc *y, yaml_node_t *n, const char *key, char fallback, char *out,
                       struct diag *d) {
  char *value = NULL;
  int rc = spec_read_string(y, n, key, false, &value, d);
  if (value && strlen(value) != 1)
    rc = yamldoc_error(y, yamldoc_get(y, n, key), d,
                       "Cannot read trace.copy_kinds: key=%s: expected one letter, got %s", key,
                       value);
  *out = value && strlen(value) == 1 ? value[0] : fallback;
  free(value);
  return rc;
}

static int read_copy_kinds(struct yamldoc *y, yaml_node_t *n, struct spec_copy_kinds *k,
                           struct diag *d) {
  if (!n)
    return 0;
  if (yamldoc_check_keys(y, n, copy_kinds_keys, "trace.copy_kinds", d))
    return -1;
  k->present = true;
  k->loc = spec_loc_of(n);
  int rc = read_letter(y, n, "host", 'H', &k->host, d);
  rc |= read_letter(y, n, "pageable", 'H', &k->pageable, d);
  rc |= read_letter(y, n, "device", 'D', &k->device, d);
  rc |= read_letter(y, n, "shared", 'S', &k->shared, d);
  yaml_node_t *host_kind = yamldoc_get(y, n, "host_kind");
  return rc | (host_kind ? spec_read_bool(y, host_kind, &k->host_kind, d) : 0);
}

int spec_read_device(struct yamldoc *y, yaml_node_t *n, struct spec_trace *t, struct diag *d) {
  int rc = spec_read_entries(y, yamldoc_get(y, n, "commands"), "commands", "trace command", command_keys,
                        read_command, t, d);
  rc |= spec_read_entries(y, yamldoc_get(y, n, "calls"), "calls", "trace call", call_keys, read_call, t,
                     d);
  rc |= spec_read_entries(y, yamldoc_get(y, n, "kernel_names"), "kernel_names", "trace kernel name",
                     kernel_name_keys, read_kernel_name, t, d);
  rc |= spec_read_entries(y, yamldoc_get(y, n, "command_lists"), "command_lists", "trace command list",
                     command_list_keys, read_command_list, t, d);
  rc |= spec_read_pairs(y, yamldoc_get(y, n, "directions"), "directions", "DIRECTION",
                        add_direction, t, d);
  rc |= spec_read_list(y, yamldoc_get(y, n, "forget_kernel_names"), "forget_kernel_names", true,
                       &t->forget_kernel_names, d);
  yaml_node_t *devices = yamldoc_get(y, n, "devices");
  if (devices) {
    if (yamldoc_check_keys(y, devices, devices_keys, "trace.devices", d))
      return -1;
    t->devices_loc = spec_loc_of(devices);
    yaml_node_t *hooks = yamldoc_get(y, devices, "hooks");
    if (hooks)
      rc |= spec_read_bool(y, hooks, &t->devices_hooks, d);
    if (!t->devices_hooks) {
      rc |= spec_read_string(y, devices, "current", true, &t->devices_current, d);
      rc |= spec_read_string(y, devices, "name", true, &t->devices_name, d);
    }
  }
  return rc | read_copy_kinds(y, yamldoc_get(y, n, "copy_kinds"), &t->copy_kinds, d);
}

void spec_free_device(struct spec_trace *t) {
  for (size_t i = 0; i < t->commands.len; i++) {
    struct spec_command *c = t->commands.items[i];
    free(c->function);
    free(c->kind);
    free(c->queue);
    free(c->kernel);
    free(c->bytes);
    free(c->completion);
    free(c->direction);
    free(c->direction_param);
    free(c->src);
    free(c->dst);
    free(c);
  }
  ptrvec_free(&t->commands);
  for (size_t i = 0; i < t->calls.len; i++) {
    struct spec_call *c = t->calls.items[i];
    free(c->function);
    free(c->meaning);
    free(c->waits_for);
    free(c->bytes);
    free(c->pointer);
    free(c->memory);
    free(c);
  }
  ptrvec_free(&t->calls);
  for (size_t i = 0; i < t->kernel_names.len; i++) {
    struct spec_kernel_name *k = t->kernel_names.items[i];
    free(k->function);
    free(k->kernel);
    free(k->name);
    free(k);
  }
  ptrvec_free(&t->kernel_names);
  for (size_t i = 0; i < t->command_lists.len; i++) {
    struct spec_command_list *l = t->command_lists.items[i];
    free(l->function);
    free(l->create);
    free(l->context);
    free(l->device);
    free(l->execute);
    free(l->count);
    free(l->reset);
    free(l->destroy);
    free(l);
  }
  ptrvec_free(&t->command_lists);
  for (size_t i = 0; i < t->directions.len; i++) {
    struct spec_direction_value *v = t->directions.items[i];
    free(v->value);
    free(v->direction);
    free(v);
  }
  ptrvec_free(&t->directions);
  free(t->devices_current);
  free(t->devices_name);
  for (size_t i = 0; i < t->forget_kernel_names.len; i++) {
    free(((struct spec_pattern *)t->forget_kernel_names.items[i])->glob);
    free(t->forget_kernel_names.items[i]);
  }
  ptrvec_free(&t->forget_kernel_names);
}
