/* window_build: see window_build.h. */
#include "window_build.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct trace_window_range range;

struct ranges {
  range *at; /* owned */
  size_t count;
};

static bool ranges_push(struct ranges *r, uint64_t start, uint64_t end) {
  if (end <= start)
    return true;
  if (r->count && start <= r->at[r->count - 1].end) { /* in start order: merge */
    if (end > r->at[r->count - 1].end)
      r->at[r->count - 1].end = end;
    return true;
  }
  range *grown = realloc(r->at, (r->count + 1) * sizeof *grown);
  if (!grown)
    return false;
  r->at = grown;
  r->at[r->count++] = (range){start, end};
  return true;
}

/* a ∩ b, into a. */
static bool ranges_intersect(struct ranges *a, const struct ranges *b) {
  struct ranges out = {0};
  bool ok = true;
  for (size_t i = 0, j = 0; ok && i < a->count && j < b->count;) {
    uint64_t s = a->at[i].start > b->at[j].start ? a->at[i].start : b->at[j].start;
    uint64_t e = a->at[i].end < b->at[j].end ? a->at[i].end : b->at[j].end;
    ok = ranges_push(&out, s, e);
    if (a->at[i].end < b->at[j].end)
      i++;
    else
      j++;
  }
  free(a->at);
  *a = out;
  return ok;
}

bool window_is_seconds(const char *text, double *seconds) {
  char *end;
  double v = strtod(text, &end);
  if (end == text || *end || v < 0)
    return false;
  *seconds = v;
  return true;
}

/* The outermost regions of p whose name matches pattern, as ranges; *found: any did. */
static bool regions_matching(const struct steps *s, const struct steps_process *p,
                             const char *pattern, struct ranges *out, bool *found) {
  char name[256];
  uint64_t outer_end = 0;
  for (size_t i = 0; i < p->region_count; i++) { /* regions in start order */
    const struct steps_region *r = &p->regions[i];
    steps_region_name(s, r, name, sizeof name);
    if (fnmatch(pattern, name, 0) != 0)
      continue;
    *found = true;
    if (r->end <= outer_end && out->count)
      continue; /* inside an earlier match */
    if (!ranges_push(out, r->start, r->end))
      return false;
    if (r->end > outer_end)
      outer_end = r->end;
  }
  return true;
}

/* The start of the first region named by pattern (or its last one's end); false when
 * none matches. */
static bool region_bound(const struct steps *s, const struct steps_process *p,
                         const char *pattern, bool last, uint64_t *at) {
  char name[256];
  bool found = false;
  for (size_t i = 0; i < p->region_count; i++) {
    const struct steps_region *r = &p->regions[i];
    steps_region_name(s, r, name, sizeof name);
    if (fnmatch(pattern, name, 0) != 0)
      continue;
    if (!last && !found)
      *at = r->start;
    if (last && (!found || r->end > *at))
      *at = r->end;
    found = true;
  }
  return found;
}

/* Up to a few region names of the run, for a message that names none that exists. */
static void some_names(const struct steps *s, char *out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (size_t i = 0; i < s->stem_count && i < 8 && used < size; i++)
    used += (size_t)snprintf(out + used, size - used, "%s%s%s", i ? ", " : "", s->stems[i],
                             i == 7 && s->stem_count > 8 ? ", ..." : "");
}

static int bad_name(const struct steps *s, const char *option, const char *name,
                    struct diag *d) {
  char names[256];
  some_names(s, names, sizeof names);
  return diag_error(d, "Cannot apply the window: no region of the run is named %s (%s); %s%s",
                    name, option, names[0] ? "its regions: " : "it recorded no region",
                    names) ? WINDOW_BAD_INPUT : WINDOW_BAD_INPUT;
}

static void add_label(char *label, size_t size, const char *part) {
  size_t used = strlen(label);
  if (used + 2 < size)
    snprintf(label + used, size - used, "%s%s", used ? ", " : "", part);
}

static uint64_t last_of(const struct steps_process *p) { return p->last; }

/* One process's window; *found_* say what was found in it. */
static bool process_window(const struct window_request *q, const struct steps *s,
                           const struct steps_process *p, struct ranges *w, bool *found_region,
                           bool *found_from, bool *found_to) {
  w->count = 0;
  if (!ranges_push(w, 0, UINT64_MAX))
    return false;
  struct ranges part = {0};
  bool ok = true;
  if (q->region) {
    ok = regions_matching(s, p, q->region, &part, found_region) && ranges_intersect(w, &part);
    part.count = 0;
  }
  if (ok && q->skip_asked) {
    for (size_t k = q->skip_steps; ok && k < p->count; k++)
      ok = ranges_push(&part, p->steps[k].start, p->steps[k].end);
    ok = ok && ranges_intersect(w, &part);
    part.count = 0;
  }
  double seconds;
  uint64_t from = 0, to = UINT64_MAX;
  bool bounded = true;
  if (q->from) {
    if (window_is_seconds(q->from, &seconds))
      from = p->first + (uint64_t)(seconds * 1e9 / s->ns_per_tick + 0.5);
    else if (region_bound(s, p, q->from, false, &from))
      *found_from = true;
    else
      bounded = false;
  }
  if (q->to) {
    if (window_is_seconds(q->to, &seconds))
      to = p->first + (uint64_t)(seconds * 1e9 / s->ns_per_tick + 0.5);
    else if (region_bound(s, p, q->to, true, &to))
      *found_to = true;
    else
      bounded = false;
  }
  if (ok && (q->from || q->to)) {
    if (bounded)
      ok = ranges_push(&part, from, to);
    ok = ok && ranges_intersect(w, &part);
  }
  free(part.at);
  return ok;
}

int window_build(const struct window_request *q, const struct steps *s,
                 struct trace_window *window, struct diag *d) {
  memset(window, 0, sizeof *window);
  size_t with_steps = 0;
  steps_total(s, &with_steps);
  if (q->skip_asked && !with_steps) {
    if (s->pattern)
      return diag_error(d, "Cannot skip steps: no region of the run matches --steps %s",
                        s->pattern) ? WINDOW_BAD_INPUT : WINDOW_BAD_INPUT;
    return diag_error(d, "Cannot skip steps: no region repeats in this run; mark each step "
                         "with an NVTX range or an ITT task (docs/steps.md)") ? WINDOW_BAD_INPUT
                                                                             : WINDOW_BAD_INPUT;
  }
  window->processes = calloc(s->count + 1, sizeof *window->processes);
  if (!window->processes)
    return diag_error(d, "Cannot apply the window: out of memory");
  bool found_region = false, found_from = false, found_to = false, ok = true;
  struct ranges w = {0};
  for (size_t i = 0; i < s->count && ok; i++) {
    const struct steps_process *p = &s->processes[i];
    ok = process_window(q, s, p, &w, &found_region, &found_from, &found_to);
    if (!ok || !w.count)
      continue;
    struct trace_window_process *out = &window->processes[window->count++];
    *out = (struct trace_window_process){.host = p->host, .pid = p->pid};
    out->ranges = malloc(w.count * sizeof *out->ranges);
    ok = out->ranges != NULL;
    if (ok)
      memcpy(out->ranges, w.at, w.count * sizeof *w.at);
    out->count = ok ? w.count : 0;
    double ticks = 0;
    for (size_t k = 0; k < out->count; k++) { /* up to the process's last record */
      uint64_t end = out->ranges[k].end < last_of(p) ? out->ranges[k].end : last_of(p);
      ticks += end > out->ranges[k].start ? (double)(end - out->ranges[k].start) : 0.0;
    }
    out->ns = (uint64_t)(ticks * s->ns_per_tick + 0.5);
    if (!out->ns) { /* after its last record: nothing of it is inside */
      free(out->ranges);
      window->count--;
    }
  }
  free(w.at);
  if (!ok) {
    trace_window_free(window);
    return diag_error(d, "Cannot apply the window: out of memory");
  }
  int rc = 0;
  if (q->region && !found_region)
    rc = bad_name(s, "--window", q->region, d);
  else if (q->from && !found_from && !window_is_seconds(q->from, &(double){0}))
    rc = bad_name(s, "--from", q->from, d);
  else if (q->to && !found_to && !window_is_seconds(q->to, &(double){0}))
    rc = bad_name(s, "--to", q->to, d);
  else if (!window->count)
    rc = diag_error(d, "Cannot apply the window: it holds no part of the run (each process's "
                       "window is empty)") ? WINDOW_BAD_INPUT : WINDOW_BAD_INPUT;
  if (rc) {
    trace_window_free(window);
    return rc;
  }
  char part[160];
  if (q->region) {
    snprintf(part, sizeof part, "regions %s", q->region);
    add_label(window->label, sizeof window->label, part);
  }
  if (q->skip_asked) {
    const char *what = "";
    for (size_t i = 0; i < s->count && !*what; i++)
      what = s->processes[i].what;
    snprintf(part, sizeof part, "the steps (%s) after the first %u", what, q->skip_steps);
    add_label(window->label, sizeof window->label, part);
  }
  double seconds;
  if (q->from) {
    snprintf(part, sizeof part, window_is_seconds(q->from, &seconds) ? "from %s s"
                                                                     : "from the start of %s",
             q->from);
    add_label(window->label, sizeof window->label, part);
  }
  if (q->to) {
    snprintf(part, sizeof part, window_is_seconds(q->to, &seconds) ? "to %s s"
                                                                   : "to the end of %s",
             q->to);
    add_label(window->label, sizeof window->label, part);
  }
  return 0;
}

void window_request_label(const struct window_request *q, char *out, size_t size) {
  out[0] = '\0';
  char part[160];
  if (q->region) {
    snprintf(part, sizeof part, "regions %s", q->region);
    add_label(out, size, part);
  }
  if (q->skip_asked) {
    snprintf(part, sizeof part, "the steps after the first %u", q->skip_steps);
    add_label(out, size, part);
  }
  if (q->from) {
    snprintf(part, sizeof part, "from %s%s", q->from, window_is_seconds(q->from, &(double){0}) ? " s" : "");
    add_label(out, size, part);
  }
  if (q->to) {
    snprintf(part, sizeof part, "to %s%s", q->to, window_is_seconds(q->to, &(double){0}) ? " s" : "");
    add_label(out, size, part);
  }
}

int window_apply(struct trace_reader *reader, const struct window_request *request,
                 const char *steps_pattern, unsigned threads, struct trace_window *window,
                 struct diag *d) {
  memset(window, 0, sizeof *window);
  struct steps steps;
  if (steps_find(reader, steps_pattern, threads, &steps, d))
    return -1;
  int rc = 0;
  if (steps_pattern && !steps_total(&steps, NULL))
    rc = diag_error(d, "Cannot find the steps: no region of the run matches --steps %s",
                    steps_pattern) ? WINDOW_BAD_INPUT : WINDOW_BAD_INPUT;
  if (rc == 0)
    rc = window_build(request, &steps, window, d);
  steps_free(&steps);
  if (rc == 0)
    trace_reader_set_window(reader, window);
  return rc;
}
