/* steps_find: see steps.h. */
#include "steps.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct finder {
  struct steps *steps;
  uint32_t *stem_slots; /* open addressing over steps->stems: id + 1, 0 empty */
  size_t slot_cap, stem_cap;
  size_t last;          /* the process found last */
  bool failed;          /* out of memory */
};

static uint64_t hash(const char *s, size_t len) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

static bool grow_slots(struct finder *f) {
  size_t cap = f->slot_cap ? 2 * f->slot_cap : 256;
  uint32_t *slots = calloc(cap, sizeof *slots);
  if (!slots)
    return false;
  for (size_t i = 0; i < f->steps->stem_count; i++) {
    const char *s = f->steps->stems[i];
    size_t k = hash(s, strlen(s)) & (cap - 1);
    while (slots[k])
      k = (k + 1) & (cap - 1);
    slots[k] = (uint32_t)i + 1;
  }
  free(f->stem_slots);
  f->stem_slots = slots;
  f->slot_cap = cap;
  return true;
}

/* The id of name[0, len), added when new; UINT32_MAX when out of memory. */
static uint32_t stem_id(struct finder *f, const char *name, size_t len) {
  struct steps *s = f->steps;
  if (2 * (s->stem_count + 1) > f->slot_cap && !grow_slots(f))
    return UINT32_MAX;
  size_t k = hash(name, len) & (f->slot_cap - 1);
  for (; f->stem_slots[k]; k = (k + 1) & (f->slot_cap - 1)) {
    const char *known = s->stems[f->stem_slots[k] - 1];
    if (strncmp(known, name, len) == 0 && known[len] == '\0')
      return f->stem_slots[k] - 1;
  }
  if (s->stem_count == f->stem_cap) {
    size_t cap = f->stem_cap ? 2 * f->stem_cap : 64;
    char **grown = realloc(s->stems, cap * sizeof *grown);
    if (!grown)
      return UINT32_MAX;
    s->stems = grown;
    f->stem_cap = cap;
  }
  char *copy = strndup(name, len);
  if (!copy)
    return UINT32_MAX;
  s->stems[s->stem_count] = copy;
  f->stem_slots[k] = (uint32_t)s->stem_count + 1;
  return (uint32_t)s->stem_count++;
}

static struct steps_process *process_of(struct finder *f, int host, const char *host_name,
                                        int64_t pid) {
  struct steps *s = f->steps;
  if (f->last < s->count && s->processes[f->last].pid == pid &&
      s->processes[f->last].host == host)
    return &s->processes[f->last];
  for (size_t i = 0; i < s->count; i++)
    if (s->processes[i].pid == pid && s->processes[i].host == host)
      return &s->processes[f->last = i];
  struct steps_process *grown = realloc(s->processes, (s->count + 1) * sizeof *grown);
  if (!grown)
    return NULL;
  s->processes = grown;
  struct steps_process *p = &s->processes[s->count];
  *p = (struct steps_process){.host = host, .pid = pid, .rank = -1, .first = UINT64_MAX};
  snprintf(p->host_name, sizeof p->host_name, "%s", host_name ? host_name : "unknown");
  f->last = s->count++;
  return p;
}

static void saw(struct finder *f, int host, const char *host_name, int64_t pid, uint64_t start,
                uint64_t end) {
  struct steps_process *p = process_of(f, host, host_name, pid);
  if (!p) {
    f->failed = true;
    return;
  }
  if (start < p->first)
    p->first = start;
  if (end > p->last)
    p->last = end;
}

static int on_call(void *context, const struct trace_call *c) {
  saw(context, c->from.host, c->from.host_name, c->pid, c->start_clock, c->end_clock);
  return 0;
}

static int on_device(void *context, const struct trace_device *c) {
  if (c->has_ids)
    saw(context, c->from.host, c->from.host_name, c->pid, c->start_clock, c->end_clock);
  return 0;
}

static int on_rank(void *context, const struct trace_rank *r) {
  struct finder *f = context;
  struct steps_process *p = process_of(f, r->from.host, r->from.host_name, r->pid);
  if (p)
    p->rank = r->rank;
  else
    f->failed = true;
  return 0;
}

static int on_region(void *context, const struct trace_region *r) {
  struct finder *f = context;
  if (!r->has_ids)
    return 0;
  struct steps_process *p = process_of(f, r->from.host, r->from.host_name, r->pid);
  size_t len = r->name_len;
  while (len && isdigit((unsigned char)r->name[len - 1]))
    len--;
  int64_t number = -1;
  if (len < r->name_len && r->name_len - len < 18)
    number = strtoll(r->name + len, NULL, 10);
  uint32_t stem = stem_id(f, r->name, len);
  if (!p || stem == UINT32_MAX) {
    f->failed = true;
    return 0;
  }
  if (r->start_clock < p->first)
    p->first = r->start_clock;
  if (r->end_clock > p->last)
    p->last = r->end_clock;
  if (p->region_count == p->region_cap) {
    size_t cap = p->region_cap ? 2 * p->region_cap : 256;
    struct steps_region *grown = realloc(p->regions, cap * sizeof *grown);
    if (!grown) {
      f->failed = true;
      return 0;
    }
    p->regions = grown;
    p->region_cap = cap;
  }
  p->regions[p->region_count++] = (struct steps_region){
      r->start_clock, r->end_clock > r->start_clock ? r->end_clock : r->start_clock, r->tid, stem,
      r->depth, number};
  return 0;
}

void steps_region_name(const struct steps *s, const struct steps_region *r, char *out,
                       size_t size) {
  if (r->number >= 0)
    snprintf(out, size, "%s%lld", s->stems[r->stem], (long long)r->number);
  else
    snprintf(out, size, "%s", s->stems[r->stem]);
}

/* ---- choosing the steps ---- */

static int by_start(const void *x, const void *y) {
  const struct steps_region *a = x, *b = y;
  return a->start < b->start ? -1 : a->start > b->start;
}

/* One thread's repeating group: its stem at a depth. */
struct group {
  int64_t tid;
  uint32_t stem, depth;
  uint64_t count, ticks;
};

static int by_group(const void *x, const void *y) {
  const struct steps_region *a = x, *b = y;
  if (a->tid != b->tid)
    return a->tid < b->tid ? -1 : 1;
  if (a->depth != b->depth)
    return a->depth < b->depth ? -1 : 1;
  if (a->stem != b->stem)
    return a->stem < b->stem ? -1 : 1;
  return a->start < b->start ? -1 : a->start > b->start;
}

static bool add_step(struct steps_process *p, const struct steps *s, const struct steps_region *r) {
  struct step *grown = realloc(p->steps, (p->count + 1) * sizeof *grown);
  if (!grown)
    return false;
  p->steps = grown;
  struct step *st = &p->steps[p->count++];
  st->start = r->start;
  st->end = r->end;
  st->ns = (uint64_t)((double)(r->end - r->start) * s->ns_per_tick + 0.5);
  st->number = (unsigned)p->count;
  steps_region_name(s, r, st->name, sizeof st->name);
  return true;
}

/* The outermost repeating region of p (steps.h). */
static bool find_repeating(struct steps *s, struct steps_process *p) {
  struct steps_region *r = malloc((p->region_count + 1) * sizeof *r);
  if (!r)
    return false;
  if (p->region_count) {
    memcpy(r, p->regions, p->region_count * sizeof *r);
    qsort(r, p->region_count, sizeof *r, by_group);
  }
  struct group best = {0};
  int64_t thread = 0;
  uint32_t thread_depth = UINT32_MAX; /* the least depth a group of this thread repeats at */
  for (size_t i = 0; i < p->region_count;) {
    size_t end = i;
    uint64_t ticks = 0;
    while (end < p->region_count && r[end].tid == r[i].tid && r[end].depth == r[i].depth &&
           r[end].stem == r[i].stem)
      ticks += r[end].end - r[end].start, end++;
    if (r[i].tid != thread || i == 0)
      thread = r[i].tid, thread_depth = UINT32_MAX;
    if (end - i >= 2 && r[i].depth <= thread_depth) {
      thread_depth = r[i].depth;
      if (ticks > best.ticks || !best.count)
        best = (struct group){r[i].tid, r[i].stem, r[i].depth, end - i, ticks};
    }
    i = end;
  }
  bool ok = true;
  bool numbered = false;
  for (size_t i = 0; i < p->region_count && ok; i++)
    if (best.count && r[i].tid == best.tid && r[i].depth == best.depth && r[i].stem == best.stem) {
      ok = add_step(p, s, &r[i]);
      numbered |= r[i].number >= 0;
    }
  if (best.count) /* "ProfilerStep#N" for numbered instances, else the name */
    snprintf(p->what, sizeof p->what, "%s%s", s->stems[best.stem], numbered ? "N" : "");
  free(r);
  return ok;
}

/* The outermost regions whose whole name matches the pattern. */
static bool find_matching(struct steps *s, struct steps_process *p) {
  struct steps_region *r = malloc((p->region_count + 1) * sizeof *r);
  if (!r)
    return false;
  size_t n = 0;
  char name[256];
  for (size_t i = 0; i < p->region_count; i++) {
    steps_region_name(s, &p->regions[i], name, sizeof name);
    if (fnmatch(s->pattern, name, 0) == 0)
      r[n++] = p->regions[i];
  }
  qsort(r, n, sizeof *r, by_group); /* by thread, then start within a depth */
  qsort(r, n, sizeof *r, by_start);
  bool ok = true;
  snprintf(p->what, sizeof p->what, "%s", s->pattern);
  for (size_t i = 0; i < n && ok; i++) {
    bool inside = false; /* in an earlier match of its thread */
    for (size_t k = 0; k < i && !inside; k++)
      inside = r[k].tid == r[i].tid && r[k].start <= r[i].start && r[i].end <= r[k].end &&
               r[k].depth < r[i].depth;
    if (!inside)
      ok = add_step(p, s, &r[i]);
  }
  free(r);
  return ok;
}

static int by_step_start(const void *x, const void *y) {
  const struct step *a = x, *b = y;
  return a->start < b->start ? -1 : a->start > b->start;
}

static double clock_ns_per_tick(const struct trace_reader *reader) {
  const struct ctf_trace *t = trace_reader_trace(reader);
  if (!ctf_trace_event_class_count(t))
    return 1.0;
  const struct ctf_clock_class *clock = ctf_trace_event_class(t, 0)->stream_class->clock;
  return clock && clock->frequency ? 1e9 / (double)clock->frequency : 1.0;
}

int steps_find(struct trace_reader *reader, const char *pattern, unsigned threads,
               struct steps *s, struct diag *d) {
  memset(s, 0, sizeof *s);
  s->pattern = pattern;
  s->ns_per_tick = clock_ns_per_tick(reader);
  struct finder f = {.steps = s};
  struct trace_consumer consumer = {.name = "steps",
                                    .context = &f,
                                    .call = on_call,
                                    .device = on_device,
                                    .region = on_region,
                                    .rank = on_rank};
  const struct trace_consumer *list[] = {&consumer};
  struct trace_read_options options = {.threads = threads};
  enum trace_read_status st = trace_read(reader, list, 1, &options, d);
  free(f.stem_slots);
  if (st == TRACE_READ_FAILED)
    return diag_error(d, "Cannot find the steps");
  if (st == TRACE_READ_PARTIAL)
    diag_clear(d); /* what could be read has its steps: the reports say the rest */
  bool ok = !f.failed;
  for (size_t i = 0; i < s->count && ok; i++) {
    struct steps_process *p = &s->processes[i];
    if (p->region_count) /* qsort and memcpy take no NULL, even for nothing */
      qsort(p->regions, p->region_count, sizeof *p->regions, by_start);
    ok = pattern ? find_matching(s, p) : find_repeating(s, p);
    if (p->count)
      qsort(p->steps, p->count, sizeof *p->steps, by_step_start);
    for (size_t k = 0; k < p->count; k++)
      p->steps[k].number = (unsigned)k + 1;
  }
  return ok ? 0 : diag_error(d, "Cannot find the steps: out of memory");
}

const struct steps_process *steps_process_of(const struct steps *s, int host, int64_t pid) {
  for (size_t i = 0; s && i < s->count; i++)
    if (s->processes[i].pid == pid && s->processes[i].host == host)
      return &s->processes[i];
  return NULL;
}

size_t steps_total(const struct steps *s, size_t *processes) {
  size_t total = 0, with = 0;
  for (size_t i = 0; s && i < s->count; i++) {
    total += s->processes[i].count;
    with += s->processes[i].count > 0;
  }
  if (processes)
    *processes = with;
  return total;
}

void steps_free(struct steps *s) {
  for (size_t i = 0; i < s->count; i++) {
    free(s->processes[i].steps);
    free(s->processes[i].regions);
  }
  for (size_t i = 0; i < s->stem_count; i++)
    free(s->stems[i]);
  free(s->stems);
  free(s->processes);
  memset(s, 0, sizeof *s);
}
