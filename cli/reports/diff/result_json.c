/* result_json: see result_json.h. */
#include "result_json.h"

#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "jansson_library.h"
#include "tally_print.h"
#include "tracer_device.h"

/* What a reading of one file keeps for its messages. */
struct reading {
  const char *path;
  struct result_json *r;
  struct diag *d;
};

static enum result_json_status bad(struct reading *g, const char *where, const char *why) {
  diag_error(g->d, "%s: Cannot read the JSON result: %s%s%s", g->path, where, *where ? ": " : "",
             why);
  return RESULT_JSON_BAD;
}

static bool counts(const json_int_t *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (v[i] < 0)
      return false;
  return true;
}

/* A backend's host rows ("host": the app's own calls), or those of the calls made
 * inside other APIs' calls ("inside_other", inside: no message bytes of their own). */
static enum result_json_status read_host(struct reading *g, struct tally_backend *b,
                                         json_t *host, size_t bi, bool inside) {
  for (size_t i = 0; i < json_array_size(host); i++) {
    char where[64];
    snprintf(where, sizeof where, "backends[%zu].%s[%zu]", bi, inside ? "inside_other" : "host",
             i);
    const char *name;
    json_int_t v[6] = {0};
    json_error_t e;
    if (json_unpack_ex(json_array_get(host, i), &e, 0, "{s:s, s:I, s:I, s:I, s:I, s:I, s?I}",
                       "name", &name, "calls", &v[0], "errors", &v[1], "time_ns", &v[2],
                       "min_ns", &v[3], "max_ns", &v[4], "bytes", &v[5]))
      return bad(g, where, e.text);
    if (!counts(v, 6))
      return bad(g, where, "a negative count or time");
    int f = backends_function_index(b->desc, name, strlen(name));
    if (f < 0) { /* a function this tracer's backend lacks */
      g->r->left_out++;
      continue;
    }
    struct tally_stat s = {(uint64_t)v[0], (uint64_t)v[1], (uint64_t)v[2], (uint64_t)v[3],
                           (uint64_t)v[4]};
    if (inside) {
      tally_stat_merge(&b->inside[f], &s);
      continue;
    }
    tally_stat_merge(&b->host[f], &s);
    b->message_bytes[f] += (uint64_t)v[5];
  }
  return RESULT_JSON_READ;
}

/* The device rows ("device"), then the transfers' bytes ("traffic", which a result that
 * has no "bytes" in its device rows holds alone). */
static enum result_json_status read_device(struct reading *g, struct tally_backend *b,
                                           json_t *device, json_t *traffic, size_t bi) {
  for (size_t i = 0; i < json_array_size(device); i++) {
    char where[64];
    snprintf(where, sizeof where, "backends[%zu].device[%zu]", bi, i);
    const char *name, *kind, *on = NULL;
    json_int_t v[6] = {0};
    json_error_t e;
    if (json_unpack_ex(json_array_get(device, i), &e, 0,
                       "{s:s, s?s, s:s, s:I, s:I, s:I, s:I, s:I, s?I}", "name", &name, "device",
                       &on, "kind", &kind, "calls", &v[0], "errors", &v[1], "time_ns", &v[2],
                       "min_ns", &v[3], "max_ns", &v[4], "bytes", &v[5]))
      return bad(g, where, e.text);
    if (!counts(v, 6))
      return bad(g, where, "a negative count or time");
    int k = strcmp(kind, "kernel") == 0     ? TRACER_COMMAND_KERNEL
            : strcmp(kind, "transfer") == 0 ? TRACER_COMMAND_TRANSFER
            : strcmp(kind, "other") == 0    ? TRACER_COMMAND_OTHER
                                            : -1;
    if (k < 0)
      return bad(g, where, "kind is none of kernel, transfer, other");
    struct tally_device *d = tally_device_row(b, name, k, on);
    if (!d)
      return RESULT_JSON_FAILED;
    struct tally_device src = {.time = {(uint64_t)v[0], (uint64_t)v[1], (uint64_t)v[2],
                                        (uint64_t)v[3], (uint64_t)v[4]},
                               .bytes = (uint64_t)v[5]};
    tally_device_merge(d, &src);
  }
  for (size_t i = 0; i < json_array_size(traffic); i++) {
    char where[64];
    snprintf(where, sizeof where, "backends[%zu].traffic[%zu]", bi, i);
    const char *name, *on = NULL;
    json_int_t v[3];
    json_error_t e;
    if (json_unpack_ex(json_array_get(traffic, i), &e, 0, "{s:s, s?s, s:I, s:I, s:I}", "name",
                       &name, "device", &on, "bytes", &v[0], "min_bytes", &v[1], "max_bytes",
                       &v[2]))
      return bad(g, where, e.text);
    if (!counts(v, 3))
      return bad(g, where, "negative bytes");
    struct tally_device *d = tally_device_row(b, name, TRACER_COMMAND_TRANSFER, on);
    if (!d)
      return RESULT_JSON_FAILED;
    d->bytes = (uint64_t)v[0];
    d->min_bytes = (uint64_t)v[1];
    d->max_bytes = (uint64_t)v[2];
  }
  return RESULT_JSON_READ;
}

static enum result_json_status read_backends(struct reading *g, json_t *backends) {
  for (size_t i = 0; i < json_array_size(backends); i++) {
    char where[32];
    snprintf(where, sizeof where, "backends[%zu]", i);
    const char *name;
    json_t *host, *device, *traffic = NULL, *inside = NULL;
    json_error_t e;
    if (json_unpack_ex(json_array_get(backends, i), &e, 0, "{s:s, s:o, s:o, s?o, s?o}", "name",
                       &name, "host", &host, "device", &device, "traffic", &traffic,
                       "inside_other", &inside))
      return bad(g, where, e.text);
    if (!json_is_array(host) || !json_is_array(device) || (traffic && !json_is_array(traffic)) ||
        (inside && !json_is_array(inside)))
      return bad(g, where, "its host, inside_other, device or traffic is not a list");
    const struct tracer_backend_desc *desc = backends_find(name);
    if (!desc) { /* a backend this tracer was built without */
      g->r->left_out +=
          json_array_size(host) + json_array_size(inside) + json_array_size(device);
      continue;
    }
    size_t bi = 0;
    while (tracer_backends[bi] != desc)
      bi++;
    struct tally_backend *b = &g->r->tally.backends[bi];
    enum result_json_status st = read_host(g, b, host, i, false);
    if (st == RESULT_JSON_READ)
      st = read_host(g, b, inside, i, true);
    if (st == RESULT_JSON_READ)
      st = read_device(g, b, device, traffic, i);
    if (st != RESULT_JSON_READ)
      return st;
  }
  return RESULT_JSON_READ;
}

/* The lengths of a list of steps ("ns" of each entry) into r. */
static enum result_json_status read_step_times(struct reading *g, json_t *list,
                                               const char *where) {
  size_t n = json_array_size(list);
  if (!n)
    return RESULT_JSON_READ;
  g->r->step_ns = calloc(n, sizeof *g->r->step_ns);
  if (!g->r->step_ns)
    return RESULT_JSON_FAILED;
  for (size_t k = 0; k < n; k++) {
    json_int_t ns = 0;
    json_error_t e;
    if (json_unpack_ex(json_array_get(list, k), &e, 0, "{s:I}", "ns", &ns) || ns < 0) {
      char at[96];
      snprintf(at, sizeof at, "%s[%zu]", where, k);
      return bad(g, at, ns < 0 ? "a negative time" : e.text);
    }
    g->r->step_ns[g->r->step_count++] = (uint64_t)ns;
  }
  return RESULT_JSON_READ;
}

/* A trace's steps: the first table with steps (its process's, the first with steps); a
 * job's: per step the slowest rank's time ("slowest_ranks"). What they are: the first
 * table's "what". */
static enum result_json_status read_steps(struct reading *g, json_t *root) {
  json_t *tables = json_object_get(root, "steps");
  if (!tables)
    return RESULT_JSON_READ; /* made without --steps */
  if (!json_is_array(tables))
    return bad(g, "steps", "not a list");
  for (size_t i = 0; i < json_array_size(tables); i++) {
    char where[48];
    snprintf(where, sizeof where, "steps[%zu]", i);
    const char *what;
    json_t *list;
    json_error_t e;
    if (json_unpack_ex(json_array_get(tables, i), &e, 0, "{s:s, s:o}", "what", &what, "steps",
                       &list))
      return bad(g, where, e.text);
    if (!json_is_array(list))
      return bad(g, where, "its steps are not a list");
    if (!json_array_size(list))
      continue;
    snprintf(g->r->steps_what, sizeof g->r->steps_what, "%s", what);
    if (g->r->is_job)
      break;
    snprintf(where + strlen(where), sizeof where - strlen(where), ".steps");
    return read_step_times(g, list, where);
  }
  json_t *slowest = json_object_get(root, "slowest_ranks");
  if (!g->r->is_job || !slowest)
    return RESULT_JSON_READ;
  if (!json_is_array(slowest))
    return bad(g, "slowest_ranks", "not a list");
  return read_step_times(g, slowest, "slowest_ranks");
}

enum result_json_status result_json_read(const char *path, struct result_json *r,
                                         struct diag *d) {
  memset(r, 0, sizeof *r);
  if (jansson_library_load(d))
    return RESULT_JSON_FAILED;
  if (tally_empty(&r->tally))
    return RESULT_JSON_FAILED;
  struct reading g = {path, r, d};
  json_error_t e;
  json_t *root = json_load_file(path, 0, &e);
  if (!root) {
    if (e.line > 0 && e.column > 0)
      diag_error(d, "%s:%d:%d: Cannot read the JSON result: %s", path, e.line, e.column,
                 e.text);
    else if (e.line > 0)
      diag_error(d, "%s:%d: Cannot read the JSON result: %s", path, e.line, e.text);
    else
      diag_error(d, "%s: Cannot read the JSON result: %s", path, e.text);
    return RESULT_JSON_BAD;
  }
  enum result_json_status st = RESULT_JSON_READ;
  json_t *version = json_object_get(root, "tracer_result");
  json_t *backends = json_object_get(root, "backends");
  if (!json_is_object(root) ||
      (!version && (!json_is_string(json_object_get(root, "trace")) || !backends))) {
    st = bad(&g, "", "not a tracer result (tracer -j writes an object whose first member "
                         "is \"tracer_result\": its version)");
  } else if (version && !json_is_integer(version)) {
    st = bad(&g, "tracer_result", "not a version number");
  } else if (version && (json_integer_value(version) < 1 ||
                         json_integer_value(version) > TALLY_JSON_VERSION)) {
    char why[128];
    snprintf(why, sizeof why,
             "a result of version %lld (\"tracer_result\"): this tracer reads versions 1 to %d",
             (long long)json_integer_value(version), TALLY_JSON_VERSION);
    st = bad(&g, "", why);
  } else if (!json_is_array(backends)) {
    st = bad(&g, "backends", "missing, or not a list");
  } else {
    r->is_job = json_object_get(root, "job") != NULL;
    st = read_backends(&g, backends);
    if (st == RESULT_JSON_READ)
      st = read_steps(&g, root);
  }
  if (st == RESULT_JSON_FAILED && !d->count)
    diag_error(d, "%s: Cannot read the JSON result: out of memory", path);
  json_delete(root);
  return st;
}

void result_json_free(struct result_json *r) {
  tally_free(&r->tally);
  free(r->step_ns);
  memset(r, 0, sizeof *r);
}
