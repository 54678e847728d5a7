/* samples_output: the device counters as a report (output.h), printed after the text
 * tables when the trace holds the sampler's events (tracer --sample), and with -j as the
 * JSON's "samples" member (tally_print.h's additions: the tally, which prints it, comes
 * before it in the registry). */
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "samples.h"
#include "tally_print.h"
#include "units.h"

static bool asked(const struct analysis_request *r) { return !r->text; }

struct samples_state {
  struct samples *samples;
  struct samples_report report;
  bool finished;
};

static void value_text(double value, const char *unit, char *buf, size_t size) {
  if (strcmp(unit, "B") == 0)
    units_bytes(value > 0 ? (uint64_t)(value + 0.5) : 0, buf, size);
  else
    snprintf(buf, size, "%.2f %s", value, unit);
}

static double seconds(uint64_t from, uint64_t to) {
  return to > from ? (double)(to - from) / 1e9 : 0;
}

/* Times are said from the sampler's first reading, taken just before the app starts. */
static uint64_t first_reading(const struct samples_report *r) {
  uint64_t start = 0;
  for (size_t i = 0; i < r->device_count; i++)
    for (size_t k = 0; k < r->devices[i].counter_count; k++)
      if (!start || r->devices[i].counters[k].first < start)
        start = r->devices[i].counters[k].first;
  return start;
}

/* A device's readings (of its most read counter) and their span. */
static size_t device_readings(const struct samples_device *dev, uint64_t *first, uint64_t *last) {
  size_t readings = 0;
  *first = *last = 0;
  for (size_t k = 0; k < dev->counter_count; k++) {
    const struct samples_counter *c = &dev->counters[k];
    if (c->readings > readings)
      readings = c->readings;
    if (!*first || c->first < *first)
      *first = c->first;
    if (c->last > *last)
      *last = c->last;
  }
  return readings;
}

static bool is_memory_used(const struct samples_counter *c) {
  return strcmp(c->unit, "B") == 0 && strncmp(c->name, "memory_used", 11) == 0;
}

void samples_print_text(const struct samples_report *r, FILE *out) {
  if (r->device_count == 0 && r->unavailable_count == 0)
    return;
  fprintf(out, "\nDevice counters (tracer --sample): %zu device%s\n", r->device_count,
          r->device_count == 1 ? "" : "s");
  uint64_t start = first_reading(r);
  for (size_t i = 0; i < r->device_count; i++) {
    const struct samples_device *dev = &r->devices[i];
    uint64_t first, last;
    size_t readings = device_readings(dev, &first, &last);
    if (dev->rank >= 0)
      fprintf(out, "rank %ld, ", dev->rank);
    fprintf(out, "%s %u: %s, %zu readings over %.2f s\n", dev->backend, dev->index, dev->name,
            readings, seconds(first, last));
    fprintf(out, "  %-22s %14s %14s %14s\n", "counter", "least", "mean", "most");
    for (size_t k = 0; k < dev->counter_count; k++) {
      const struct samples_counter *c = &dev->counters[k];
      char least[32], mean[32], most[32];
      value_text(c->least, c->unit, least, sizeof least);
      value_text(c->mean, c->unit, mean, sizeof mean);
      value_text(c->most, c->unit, most, sizeof most);
      fprintf(out, "  %-22s %14s %14s %14s\n", c->name, least, mean, most);
    }
    for (size_t k = 0; k < dev->counter_count; k++) {
      const struct samples_counter *c = &dev->counters[k];
      char most[32];
      if (is_memory_used(c)) {
        value_text(c->most, c->unit, most, sizeof most);
        fprintf(out, "  peak %s: %s at %.3f s (from the first reading)\n", c->name, most,
                seconds(start, c->most_at));
      }
      if (c->energy)
        fprintf(out, "  energy (%s integrated over %.2f s): %.3f J\n", c->name,
                seconds(c->first, c->last), c->joules);
    }
  }
  for (size_t i = 0; i < r->unavailable_count; i++)
    fprintf(out, "Not sampled: %s\n", r->unavailable[i]);
}

/* docs/analysis-output.md's "samples" member: the same figures as the text, unrounded. */
void samples_print_json(const struct samples_report *r, FILE *out) {
  uint64_t start = first_reading(r);
  fputs("{\n    \"devices\": [", out);
  for (size_t i = 0; i < r->device_count; i++) {
    const struct samples_device *dev = &r->devices[i];
    uint64_t first, last;
    size_t readings = device_readings(dev, &first, &last);
    fprintf(out, "%s\n      {", i ? "," : "");
    if (dev->rank >= 0)
      fprintf(out, "\"rank\": %ld, ", dev->rank);
    fputs("\"backend\": ", out);
    units_json_string(out, dev->backend);
    fprintf(out, ", \"index\": %u, \"name\": ", dev->index);
    units_json_string(out, dev->name);
    fprintf(out, ", \"readings\": %zu, \"span_s\": %.6f,\n       \"counters\": [", readings,
            seconds(first, last));
    for (size_t k = 0; k < dev->counter_count; k++) {
      const struct samples_counter *c = &dev->counters[k];
      fputs(k ? ",\n         {\"name\": " : "\n         {\"name\": ", out);
      units_json_string(out, c->name);
      fputs(", \"unit\": ", out);
      units_json_string(out, c->unit);
      fprintf(out, ", \"readings\": %zu, \"least\": %.17g, \"mean\": %.17g, \"most\": %.17g}",
              c->readings, c->least, c->mean, c->most);
    }
    fputs("],\n       \"peak_memory\": [", out);
    bool any = false;
    for (size_t k = 0; k < dev->counter_count; k++) {
      const struct samples_counter *c = &dev->counters[k];
      if (!is_memory_used(c))
        continue;
      fputs(any ? ", {\"counter\": " : "{\"counter\": ", out);
      any = true;
      units_json_string(out, c->name);
      fprintf(out, ", \"bytes\": %.17g, \"at_ns\": %llu, \"at_s\": %.6f}", c->most,
              (unsigned long long)c->most_at, seconds(start, c->most_at));
    }
    fputs("],\n       \"energy\": [", out);
    any = false;
    for (size_t k = 0; k < dev->counter_count; k++) {
      const struct samples_counter *c = &dev->counters[k];
      if (!c->energy)
        continue;
      fputs(any ? ", {\"counter\": " : "{\"counter\": ", out);
      any = true;
      units_json_string(out, c->name);
      fprintf(out, ", \"joules\": %.17g, \"over_s\": %.6f}", c->joules,
              seconds(c->first, c->last));
    }
    fputs("]}", out);
  }
  fputs("],\n    \"not_sampled\": [", out);
  for (size_t i = 0; i < r->unavailable_count; i++) {
    fputs(i ? ", " : "", out);
    units_json_string(out, r->unavailable[i]);
  }
  fputs("]}", out);
}

static void print_json(const void *report, FILE *out) { samples_print_json(report, out); }

static int open_samples(const struct output_context *c, void **state,
                        struct trace_consumer *consumer, struct timeline_sink *sink,
                        struct diag *d) {
  (void)c;
  (void)sink;
  struct samples_state *s = calloc(1, sizeof *s);
  if (!s)
    return diag_error(d, "Cannot read the device counters: out of memory");
  if (samples_open(&s->samples, consumer, d)) {
    free(s);
    return -1;
  }
  *state = s;
  return 0;
}

static int finish_samples(struct output_context *c, void *state, struct diag *d) {
  struct samples_state *s = state;
  int rc = samples_close(s->samples, &s->report, d);
  s->samples = NULL;
  s->finished = rc == 0;
  bool any = s->report.device_count || s->report.unavailable_count;
  if (s->finished && any && c->request->json && c->addition_count < OUTPUT_ADDITIONS)
    c->additions[c->addition_count++] =
        (struct tally_addition){"samples", print_json, NULL, &s->report};
  return rc;
}

static int close_samples(const struct output_context *c, void *state, struct diag *d) {
  (void)d;
  struct samples_state *s = state;
  if (!s)
    return -1;
  if (s->finished && !c->request->json)
    samples_print_text(&s->report, c->request->out);
  if (s->samples) { /* never finished */
    struct samples_report ignored;
    samples_close(s->samples, &ignored, d);
    samples_free(&ignored);
  }
  samples_free(&s->report);
  free(s);
  return 0;
}

const struct output samples_output = {
    .name = "samples",
    .kind = OUTPUT_REPORT,
    .option = "none: after the text tables, or in -j's JSON, when the trace holds device "
              "counters (--sample)",
    .input = OUTPUT_READS_EVENTS,
    .reads = "the sampler's readings of device counters",
    .asked = asked,
    .open = open_samples,
    .finish = finish_samples,
    .close = close_samples,
};
