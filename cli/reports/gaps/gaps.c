/* gaps: see gaps.h. */
#include "gaps.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "timeline_feed.h"
#include "tracer_runtime.h"
#include "units.h"

enum { REORDER_WINDOW = 1 << 16 };

/* The union of intervals that come in start order: one open block at a time. */
struct union_time {
  bool open;
  uint64_t start, end, total;
};

/* Adds [s, e]; returns the idle span it closes (0 when none), from *gap_start. */
static uint64_t union_add(struct union_time *u, uint64_t s, uint64_t e, uint64_t *gap_start) {
  uint64_t gap = 0;
  if (u->open && s > u->end) {
    u->total += u->end - u->start;
    gap = s - u->end;
    *gap_start = u->end;
    u->open = false;
  }
  if (!u->open) {
    u->open = true;
    u->start = s;
    u->end = e;
  } else if (e > u->end) {
    u->end = e;
  }
  return gap;
}

static void union_close(struct union_time *u) {
  if (u->open)
    u->total += u->end - u->start;
  u->open = false;
}

struct queue_state {
  uint64_t id;
  int64_t pid;
  struct union_time busy;
  uint64_t commands;
};

struct device_state {
  char *host;
  const char *backend;
  struct union_time all, kernels, copies, either;
  struct queue_state *queues;
  size_t queue_count;
  struct gap gaps[GAPS_KEPT];
  size_t gap_count;
  uint64_t commands;
};

struct pending {
  uint64_t start, end;
  size_t device;
  uint64_t queue;
  int64_t pid;
  int kind;
};

struct analysis {
  struct device_state *devices;
  size_t device_count;
  struct pending *heap; /* min-heap by start; REORDER_WINDOW; owned */
  size_t heap_count;
  bool failed;
};

static size_t device_index(struct analysis *a, const char *host, const char *backend) {
  for (size_t i = 0; i < a->device_count; i++)
    if (strcmp(a->devices[i].host, host) == 0 && strcmp(a->devices[i].backend, backend) == 0)
      return i;
  struct device_state *grown = realloc(a->devices, (a->device_count + 1) * sizeof *grown);
  if (!grown)
    return SIZE_MAX;
  a->devices = grown;
  struct device_state *d = &a->devices[a->device_count];
  memset(d, 0, sizeof *d);
  d->host = strdup(host);
  d->backend = backend;
  return d->host ? a->device_count++ : SIZE_MAX;
}

/* The GAPS_KEPT longest, longest first. */
static void keep_gap(struct device_state *d, uint64_t start, uint64_t length) {
  size_t n = d->gap_count;
  if (n == GAPS_KEPT) {
    if (d->gaps[n - 1].end - d->gaps[n - 1].start >= length)
      return;
    n--; /* the shortest makes room */
  }
  size_t at = n;
  while (at > 0 && d->gaps[at - 1].end - d->gaps[at - 1].start < length) {
    d->gaps[at] = d->gaps[at - 1];
    at--;
  }
  memset(&d->gaps[at], 0, sizeof d->gaps[at]);
  d->gaps[at].start = start;
  d->gaps[at].end = start + length;
  d->gap_count = n + 1;
}

static void consume(struct analysis *a, const struct pending *p) {
  struct device_state *d = &a->devices[p->device];
  uint64_t gap_start = 0, gap = union_add(&d->all, p->start, p->end, &gap_start);
  if (gap)
    keep_gap(d, gap_start, gap);
  uint64_t ignored;
  if (p->kind == TRACER_COMMAND_KERNEL)
    union_add(&d->kernels, p->start, p->end, &ignored);
  if (p->kind == TRACER_COMMAND_TRANSFER)
    union_add(&d->copies, p->start, p->end, &ignored);
  if (p->kind == TRACER_COMMAND_KERNEL || p->kind == TRACER_COMMAND_TRANSFER)
    union_add(&d->either, p->start, p->end, &ignored);
  d->commands++;
  struct queue_state *q = NULL;
  for (size_t i = 0; i < d->queue_count && !q; i++)
    if (d->queues[i].id == p->queue && d->queues[i].pid == p->pid)
      q = &d->queues[i];
  if (!q) {
    struct queue_state *grown = realloc(d->queues, (d->queue_count + 1) * sizeof *grown);
    if (!grown) {
      a->failed = true;
      return;
    }
    d->queues = grown;
    q = &d->queues[d->queue_count++];
    memset(q, 0, sizeof *q);
    q->id = p->queue;
    q->pid = p->pid;
  }
  union_add(&q->busy, p->start, p->end, &ignored);
  q->commands++;
}

static struct pending heap_pop(struct analysis *a) {
  struct pending *h = a->heap, top = h[0], last = h[--a->heap_count];
  size_t at = 0, n = a->heap_count;
  for (;;) {
    size_t c = 2 * at + 1;
    if (c >= n)
      break;
    if (c + 1 < n && h[c + 1].start < h[c].start)
      c++;
    if (h[c].start >= last.start)
      break;
    h[at] = h[c];
    at = c;
  }
  if (n)
    h[at] = last;
  return top;
}

static int on_device(void *context, const struct feed_device *dev) {
  struct analysis *a = context;
  size_t device = device_index(a, dev->host, dev->desc ? dev->desc->name : "unknown");
  if (device == SIZE_MAX) {
    a->failed = true;
    return 0;
  }
  if (a->heap_count == REORDER_WINDOW) {
    struct pending p = heap_pop(a);
    consume(a, &p);
  }
  struct pending p = {dev->start, dev->end > dev->start ? dev->end : dev->start, device,
                      dev->queue, dev->pid, dev->kind};
  size_t at = a->heap_count++;
  while (at > 0 && a->heap[(at - 1) / 2].start > p.start) {
    a->heap[at] = a->heap[(at - 1) / 2];
    at = (at - 1) / 2;
  }
  a->heap[at] = p;
  return 0;
}

/* Second pass: the innermost call in progress at each gap's middle, on the gap's host. */
static int on_call(void *context, const struct feed_call *c) {
  struct analysis *a = context;
  for (size_t i = 0; i < a->device_count; i++) {
    struct device_state *d = &a->devices[i];
    if (strcmp(d->host, c->host) != 0)
      continue;
    for (size_t g = 0; g < d->gap_count; g++) {
      struct gap *gap = &d->gaps[g];
      uint64_t middle = gap->start + (gap->end - gap->start) / 2;
      uint64_t length = c->end - c->start;
      if (c->start > middle || c->end < middle || (gap->host_call[0] && gap->call_length <= length))
        continue;
      snprintf(gap->host_call, sizeof gap->host_call, "%s",
               c->desc->functions[c->function].name);
      gap->host_pid = c->pid;
      gap->host_tid = c->tid;
      gap->call_length = length;
    }
  }
  return 0;
}

int gaps_analyse(const struct ctf_trace *trace, const struct event_map *map,
                 struct gap_report *report, char **error) {
  memset(report, 0, sizeof *report);
  *error = NULL;
  struct analysis a = {0};
  a.heap = malloc(REORDER_WINDOW * sizeof *a.heap);
  if (!a.heap) {
    *error = strdup("Cannot analyse the gaps: out of memory");
    return -1;
  }
  struct feed_consumer devices = {&a, NULL, on_device, false, NULL};
  struct feed_span span;
  int rc = timeline_feed(trace, map, &devices, &span, error);
  while (a.heap_count) {
    struct pending p = heap_pop(&a);
    consume(&a, &p);
  }
  free(a.heap);
  if (a.device_count && rc == 0) {
    struct feed_consumer calls = {&a, on_call, NULL, false, NULL};
    struct feed_span ignored;
    rc = timeline_feed(trace, map, &calls, &ignored, error);
  }
  report->run_start = span.first;
  report->run_end = span.last;
  report->devices = calloc(a.device_count ? a.device_count : 1, sizeof *report->devices);
  for (size_t i = 0; i < a.device_count; i++) {
    struct device_state *d = &a.devices[i];
    struct gap_device *out = &report->devices[i];
    union_close(&d->all);
    union_close(&d->kernels);
    union_close(&d->copies);
    union_close(&d->either);
    if (!report->devices) {
      free(d->host);
      free(d->queues);
      continue;
    }
    out->host = d->host;
    out->backend = d->backend;
    out->busy = d->all.total;
    out->kernels = d->kernels.total;
    out->copies = d->copies.total;
    out->overlap = d->kernels.total + d->copies.total - d->either.total;
    out->commands = d->commands;
    out->gap_count = d->gap_count;
    memcpy(out->gaps, d->gaps, sizeof d->gaps);
    out->queues = calloc(d->queue_count ? d->queue_count : 1, sizeof *out->queues);
    for (size_t q = 0; out->queues && q < d->queue_count; q++) {
      union_close(&d->queues[q].busy);
      out->queues[q] = (struct gap_queue){d->queues[q].id, d->queues[q].busy.total,
                                          d->queues[q].commands, d->queues[q].pid};
    }
    out->queue_count = out->queues ? d->queue_count : 0;
    free(d->queues);
    report->device_count++;
  }
  free(a.devices);
  if ((a.failed || !report->devices) && !*error) {
    *error = strdup("Cannot analyse the gaps: out of memory");
    rc = -1;
  }
  return rc;
}

void gaps_print_text(const struct gap_report *r, FILE *out) {
  uint64_t wall = r->run_end > r->run_start ? r->run_end - r->run_start : 0;
  for (size_t i = 0; i < r->device_count; i++) {
    const struct gap_device *d = &r->devices[i];
    char busy[32], length[32], at[48], kernels[32], copies[32], overlap[32], wall_text[32];
    char label[64];
    snprintf(label, sizeof label, "%s", d->backend);
    for (char *p = label; *p; p++)
      *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
    units_time(wall, wall_text, sizeof wall_text);
    units_time(d->busy, busy, sizeof busy);
    fprintf(out, "\nDevice use (%s) | %s device on %s | run %s |\n\n", label, d->backend, d->host,
            wall_text);
    fprintf(out, "%-32s | %9s | %11s | %8s |\n", "Queue", "Busy", "Utilisation", "Commands");
    fprintf(out, "%-32s | %9s | %10.2f%% | %8llu |\n", "all queues", busy,
            wall ? 100.0 * (double)d->busy / (double)wall : 0.0, (unsigned long long)d->commands);
    for (size_t q = 0; q < d->queue_count; q++) {
      char name[64];
      snprintf(name, sizeof name, "queue 0x%" PRIx64 " (pid %" PRId64 ")", d->queues[q].id,
               d->queues[q].pid);
      units_time(d->queues[q].busy, busy, sizeof busy);
      fprintf(out, "%-32s | %9s | %10.2f%% | %8llu |\n", name, busy,
              wall ? 100.0 * (double)d->queues[q].busy / (double)wall : 0.0,
              (unsigned long long)d->queues[q].commands);
    }
    units_time(d->kernels, kernels, sizeof kernels);
    units_time(d->copies, copies, sizeof copies);
    units_time(d->overlap, overlap, sizeof overlap);
    fprintf(out, "\nCopies overlapping kernels: %s (%.2f%% of copy time %s; kernels ran %s)\n",
            overlap, d->copies ? 100.0 * (double)d->overlap / (double)d->copies : 0.0, copies,
            kernels);
    if (!d->gap_count) {
      fprintf(out, "\nNo idle gap between device commands.\n");
      continue;
    }
    fprintf(out, "\nLongest idle gaps | %zu |\n\n", d->gap_count);
    fprintf(out, "%2s | %12s | %9s | %s\n", "#", "Start", "Length", "Host was in");
    for (size_t g = 0; g < d->gap_count; g++) {
      const struct gap *gap = &d->gaps[g];
      units_time(gap->end - gap->start, length, sizeof length);
      char offset[32];
      units_time(gap->start - r->run_start, offset, sizeof offset);
      snprintf(at, sizeof at, "+%s", offset);
      fprintf(out, "%2zu | %12s | %9s | ", g + 1, at, length);
      if (gap->host_call[0])
        fprintf(out, "%s (pid %" PRId64 ", tid %" PRId64 ")\n", gap->host_call, gap->host_pid,
                gap->host_tid);
      else
        fprintf(out, "no traced call (the app's own code)\n");
    }
  }
}

void gaps_free(struct gap_report *r) {
  for (size_t i = 0; i < r->device_count; i++) {
    free(r->devices[i].host);
    free(r->devices[i].queues);
  }
  free(r->devices);
  memset(r, 0, sizeof *r);
}
