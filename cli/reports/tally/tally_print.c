/* tally_print: see tally_print.h. */
#include "tally_print.h"

#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "device_label.h"
#include "tracer_device.h"
#include "tracing_cost.h"
#include "units.h"

enum { NAME_MAX_WIDTH = 56 }; /* fits most FUNCTION:VALUE rows (a spec's trace.rows) */

static bool backend_used(const struct tally_backend *b) {
  for (uint32_t i = 0; i < b->function_count; i++)
    if (b->host[i].calls || b->unfinished[i] || (b->inside && b->inside[i].calls))
      return true;
  return b->device_count > 0;
}

/* The backend's calls that other backends' libraries made inside their own traced calls
 * (tally_backend.inside): one paragraph after its tables, the three longest named. */
static void print_inside(const struct tally_backend *b, FILE *out) {
  uint64_t calls = 0, total = 0;
  uint32_t top[3] = {0};
  size_t shown = 0, functions = 0;
  for (uint32_t i = 0; i < b->function_count; i++) {
    const struct tally_stat *s = &b->inside[i];
    if (!s->calls)
      continue;
    calls += s->calls;
    total += s->total;
    functions++;
    size_t at = shown; /* top[] stays sorted by time, longest first */
    while (at > 0 && b->inside[top[at - 1]].total < s->total)
      at--;
    if (at >= 3)
      continue;
    for (size_t k = shown < 3 ? shown : 2; k > at; k--)
      top[k] = top[k - 1];
    top[at] = i;
    shown += shown < 3;
  }
  if (!calls)
    return;
  char title[64], time[32];
  backends_title(b->desc, title, sizeof title);
  units_time(total, time, sizeof time);
  fprintf(out,
          "%s: %llu call%s (%s) made inside other traced calls, by those calls' libraries "
          "and not by the app, are not in the tables or the verdict (-t and the timeline "
          "show each under its call; tracer --runtime-calls counts them as the app's):",
          title, (unsigned long long)calls, calls == 1 ? "" : "s", time);
  for (size_t k = 0; k < shown; k++) {
    units_time(b->inside[top[k]].total, time, sizeof time);
    fprintf(out, "%s %s (%llu, %s)", k ? "," : "", b->desc->functions[top[k]].name,
            (unsigned long long)b->inside[top[k]].calls, time);
  }
  fputs(functions > shown ? ", ...\n\n" : ".\n\n", out);
}

/* Long names (C++ kernel names) are cut so the table fits in a terminal. */
static void print_name(FILE *out, const char *name, int width) {
  size_t len = strlen(name);
  if (len <= (size_t)width)
    fprintf(out, "%-*s", width, name);
  else
    fprintf(out, "%.*s...", width - 3, name);
}

/* The widest of names, uncut (--full-names). */
static int whole_width(const char *const *names, size_t n) {
  size_t w = strlen("Total");
  for (size_t i = 0; i < n; i++)
    if (strlen(names[i]) > w)
      w = strlen(names[i]);
  return (int)w;
}

static int name_width(const char *const *names, size_t n) {
  int w = whole_width(names, n);
  return w > NAME_MAX_WIDTH ? NAME_MAX_WIDTH : w;
}

static void time_row(FILE *out, const char *name, int width, const struct tally_stat *s,
                     uint64_t total) {
  char t[32], avg[32], mn[32], mx[32];
  units_time(s->total, t, sizeof t);
  units_time(s->calls ? s->total / s->calls : 0, avg, sizeof avg);
  units_time(s->min, mn, sizeof mn);
  units_time(s->max, mx, sizeof mx);
  print_name(out, name, width);
  fprintf(out, " | %9s | %6.2f%% | %5llu | %9s | %9s | %9s | %5llu |\n", t,
          total ? 100.0 * (double)s->total / (double)total : 0.0,
          (unsigned long long)s->calls, avg, mn, mx, (unsigned long long)s->errors);
}

static void time_header(FILE *out, int width) {
  print_name(out, "Name", width);
  fprintf(out, " | %9s | %7s | %5s | %9s | %9s | %9s | %5s |\n", "Time", "Time(%)", "Calls",
          "Average", "Min", "Max", "Error");
}

static void total_row(FILE *out, int width, uint64_t total, uint64_t calls, uint64_t errors) {
  char t[32];
  units_time(total, t, sizeof t);
  print_name(out, "Total", width);
  fprintf(out, " | %9s | %6.2f%% | %5llu | %9s | %9s | %9s | %5llu |\n", t, 100.0,
          (unsigned long long)calls, "", "", "", (unsigned long long)errors);
}

/* A backend's host table; actor (NULL for the whole tally) names the actor of a
 * breakdown's section ("Hostname node1 | Process 12 | Thread 14 |"). */
static void print_host(const struct tally_backend *b, const char *actor, FILE *out) {
  uint32_t *order = calloc(b->function_count + 1, sizeof *order);
  const char **names = calloc(b->function_count + 1, sizeof *names);
  if (!order || !names)
    goto done;
  tally_sorted_host(b, order);
  size_t n = 0;
  uint64_t total = 0, calls = 0, errors = 0;
  for (uint32_t i = 0; i < b->function_count; i++) {
    const struct tally_stat *s = &b->host[order[i]];
    if (!s->calls)
      continue;
    names[n++] = b->desc->functions[order[i]].name;
    total += s->total;
    calls += s->calls;
    errors += s->errors;
  }
  if (!n)
    goto done;
  int width = name_width(names, n);
  char title[64];
  backends_title(b->desc, title, sizeof title);
  if (actor)
    fprintf(out, "BACKEND_%s | %s\n\n", title, actor);
  else
    fprintf(out, "BACKEND_%s | %zu Hostnames | %zu Processes | %zu Threads |\n\n", title,
            b->hosts.len, b->processes.len, b->threads.len);
  time_header(out, width);
  for (uint32_t i = 0; i < b->function_count; i++)
    if (b->host[order[i]].calls)
      time_row(out, b->desc->functions[order[i]].name, width, &b->host[order[i]], total);
  total_row(out, width, total, calls, errors);
  fputc('\n', out);
done:
  for (uint32_t i = 0; b->unfinished && i < b->function_count; i++)
    if (b->unfinished[i])
      fprintf(out, "Not returned when the app ended: %s (%llu call%s)\n",
              b->desc->functions[i].name, (unsigned long long)b->unfinished[i],
              b->unfinished[i] == 1 ? "" : "s");
  free(order);
  free(names);
}

/* The names of rows order[0..n) as the device table shows them: kernels' shortened
 * (device_kernel_short_name), numbered when two come out the same ("#2"), the others as
 * they are. NULL out of memory (the names are then shown whole). */
static char **short_kernel_names(const struct tally_backend *b, const size_t *order, size_t n) {
  char **shown = calloc(n + 1, sizeof *shown);
  for (size_t i = 0; shown && i < n; i++) {
    const struct tally_device *d = &b->device[order[i]];
    char name[512];
    if (d->kind == TRACER_COMMAND_KERNEL)
      device_kernel_short_name(d->name, name, sizeof name);
    else
      snprintf(name, sizeof name, "%s", d->name);
    unsigned same = 1;
    for (size_t k = 0; k < i; k++)
      same += strncmp(shown[k], name, strlen(name)) == 0 &&
              (!shown[k][strlen(name)] || strncmp(shown[k] + strlen(name), " #", 2) == 0);
    if (same > 1)
      snprintf(name + strlen(name), sizeof name - strlen(name), " #%u", same);
    if (!(shown[i] = strdup(name))) {
      for (size_t k = 0; k < i; k++)
        free(shown[k]);
      free(shown);
      return NULL;
    }
  }
  return shown;
}

/* Whether a name shown differs from its row's. */
static bool shown_differ(const struct tally_backend *b, const size_t *order, char *const *shown,
                         size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(shown[i], b->device[order[i]].name) != 0)
      return true;
  return false;
}

/* The rows of kind (-1: every kind) sorted for printing, those of one device only unless
 * every_device. */
static void device_rows(const struct tally_backend *b, int kind, const char *device,
                        bool every_device, size_t *order, size_t *n) {
  tally_sorted_device(b, kind, order, n);
  size_t kept = 0;
  for (size_t i = 0; i < *n; i++)
    if (every_device || tally_same_device(b->device[order[i]].device, device))
      order[kept++] = order[i];
  *n = kept;
}

/* The device tables of one device (device: its label, NULL when the trace names none),
 * or of every device at once when the backend had only that one. */
static void print_device_on(const struct tally_backend *b, const char *actor, const char *device,
                            bool every_device, bool full_names, FILE *out) {
  size_t *order = calloc(b->device_count, sizeof *order);
  const char **names = calloc(b->device_count, sizeof *names);
  char **shown = NULL;
  size_t shown_count = 0; /* n counts the transfers' rows further down */
  if (!order || !names)
    goto done;
  size_t n;
  device_rows(b, -1, device, every_device, order, &n);
  uint64_t total = 0, calls = 0;
  for (size_t i = 0; i < n; i++) {
    names[i] = b->device[order[i]].name;
    total += b->device[order[i]].time.total;
    calls += b->device[order[i]].time.calls;
  }
  bool shortened = !full_names && (shown = short_kernel_names(b, order, n)) != NULL;
  shown_count = shown ? n : 0;
  for (size_t i = 0; shown && i < n; i++)
    names[i] = shown[i];
  int width = full_names ? whole_width(names, n) : name_width(names, n);
  char on[DEVICE_LABEL_SIZE + 4] = "";
  if (device)
    snprintf(on, sizeof on, " | %s", device);
  if (actor)
    fprintf(out, "Device profiling (%s)%s | %s\n", b->desc->label, on, actor);
  else
    fprintf(out, "Device profiling (%s)%s | %zu Hostnames | %zu Processes | %zu Threads |\n",
            b->desc->label, on, b->hosts.len, b->device_processes.len, b->device_threads.len);
  if (b->desc->device_times_host)
    fputs("Host-side times: the backend has no device timestamps; each row times its call.\n",
          out);
  fputc('\n', out);
  time_header(out, width);
  for (size_t i = 0; i < n; i++)
    time_row(out, names[i], width, &b->device[order[i]].time, total);
  total_row(out, width, total, calls, 0);
  if (shortened && shown_differ(b, order, shown, n))
    fputs("Kernel names without their return type, template arguments and parameters "
          "(--full-names, or -j, has them whole).\n",
          out);
  fputc('\n', out);

  /* Memory traffic: the transfers only (the whole tally's: an actor's rows keep no least
   * and most bytes). */
  device_rows(b, 1, device, every_device, order, &n);
  if (!n || actor)
    goto done;
  uint64_t bytes = 0, time = 0;
  calls = 0;
  for (size_t i = 0; i < n; i++) {
    names[i] = b->device[order[i]].name;
    bytes += b->device[order[i]].bytes;
    time += b->device[order[i]].time.total;
    calls += b->device[order[i]].time.calls;
  }
  width = name_width(names, n);
  fprintf(out, "Memory traffic (%s)%s\n\n", b->desc->label, on);
  print_name(out, "Name", width);
  fprintf(out, " | %9s | %8s | %5s | %9s | %9s | %9s | %10s |\n", "Bytes", "Bytes(%)", "Calls",
          "Average", "Min", "Max", "Bandwidth");
  for (size_t i = 0; i < n; i++) {
    const struct tally_device *d = &b->device[order[i]];
    char by[32], avg[32], mn[32], mx[32], bw[32];
    units_bytes(d->bytes, by, sizeof by);
    units_bytes(d->time.calls ? d->bytes / d->time.calls : 0, avg, sizeof avg);
    units_bytes(d->min_bytes, mn, sizeof mn);
    units_bytes(d->max_bytes, mx, sizeof mx);
    units_bandwidth(d->time.total ? (double)d->bytes * 1e9 / (double)d->time.total : 0, bw,
                    sizeof bw);
    print_name(out, d->name, width);
    fprintf(out, " | %9s | %7.2f%% | %5llu | %9s | %9s | %9s | %10s |\n", by,
            bytes ? 100.0 * (double)d->bytes / (double)bytes : 0.0,
            (unsigned long long)d->time.calls, avg, mn, mx, bw);
  }
  char by[32], bw[32];
  units_bytes(bytes, by, sizeof by);
  units_bandwidth(time ? (double)bytes * 1e9 / (double)time : 0, bw, sizeof bw);
  print_name(out, "Total", width);
  fprintf(out, " | %9s | %7.2f%% | %5llu | %9s | %9s | %9s | %10s |\n", by, 100.0,
          (unsigned long long)calls, "", "", "", bw);
  fputc('\n', out);
done:
  for (size_t i = 0; i < shown_count; i++)
    free(shown[i]);
  free(shown);
  free(order);
  free(names);
}

/* A backend's device tables: one pair per device it ran commands on. */
static void print_device(const struct tally_backend *b, const char *actor, bool full_names,
                         FILE *out) {
  if (!b->device_count)
    return;
  const char **devices = calloc(b->device_count, sizeof *devices);
  size_t count = 0;
  for (size_t i = 0; devices && i < b->device_count; i++) {
    size_t k = 0;
    while (k < count && !tally_same_device(devices[k], b->device[i].device))
      k++;
    if (k == count)
      devices[count++] = b->device[i].device;
  }
  if (!devices || count <= 1) {
    print_device_on(b, actor, devices && count ? devices[0] : NULL, true, full_names, out);
  } else {
    /* In the order of their labels: GPU 0 before GPU 1. */
    for (size_t i = 1; i < count; i++)
      for (size_t k = i;
           k > 0 && devices[k - 1] && devices[k] && strcmp(devices[k - 1], devices[k]) > 0; k--) {
        const char *swap = devices[k];
        devices[k] = devices[k - 1], devices[k - 1] = swap;
      }
    for (size_t i = 0; i < count; i++)
      print_device_on(b, actor, devices[i], false, full_names, out);
  }
  free(devices);
}

static const char *message_kind_name(uint8_t kind) {
  switch (kind) {
  case TRACER_MESSAGE_SEND: return "send";
  case TRACER_MESSAGE_RECV: return "recv";
  case TRACER_MESSAGE_COLLECTIVE: return "collective";
  case TRACER_MESSAGE_PUT: return "put";
  case TRACER_MESSAGE_GET: return "get";
  case TRACER_MESSAGE_COMPLETE: return "complete";
  }
  return NULL;
}

/* Does a call of f start the messages it counts? Sends, puts, gets and collectives do;
 * a receive is a message a send already counted, and a completion (MPI_Wait) finishes an
 * operation whose call counted its bytes when it started. */
static bool message_counts_once(const struct tracer_function_desc *f) {
  switch (f->message.kind) {
  case TRACER_MESSAGE_SEND:
  case TRACER_MESSAGE_PUT:
  case TRACER_MESSAGE_GET:
  case TRACER_MESSAGE_COLLECTIVE:
    return true;
  }
  return false;
}

/* Do a call's bytes over its own time make a bandwidth? Only for a blocking call that
 * moves them while it runs: not for the call that posts a non-blocking operation (it has
 * a request), nor for one-sided puts and gets (moved by the next synchronization), nor for
 * the call that completes an operation. */
static bool message_has_bandwidth(const struct tracer_function_desc *f) {
  /* An operation of the collectives table (its spec gives a bus factor) only queues its
   * transfer: the table has its bandwidth, over its kernels' time on the device. */
  if (f->message.bus_factor.c || f->message.bus_factor.d)
    return false;
  switch (f->message.kind) {
  case TRACER_MESSAGE_SEND:
  case TRACER_MESSAGE_RECV:
  case TRACER_MESSAGE_COLLECTIVE:
    return f->message.request < 0;
  }
  return false;
}

/* Message traffic: the bytes of each call that moves messages (trace.messages). The
 * total counts each message once; a bandwidth is shown only where it means bytes over the
 * time the transfer took (docs/analysis-output.md). */
static void print_messages(const struct tally_backend *b, FILE *out) {
  uint32_t *order = calloc(b->function_count + 1, sizeof *order);
  const char **names = calloc(b->function_count + 1, sizeof *names);
  size_t n = 0;
  uint64_t bytes = 0, calls = 0;
  bool seen_twice = false;
  if (!order || !names)
    goto done;
  tally_sorted_host(b, order);
  for (uint32_t i = 0; i < b->function_count; i++)
    if (b->message_bytes[order[i]]) {
      const struct tracer_function_desc *f = &b->desc->functions[order[i]];
      names[n++] = f->name;
      if (message_counts_once(f)) {
        bytes += b->message_bytes[order[i]];
        calls += b->host[order[i]].calls;
      } else {
        seen_twice = true;
      }
    }
  if (!n)
    goto done;
  int width = name_width(names, n);
  char title[64];
  backends_title(b->desc, title, sizeof title);
  fprintf(out, "Message traffic (%s)\n\n", title);
  print_name(out, "Name", width);
  fprintf(out, " | %10s | %9s | %8s | %5s | %9s | %10s |\n", "Kind", "Bytes", "Bytes(%)", "Calls",
          "Average", "Bandwidth");
  for (uint32_t i = 0; i < b->function_count; i++) {
    uint64_t by_fn = b->message_bytes[order[i]];
    if (!by_fn)
      continue;
    const struct tracer_function_desc *f = &b->desc->functions[order[i]];
    const struct tally_stat *s = &b->host[order[i]];
    char by[32], avg[32], bw[32] = "-", share[32] = "-";
    units_bytes(by_fn, by, sizeof by);
    units_bytes(s->calls ? by_fn / s->calls : 0, avg, sizeof avg);
    if (message_has_bandwidth(f) && s->total)
      units_bandwidth((double)by_fn * 1e9 / (double)s->total, bw, sizeof bw);
    if (message_counts_once(f) && bytes)
      snprintf(share, sizeof share, "%.2f%%", 100.0 * (double)by_fn / (double)bytes);
    print_name(out, f->name, width);
    fprintf(out, " | %10s | %9s | %8s | %5llu | %9s | %10s |\n", message_kind_name(f->message.kind),
            by, share, (unsigned long long)s->calls, avg, bw);
  }
  char by[32];
  units_bytes(bytes, by, sizeof by);
  print_name(out, "Total", width);
  fprintf(out, " | %10s | %9s | %8s | %5llu | %9s | %10s |\n", "", by, bytes ? "100.00%" : "-",
          (unsigned long long)calls, "", "-");
  fprintf(out, "Total: each message once, as sent, put, got or given to a collective%s.\n"
               "Bandwidth: bytes over the time of a blocking call; - where the call does not "
               "move them itself.\n\n",
          seen_twice ? "; receives and completions (-) count bytes already in it" : "");
done:
  free(order);
  free(names);
}

/* A counted call (trace.counted) costs about its clock reads, in ps: no event is written.
 * Before 2026-11 every call was timed on the trace clock. */
static uint64_t counted_call_ps(const struct tally *t) {
  return t->counted_call_ps ? t->counted_call_ps : 2000 * t->clock_read_ns;
}
static uint64_t counted_cost_ns(const struct tally *t) {
  return (t->counted_calls * counted_call_ps(t) + 500) / 1000;
}

/* The cost of recording this run: from its own calibration, else the cached one the
 * tracer put in the run record. False when neither is known. */
static bool run_cost(const struct tally *t, const struct run_record *run, uint64_t *ns,
                     struct tracing_cost *cost) {
  if (t->has_calibration)
    *cost = (struct tracing_cost){t->calibration_event_ps, t->calibration_byte_ps,
                                  t->calibration_call_ps};
  else if (run && run->event_ps)
    *cost = (struct tracing_cost){run->event_ps, run->byte_ps, run->call_ps};
  else
    return false;
  struct tracing_load load = {t->events, t->trace_bytes, t->batch_events, t->batched_calls};
  *ns = tracing_cost_ns(cost, &load) + counted_cost_ns(t);
  return true;
}

static void print_cost(const struct tally *t, const struct run_record *run, FILE *out) {
  uint64_t ns;
  struct tracing_cost cost;
  if (!run_cost(t, run, &ns, &cost)) {
    fputs("Cost of tracing: unknown (this machine has no calibration yet).\n", out);
    return;
  }
  char total[32], per_event[32], wall[32];
  units_time(ns, total, sizeof total);
  uint64_t events = t->events - t->batch_events;
  struct tracing_load own = {t->events, t->trace_bytes, t->batch_events, t->batched_calls};
  struct tracing_cost events_only = cost;
  events_only.call_ps = 0;
  units_time(events ? tracing_cost_ns(&events_only, &own) / events : 0, per_event,
             sizeof per_event);
  fprintf(out, "Cost of tracing: %llu events x %s", (unsigned long long)events, per_event);
  if (t->batched_calls) {
    /* Minimal mode: its calls, written 32 to an event. */
    char per_call[32];
    units_time((cost.call_ps + 500) / 1000, per_call, sizeof per_call);
    fprintf(out, " + %llu batched calls x %s", (unsigned long long)t->batched_calls, per_call);
  }
  if (t->counted_calls) {
    char per_call[32];
    snprintf(per_call, sizeof per_call, "%.1fns", (double)counted_call_ps(t) / 1000);
    fprintf(out, " + %llu counted calls x %s", (unsigned long long)t->counted_calls, per_call);
  }
  fprintf(out, " = %s", total);
  if (run && run->wall_ns) {
    units_time(run->wall_ns, wall, sizeof wall);
    fprintf(out, ", %.1f%% of the app's %s", 100.0 * (double)ns / (double)run->wall_ns, wall);
  }
  fputs(" (measured on this machine; not in the times above).\n", out);
}

/* The breakdown per actor (-e): actors in the order of their hostname, rank, process and
 * thread; each one's rows of a backend, as a backend of its own. */
static int compare_actor(const void *x, const void *y, void *context) {
  const struct tally *t = context;
  const struct actor *a = &t->actors.list[*(const size_t *)x];
  const struct actor *b = &t->actors.list[*(const size_t *)y];
  int c = strcmp(t->hostnames[a->host], t->hostnames[b->host]);
  if (c)
    return c;
  if (a->rank != b->rank)
    return a->rank < b->rank ? -1 : 1;
  if (a->pid != b->pid)
    return a->pid < b->pid ? -1 : 1;
  return (a->tid > b->tid) - (a->tid < b->tid);
}

/* The position of each actor in print order (owned by the caller), or NULL. */
static size_t *actor_positions(const struct tally *t) {
  size_t n = t->actors.count;
  size_t *order = calloc(n + 1, sizeof *order), *position = calloc(n + 1, sizeof *position);
  if (!order || !position) {
    free(order);
    free(position);
    return NULL;
  }
  for (size_t i = 0; i < n; i++)
    order[i] = i;
  qsort_r(order, n, sizeof *order, compare_actor, (void *)t);
  for (size_t i = 0; i < n; i++)
    position[order[i]] = i;
  free(order);
  return position;
}

struct actor_group {
  size_t position; /* the actor's in print order */
  size_t row;
};

static int compare_group(const void *x, const void *y) {
  const struct actor_group *a = x, *b = y;
  if (a->position != b->position)
    return a->position < b->position ? -1 : 1;
  return (a->row > b->row) - (a->row < b->row);
}

/* The rows of backend, grouped by actor in print order; *n of them (owned by the caller). */
static struct actor_group *backend_rows(const struct tally *t, size_t backend, size_t *n) {
  *n = 0;
  size_t *position = actor_positions(t);
  struct actor_group *g = calloc(t->actors.row_count + 1, sizeof *g);
  if (!position || !g) {
    free(position);
    free(g);
    return NULL;
  }
  for (size_t i = 0; i < t->actors.row_count; i++)
    if (t->actors.rows[i].backend == backend)
      g[(*n)++] = (struct actor_group){position[t->actors.rows[i].actor], i};
  qsort(g, *n, sizeof *g, compare_group);
  free(position);
  return g;
}

static void actor_label(const struct tally *t, const struct actor *a, char *out, size_t size) {
  char rank[32] = "";
  if (a->rank >= 0)
    snprintf(rank, sizeof rank, "Rank %ld | ", a->rank);
  snprintf(out, size, "%sHostname %s | Process %lld | Thread %lld |", rank,
           t->hostnames[a->host], (long long)a->pid, (long long)a->tid);
}

/* One actor's rows g[0..n) of backend as a backend of its own (names borrowed). */
static bool actor_backend(const struct tally *t, size_t backend, const struct actor_group *g,
                          size_t n, struct tally_backend *out) {
  memset(out, 0, sizeof *out);
  out->desc = t->backends[backend].desc;
  out->function_count = t->backends[backend].function_count;
  out->host = calloc(out->function_count + 1, sizeof *out->host);
  out->device = calloc(n + 1, sizeof *out->device);
  if (!out->host || !out->device)
    return false;
  for (size_t k = 0; k < n; k++) {
    const struct actor_row *r = &t->actors.rows[g[k].row];
    if (r->function >= 0 && (uint32_t)r->function < out->function_count) {
      tally_stat_merge(&out->host[r->function], &r->time);
    } else if (r->function < 0) {
      struct tally_device *d = &out->device[out->device_count++];
      d->name = r->name;
      d->kind = r->kind;
      d->time = r->time;
      d->bytes = r->bytes;
    }
  }
  return true;
}

static void print_actors_text(const struct tally *t, size_t backend, bool full_names,
                              FILE *out) {
  size_t n;
  struct actor_group *g = backend_rows(t, backend, &n);
  for (size_t start = 0; g && start < n;) {
    size_t end = start;
    while (end < n && g[end].position == g[start].position)
      end++;
    struct tally_backend one;
    if (actor_backend(t, backend, g + start, end - start, &one)) {
      char label[512];
      actor_label(t, &t->actors.list[t->actors.rows[g[start].row].actor], label, sizeof label);
      print_host(&one, label, out);
      print_device(&one, label, full_names, out);
    }
    free(one.host);
    free(one.device);
    start = end;
  }
  free(g);
}

static void json_stat(FILE *out, const struct tally_stat *s);

static void print_actors_json(const struct tally *t, size_t backend, FILE *out) {
  fputs(",\n     \"actors\": [", out);
  size_t n;
  struct actor_group *g = backend_rows(t, backend, &n);
  bool first_actor = true;
  for (size_t start = 0; g && start < n;) {
    size_t end = start;
    while (end < n && g[end].position == g[start].position)
      end++;
    struct tally_backend one;
    uint32_t *order = NULL;
    size_t *dorder = NULL;
    if (actor_backend(t, backend, g + start, end - start, &one) &&
        (order = calloc(one.function_count + 1, sizeof *order)) &&
        (dorder = calloc(one.device_count + 1, sizeof *dorder))) {
      const struct actor *a = &t->actors.list[t->actors.rows[g[start].row].actor];
      fprintf(out, "%s\n       {\"hostname\": ", first_actor ? "" : ",");
      first_actor = false;
      units_json_string(out, t->hostnames[a->host]);
      if (a->rank >= 0)
        fprintf(out, ", \"rank\": %ld", a->rank);
      fprintf(out, ", \"pid\": %lld, \"tid\": %lld,\n        \"host\": [", (long long)a->pid,
              (long long)a->tid);
      tally_sorted_host(&one, order);
      bool first = true;
      for (uint32_t k = 0; k < one.function_count; k++) {
        const struct tally_stat *s = &one.host[order[k]];
        if (!s->calls)
          continue;
        fprintf(out, "%s\n          {\"name\": ", first ? "" : ",");
        first = false;
        units_json_string(out, one.desc->functions[order[k]].name);
        fputs(", ", out);
        json_stat(out, s);
        fputc('}', out);
      }
      fputs("],\n        \"device\": [", out);
      size_t dn;
      tally_sorted_device(&one, -1, dorder, &dn);
      for (size_t k = 0; k < dn; k++) {
        const struct tally_device *d = &one.device[dorder[k]];
        fprintf(out, "%s\n          {\"name\": ", k ? "," : "");
        units_json_string(out, d->name);
        if (d->device) {
          fputs(", \"device\": ", out);
          units_json_string(out, d->device);
        }
        fprintf(out, ", \"kind\": \"%s\", ",
                d->kind == 0 ? "kernel" : d->kind == 1 ? "transfer" : "other");
        json_stat(out, &d->time);
        fprintf(out, ", \"bytes\": %llu}", (unsigned long long)d->bytes);
      }
      fputs("]}", out);
    }
    free(order);
    free(dorder);
    free(one.host);
    free(one.device);
    start = end;
  }
  free(g);
  fputs("]", out);
}

/* A launcher and its ranks in one trace (`tracer torchrun ...`), or one rank's own: which
 * processes are ranks, the others (the launcher) counted apart in -e. */
static void print_job_line(const struct tally *t, FILE *out) {
  size_t ranks = 0; /* distinct ranks: a rank may be several processes */
  for (size_t i = 0; i < t->rank_count; i++) {
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++)
      seen = t->ranks[j].rank == t->ranks[i].rank;
    ranks += !seen;
  }
  if (!ranks)
    return;
  fprintf(out, "The trace holds %zu rank%s of a job (%s, world size %ld); processes without "
               "a rank (the launcher) are not ranks; -e shows each rank.\n\n",
          ranks, ranks == 1 ? "" : "s", t->ranks[0].launcher, t->ranks[0].size);
}

/* The missing packets' time range, as time into the trace ("0.12s to 0.31s"). */
static void missing_span(const struct trace_losses *l, char *out, size_t size) {
  uint64_t first = UINT64_MAX, last = 0;
  for (size_t i = 0; i < l->count; i++) {
    const struct trace_lost_packets *p = &l->list[i];
    if (!p->has_times)
      continue;
    uint64_t begin = p->begin_ns > l->start_ns ? p->begin_ns - l->start_ns : 0;
    uint64_t end = p->end_ns > l->start_ns ? p->end_ns - l->start_ns : 0;
    first = begin < first ? begin : first;
    last = end > last ? end : last;
  }
  out[0] = '\0';
  if (first == UINT64_MAX || !l->start_ns)
    return;
  char from[32], to[32];
  units_time(first, from, sizeof from);
  units_time(last, to, sizeof to);
  snprintf(out, size, ", from %s to %s into the trace", from, to);
}

/* PARTIAL: packets the trace should hold and does not (struct trace_losses). */
static void print_missing(const struct tally *t, FILE *out) {
  const struct trace_losses *l = t->missing;
  if (!l || !l->count)
    return;
  uint64_t packets = l->not_in_file + l->not_written;
  char bytes[32], span[96];
  units_bytes(l->bytes, bytes, sizeof bytes);
  missing_span(l, span, sizeof span);
  char about[64] = "";
  if (l->events_about)
    snprintf(about, sizeof about, ", about %llu events%s", (unsigned long long)l->events_about,
             l->unestimated ? " and more" : "");
  fprintf(out, "PARTIAL: the trace misses %llu packet%s (%s%s%s): ", (unsigned long long)packets,
          packets == 1 ? "" : "s", bytes, about, span);
  if (l->not_in_file)
    fprintf(out, "%llu listed in the trace's index %s not in its stream files%s",
            (unsigned long long)l->not_in_file, l->not_in_file == 1 ? "is" : "are",
            l->not_written ? ", " : "");
  if (l->not_written)
    fprintf(out, "%llu never written (gaps in the packets' sequence numbers)",
            (unsigned long long)l->not_written);
  fputs(".\nThe tables miss the calls they held; the tracer's messages (and -j's "
        "\"missing_packets\") say which.\n\n", out);
}

void tally_print_prologue(const struct tally *t, const struct run_record *run, FILE *out) {
  if (run && run->present && !run->clean)
    fprintf(out, "The app%s %s%s: the tables count what it recorded until then.\n\n",
            run->exit_code < 0 ? "'s" : "", strncmp(run->status, "killed", 6) == 0 ? "was " : "",
            run->status);
  if (run && run->present && run->processes_left > 0)
    fprintf(out,
            "%ld process%s of the app %s still running when the tracer stopped recording: "
            "%s calls after that are not in the tables.\n\n",
            run->processes_left, run->processes_left == 1 ? "" : "es",
            run->processes_left == 1 ? "was" : "were", run->processes_left == 1 ? "its" : "their");
  if (run && run->present && run->partial_reason != RUN_PARTIAL_NONE) {
    char when[32];
    units_time(run->partial_at_ns, when, sizeof when);
    fprintf(out,
            "PARTIAL: %s %s into the run; the trace keeps %.1f MiB, what was recorded until "
            "then.\n%s\n\n",
            run->partial_reason == RUN_PARTIAL_MAX_SIZE ? "the trace reached --max-size"
                                                        : "the file system of the trace filled up",
            when, (double)run->kept_bytes / (double)(1u << 20),
            run->partial_counting
                ? "After that the calls were counted with their times, not recorded: the tables "
                  "count every call,\n-t and the timeline end there."
                : "After that no call was recorded: the tables count the calls until then.");
  }
  print_missing(t, out);
  if (t->discarded) {
    fprintf(out,
            "WARNING: %llu events were discarded by the tracer (buffers full): the tables "
            "below miss them.\n"
            "LTTng waits for each buffer to reach the disk: storage that stalls fills them.\n"
            "Larger buffers (--buffer-size, --buffer-count), faster storage for the trace\n"
            "(--trace-output on a node-local disk or /dev/shm) or --blocking lose fewer.\n",
            (unsigned long long)t->discarded);
    uint64_t attributed = 0;
    for (size_t i = 0; i < t->loss_count; i++) {
      fprintf(out, "  %llu in %s\n", (unsigned long long)t->losses[i].discarded,
              t->losses[i].stream);
      attributed += t->losses[i].discarded;
    }
    if (t->discarded > attributed)
      fprintf(out, "  %llu not attributed to a stream (counted by the session)\n",
              (unsigned long long)(t->discarded - attributed));
    fputc('\n', out);
  }
  for (size_t i = 0; i < t->notice_count; i++)
    fprintf(out, "Note: %s.\n%s", t->notices[i], i + 1 == t->notice_count ? "\n" : "");
  print_job_line(t, out);
  if (t->pauses) {
    char paused[32];
    units_time(t->paused_ns, paused, sizeof paused);
    fprintf(out, "The recording was paused %llu time%s, %s in all: calls made while paused "
                 "are not counted.\n\n",
            (unsigned long long)t->pauses, t->pauses == 1 ? "" : "s", paused);
  }
}

void tally_print_tables(const struct tally *t, const struct run_record *run,
                        const struct tally_print_options *how,
                        const struct tally_additions *more, FILE *out) {
  bool any = false;
  for (size_t i = 0; i < t->backend_count; i++) {
    const struct tally_backend *b = &t->backends[i];
    if (!backend_used(b))
      continue;
    any = true;
    print_host(b, NULL, out);
    print_inside(b, out);
    print_messages(b, out);
    print_device(b, NULL, how->full_names, out);
    regions_print_text(&t->regions, b->desc->name, b->desc->label, out);
    for (size_t k = 0; more && k < more->count; k++)
      if (more->list[k].text)
        more->list[k].text(more->list[k].product, i, out);
    if (how->extended)
      print_actors_text(t, i, how->full_names, out);
  }
  if (!any)
    fputs("No traced API call was recorded.\n", out);
  print_cost(t, run, out);
}

void tally_print_text(const struct tally *t, const struct run_record *run,
                      const struct tally_print_options *how, const struct tally_additions *more,
                      FILE *out) {
  tally_print_prologue(t, run, out);
  tally_print_tables(t, run, how, more, out);
}

static void json_stat(FILE *out, const struct tally_stat *s) {
  fprintf(out, "\"calls\": %llu, \"errors\": %llu, \"time_ns\": %llu, \"min_ns\": %llu, "
               "\"max_ns\": %llu",
          (unsigned long long)s->calls, (unsigned long long)s->errors,
          (unsigned long long)s->total, (unsigned long long)s->min,
          (unsigned long long)s->max);
}

/* "missing_packets" (and "partial" when the run record gave none): every packet the
 * trace should hold and does not, times in ns into the trace. */
static void json_missing(const struct tally *t, const struct run_record *run, FILE *out) {
  const struct trace_losses *l = t->missing;
  if (!l || !l->count)
    return;
  uint64_t packets = l->not_in_file + l->not_written;
  uint64_t events = l->events_about;
  if (!run || !run->present || run->partial_reason == RUN_PARTIAL_NONE)
    fprintf(out, ",\n  \"partial\": {\"reason\": \"missing-packets\", \"packets\": %llu, "
                 "\"bytes\": %llu, \"events_about\": %llu}",
            (unsigned long long)packets, (unsigned long long)l->bytes,
            (unsigned long long)events);
  fprintf(out, ",\n  \"missing_packets\": {\"packets\": %llu, \"not_in_file\": %llu, "
               "\"not_written\": %llu, \"bytes\": %llu, \"events_about\": %llu, "
               "\"unestimated\": %llu, \"list\": [",
          (unsigned long long)packets, (unsigned long long)l->not_in_file,
          (unsigned long long)l->not_written, (unsigned long long)l->bytes,
          (unsigned long long)events, (unsigned long long)l->unestimated);
  for (size_t i = 0; i < l->count; i++) {
    const struct trace_lost_packets *p = &l->list[i];
    fputs(i ? ",\n    {\"stream\": " : "\n    {\"stream\": ", out);
    units_json_string(out, p->stream);
    fprintf(out, ", \"why\": \"%s\", \"file_gone\": %s, \"packets\": %llu",
            p->kind == TRACE_LOSS_NOT_IN_FILE ? "not-in-file" : "not-written",
            p->file_gone ? "true" : "false", (unsigned long long)p->packets);
    if (p->has_sequence_number)
      fprintf(out, ", \"sequence_number\": %llu", (unsigned long long)p->sequence_number);
    if (p->kind == TRACE_LOSS_NOT_IN_FILE)
      fprintf(out, ", \"offset\": %llu, \"file_bytes\": %llu",
              (unsigned long long)p->offset, (unsigned long long)p->file_bytes);
    fprintf(out, ", \"bytes\": %llu, \"bytes_known\": %s", (unsigned long long)p->bytes,
            p->bytes_known ? "true" : "false");
    if (p->has_events_about)
      fprintf(out, ", \"events_about\": %llu", (unsigned long long)p->events_about);
    if (p->has_times && l->start_ns)
      fprintf(out, ", \"begin_ns\": %llu, \"end_ns\": %llu",
              (unsigned long long)(p->begin_ns > l->start_ns ? p->begin_ns - l->start_ns : 0),
              (unsigned long long)(p->end_ns > l->start_ns ? p->end_ns - l->start_ns : 0));
    fputc('}', out);
  }
  fputs("]}", out);
}

void tally_print_json(const struct tally *t, const char *trace_dir, const struct run_record *run,
                      bool extended, const struct tally_additions *more, FILE *out) {
  fprintf(out, "{\n  \"tracer_result\": %d,\n  \"trace\": ", TALLY_JSON_VERSION);
  units_json_string(out, trace_dir ? trace_dir : "");
  if (run && run->present) {
    fputs(",\n  \"app\": {\"command\": ", out);
    units_json_string(out, run->command);
    fputs(", \"status\": ", out);
    units_json_string(out, run->status);
    fprintf(out, ", \"exit_code\": %d, \"processes_left\": %ld}", run->exit_code,
            run->processes_left);
    if (run->partial_reason != RUN_PARTIAL_NONE)
      fprintf(out, ",\n  \"partial\": {\"reason\": \"%s\", \"at_ns\": %llu, \"kept_bytes\": "
                   "%llu, \"counting_after\": %s}",
              run_partial_name(run->partial_reason), (unsigned long long)run->partial_at_ns,
              (unsigned long long)run->kept_bytes, run->partial_counting ? "true" : "false");
  }
  json_missing(t, run, out);
  fprintf(out, ",\n  \"events\": %llu,\n  \"discarded_events\": %llu,\n",
          (unsigned long long)t->events, (unsigned long long)t->discarded);
  uint64_t cost_ns;
  struct tracing_cost cost;
  if (run_cost(t, run, &cost_ns, &cost))
    fprintf(out, "  \"tracing_cost\": {\"ns\": %llu, \"event_ps\": %llu, \"byte_ps\": %llu, "
                 "\"call_ps\": %llu, \"wall_ns\": %llu},\n",
            (unsigned long long)cost_ns, (unsigned long long)cost.event_ps,
            (unsigned long long)cost.byte_ps, (unsigned long long)cost.call_ps,
            (unsigned long long)(run ? run->wall_ns : 0));
  fprintf(out, "  \"tracer_events\": %llu,\n  \"counted_calls\": %llu,\n"
               "  \"batched_calls\": %llu,\n  \"clock_read_ns\": %llu,\n",
          (unsigned long long)t->own_events, (unsigned long long)t->counted_calls,
          (unsigned long long)t->batched_calls, (unsigned long long)t->clock_read_ns);
  fputs("  \"discarded_by_stream\": [", out);
  for (size_t i = 0; i < t->loss_count; i++) {
    fputs(i ? ", {\"stream\": " : "{\"stream\": ", out);
    units_json_string(out, t->losses[i].stream);
    fprintf(out, ", \"discarded\": %llu}", (unsigned long long)t->losses[i].discarded);
  }
  uint64_t attributed = 0;
  for (size_t i = 0; i < t->loss_count; i++)
    attributed += t->losses[i].discarded;
  fprintf(out, "],\n  \"discarded_unattributed\": %llu,\n",
          (unsigned long long)(t->discarded > attributed ? t->discarded - attributed : 0));
  fputs("  \"notices\": [", out);
  for (size_t i = 0; i < t->notice_count; i++) {
    fputs(i ? ", " : "", out);
    units_json_string(out, t->notices[i]);
  }
  fputs("],\n", out);
  if (t->rank_count) { /* a launcher's ranks in this one trace: process by process */
    fputs("  \"rank_processes\": [", out);
    for (size_t i = 0; i < t->rank_count; i++) {
      const struct tally_rank *r = &t->ranks[i];
      fprintf(out, "%s{\"rank\": %ld, \"size\": %ld, \"pid\": %lld, \"launcher\": ",
              i ? ", " : "", r->rank, r->size, (long long)r->pid);
      units_json_string(out, r->launcher);
      fputs(", \"hostname\": ", out);
      units_json_string(out, r->host >= 0 && (size_t)r->host < t->host_count
                                 ? t->hostnames[r->host] : "unknown");
      fputc('}', out);
    }
    fputs("],\n", out);
  }
  fprintf(out, "  \"pauses\": %llu,\n  \"paused_ns\": %llu,\n", (unsigned long long)t->pauses,
          (unsigned long long)t->paused_ns);
  if (t->error) {
    fputs("  \"error\": ", out);
    units_json_string(out, t->error);
    fputs(",\n", out);
  }
  fputs("  \"backends\": [", out);
  bool first_backend = true;
  for (size_t i = 0; i < t->backend_count; i++) {
    const struct tally_backend *b = &t->backends[i];
    if (!backend_used(b))
      continue;
    fprintf(out, "%s\n    {\"name\": ", first_backend ? "" : ",");
    first_backend = false;
    units_json_string(out, b->desc->name);
    fprintf(out, ", \"hostnames\": %zu, \"processes\": %zu, \"threads\": %zu,\n",
            b->hosts.len, b->processes.len, b->threads.len);
    fputs("     \"host\": [", out);
    uint32_t *order = calloc(b->function_count + 1, sizeof *order);
    bool first = true;
    if (order) {
      tally_sorted_host(b, order);
      for (uint32_t k = 0; k < b->function_count; k++) {
        const struct tally_stat *s = &b->host[order[k]];
        if (!s->calls)
          continue;
        fprintf(out, "%s\n       {\"name\": ", first ? "" : ",");
        first = false;
        const struct tracer_function_desc *fd = &b->desc->functions[order[k]];
        units_json_string(out, fd->name);
        fputs(", ", out);
        json_stat(out, s);
        const char *meaning = backends_meaning_name(fd->meaning);
        if (meaning)
          fprintf(out, ", \"meaning\": \"%s\"", meaning);
        if (fd->direction)
          fprintf(out, ", \"direction\": \"%s\"", fd->direction);
        if (fd->message.kind != TRACER_MESSAGE_NONE)
          fprintf(out, ", \"message\": \"%s\", \"bytes\": %llu, \"in_total\": %s",
                  message_kind_name(fd->message.kind),
                  (unsigned long long)b->message_bytes[order[k]],
                  message_counts_once(fd) ? "true" : "false");
        fputc('}', out);
      }
    }
    free(order);
    if (b->desc->device_times_host) /* device rows carry the host-side times of calls */
      fputs("],\n     \"device_times\": \"host\",\n     \"unfinished\": [", out);
    else
      fputs("],\n     \"unfinished\": [", out);
    first = true;
    for (uint32_t k = 0; k < b->function_count; k++) {
      if (!b->unfinished[k])
        continue;
      fprintf(out, "%s\n       {\"name\": ", first ? "" : ",");
      first = false;
      units_json_string(out, b->desc->functions[k].name);
      fprintf(out, ", \"calls\": %llu}", (unsigned long long)b->unfinished[k]);
    }
    fputs("],\n     \"inside_other\": [", out);
    first = true;
    for (uint32_t k = 0; k < b->function_count; k++) {
      if (!b->inside[k].calls)
        continue;
      fprintf(out, "%s\n       {\"name\": ", first ? "" : ",");
      first = false;
      units_json_string(out, b->desc->functions[k].name);
      fputs(", ", out);
      json_stat(out, &b->inside[k]);
      fputc('}', out);
    }
    fputs("],\n     \"device\": [", out);
    size_t *dorder = calloc(b->device_count + 1, sizeof *dorder);
    size_t n = 0;
    first = true;
    if (dorder) {
      tally_sorted_device(b, -1, dorder, &n);
      for (size_t k = 0; k < n; k++) {
        const struct tally_device *d = &b->device[dorder[k]];
        fprintf(out, "%s\n       {\"name\": ", first ? "" : ",");
        first = false;
        units_json_string(out, d->name);
        if (d->device) {
          fputs(", \"device\": ", out);
          units_json_string(out, d->device);
        }
        fprintf(out, ", \"kind\": \"%s\", ",
                d->kind == 0 ? "kernel" : d->kind == 1 ? "transfer" : "other");
        json_stat(out, &d->time);
        fprintf(out, ", \"bytes\": %llu}", (unsigned long long)d->bytes);
      }
      fputs("],\n     \"traffic\": [", out);
      tally_sorted_device(b, 1, dorder, &n);
      first = true;
      for (size_t k = 0; k < n; k++) {
        const struct tally_device *d = &b->device[dorder[k]];
        fprintf(out, "%s\n       {\"name\": ", first ? "" : ",");
        first = false;
        units_json_string(out, d->name);
        if (d->device) {
          fputs(", \"device\": ", out);
          units_json_string(out, d->device);
        }
        fprintf(out,
                ", \"calls\": %llu, \"bytes\": %llu, \"min_bytes\": %llu, \"max_bytes\": %llu, "
                "\"time_ns\": %llu, \"bytes_per_second\": %.6g}",
                (unsigned long long)d->time.calls, (unsigned long long)d->bytes,
                (unsigned long long)d->min_bytes, (unsigned long long)d->max_bytes,
                (unsigned long long)d->time.total,
                d->time.total ? (double)d->bytes * 1e9 / (double)d->time.total : 0.0);
      }
    } else {
      fputs("],\n     \"traffic\": [", out);
    }
    free(dorder);
    fputs("],\n     \"regions\": ", out);
    regions_print_json(&t->regions, b->desc->name, out);
    if (extended)
      print_actors_json(t, i, out);
    fputs("}", out);
  }
  fputs("\n  ]", out);
  for (size_t k = 0; more && k < more->count; k++)
    if (more->list[k].json) {
      fputs(",\n  ", out);
      units_json_string(out, more->list[k].json_name);
      fputs(": ", out);
      more->list[k].json(more->list[k].product, out);
    }
  fputs("\n}\n", out);
}
