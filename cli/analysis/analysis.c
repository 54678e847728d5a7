/* analysis: see analysis.h. */
#include "analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_record.h"
#include "tally.h"
#include "tally_print.h"
#include "timeline.h"
#include "timeline_build.h"
#include "timeline_sink.h"
#include "trace_reader.h"

/* One output of the registry, as this run has it. */
struct opened {
  const struct output *output;
  void *state;
  bool failed;         /* its open failed: closed with no state */
  struct trace_consumer consumer; /* READS_EVENTS */
  bool deferred;       /* reads after the others, if worth it (output.worth_a_read) */
};

/* The timeline, when an output writes it: the writer over the sinks, and its builder. */
struct timeline_product {
  struct timeline_sink *sinks; /* handed to the writer once it opens */
  size_t sink_count;
  struct timeline *tl;
  struct timeline_builder *builder;
  struct timeline_build_options options;
};

/* One failure, one line: the chain of d's causes from `from` on (innermost first), joined
 * into one cause, under prefix when not NULL. */
static void fold_causes(struct diag *d, unsigned from, const char *prefix) {
  if (d->count <= from)
    return;
  struct diag tail = {0};
  for (unsigned i = from; i < d->count; i++)
    tail.causes[tail.count++] = d->causes[i];
  d->count = from;
  char chain[2048];
  diag_join(&tail, chain, sizeof chain);
  diag_error(d, "%s%s%s", prefix ? prefix : "", prefix ? ": " : "", chain);
  diag_clear(&tail);
}

static int open_timeline(struct timeline_product *t, const struct analysis_request *request,
                         struct trace_consumer *consumer, struct diag *d) {
  unsigned mark = d->count;
  t->options = (struct timeline_build_options){.app_name = request->app_name};
  int rc = timeline_open(t->sinks, t->sink_count, &t->tl);
  t->sink_count = 0; /* the writer has them now */
  if (rc) {
    diag_error(d, "%s", t->tl ? timeline_error(t->tl) : "out of memory");
  } else if (timeline_builder_open(t->tl, &t->options, &t->builder, consumer, d)) {
    rc = -1;
  }
  fold_causes(d, mark, "Cannot write the timeline");
  return rc;
}

static void close_timeline(struct timeline_product *t, const char *read_error,
                           struct analysis_result *result, struct diag *d) {
  unsigned mark = d->count;
  bool failed = false;
  if (t->builder) {
    /* The writer's own message wins over the read's. */
    struct diag built;
    diag_init(&built);
    failed = timeline_builder_close(t->builder, &built) != 0;
    if (failed)
      diag_error(d, "%s", built.count ? built.causes[built.count - 1].message : "");
    else if (read_error)
      diag_error(d, "%s", read_error);
    failed |= read_error != NULL;
    diag_clear(&built);
  }
  for (size_t i = 0; i < t->sink_count; i++) /* the writer never had them */
    t->sinks[i].ops->close(t->sinks[i].state, NULL, NULL, 0);
  if (t->tl) {
    struct timeline_stats stats;
    char message[512];
    if (timeline_close(t->tl, &stats, message, sizeof message)) {
      if (!failed)
        diag_error(d, "%s", message);
      failed = true;
    }
    if (!failed) {
      result->timeline = true;
      result->slices = stats.slices;
      result->flows = stats.flows;
      result->counter_values = stats.counter_values;
      result->bytes = stats.bytes;
      result->parts = stats.parts;
    }
  }
  fold_causes(d, mark, "Cannot write the timeline");
  free(t->sinks);
}

enum analysis_status analysis_run(const struct analysis_request *request,
                                  struct analysis_result *result, struct diag *d) {
  memset(result, 0, sizeof *result);
  struct trace_reader *reader;
  unsigned mark = d->count;
  if (trace_reader_open(request->trace_dir, &reader, d)) {
    fold_causes(d, mark, "Cannot read the trace");
    return ANALYSIS_NO_TRACE;
  }
  snprintf(result->unknown_backends, sizeof result->unknown_backends, "%s",
           trace_reader_map(reader)->unknown_backends);
  size_t count = 0;
  while (outputs[count])
    count++;
  struct opened *opened = calloc(count + 1, sizeof *opened);
  const struct trace_consumer **consumers = calloc(count + 3, sizeof *consumers);
  struct trace_consumer *owned = calloc(count + 3, sizeof *owned);
  struct timeline_product timeline = {.sinks = calloc(count + 1, sizeof *timeline.sinks)};
  struct tally tally;
  bool tally_made = false;
  size_t consumer_count = 0, asked = 0;
  int failures = 0;
  struct tally_addition additions[OUTPUT_ADDITIONS];
  struct output_context context = {.request = request, .map = trace_reader_map(reader),
                                    .additions = additions, .result = result};
  if (!opened || !consumers || !owned || !timeline.sinks) {
    diag_error(d, "Cannot analyse the trace: out of memory");
    failures++;
    goto done;
  }
  /* Which outputs, and what they consume. */
  bool wants_tally = false, wants_timeline = false;
  for (size_t i = 0; i < count; i++)
    if (outputs[i]->asked(request)) {
      opened[asked++].output = outputs[i];
      wants_tally |= outputs[i]->input == OUTPUT_READS_TALLY;
      wants_timeline |= outputs[i]->input == OUTPUT_READS_TIMELINE;
    }
  if (wants_tally) {
    if (tally_open(&tally, request->extended || request->rank_view, &owned[consumer_count])) {
      tally_free(&tally);
      diag_error(d, "Cannot analyse the trace: out of memory");
      failures++;
      goto done;
    }
    tally_made = true;
    consumers[consumer_count] = &owned[consumer_count];
    consumer_count++;
  }
  bool sink_failed = false, ordered = false;
  for (size_t i = 0; i < asked; i++) {
    const struct output *o = opened[i].output;
    struct timeline_sink sink = {0};
    unsigned before = d->count;
    if (o->open && o->open(&context, &opened[i].state, &opened[i].consumer, &sink, d)) {
      fold_causes(d, before, NULL); /* its causes, as one line */
      opened[i].failed = true;
      sink_failed |= o->input == OUTPUT_READS_TIMELINE;
      failures++;
      continue;
    }
    if (o->input == OUTPUT_READS_TIMELINE && sink.ops)
      timeline.sinks[timeline.sink_count++] = sink;
    if (o->input == OUTPUT_READS_EVENTS && opened[i].consumer.context && !o->worth_a_read)
      ordered |= (opened[i].consumer.needs & TRACE_NEEDS_ORDER) != 0;
  }
  ordered |= wants_timeline && timeline.sink_count && !sink_failed;
  /* A consumer that needs order for a conditional report shares an ordered read, or
   * waits for its own. */
  for (size_t i = 0; i < asked; i++) {
    if (opened[i].failed || opened[i].output->input != OUTPUT_READS_EVENTS ||
        !opened[i].consumer.context)
      continue;
    opened[i].deferred = opened[i].output->worth_a_read && !ordered;
    if (!opened[i].deferred) {
      owned[consumer_count] = opened[i].consumer;
      consumers[consumer_count] = &owned[consumer_count];
      consumer_count++;
    }
  }
  if (wants_timeline && timeline.sink_count && !sink_failed) {
    if (open_timeline(&timeline, request, &owned[consumer_count], d) == 0) {
      consumers[consumer_count] = &owned[consumer_count];
      consumer_count++;
    } else {
      failures++;
    }
  }
  /* The one read. */
  struct trace_read_options options = {.threads = request->threads,
                                       .report = &result->read,
                                       .progress = request->progress,
                                       .progress_context = request->progress_context};
  struct diag read;
  diag_init(&read);
  char read_error[1024] = "";
  enum trace_read_status status = consumer_count
                                      ? trace_read(reader, consumers, consumer_count, &options,
                                                   &read)
                                      : TRACE_READ_OK;
  if (status != TRACE_READ_OK)
    diag_join(&read, read_error, sizeof read_error);
  diag_clear(&read);
  context.read_failed = status == TRACE_READ_FAILED;
  context.read_error = read_error[0] ? read_error : NULL;
  if (tally_made) {
    /* The packets' counts say which stream lost what; the session's count (already
     * cleared of lttng-tools' 2^63 artefact) can be larger when the last losses of a
     * stream came after its last packet: the difference is reported unattributed. */
    if (request->run && request->run->discarded_events > tally.discarded)
      tally.discarded = request->run->discarded_events;
    context.tally = &tally;
  }
  /* The conditional ones that waited: a read of their own when worth it. */
  size_t later = 0;
  for (size_t i = 0; i < asked; i++)
    if (opened[i].deferred && opened[i].output->worth_a_read(&context))
      consumers[later++] = &opened[i].consumer;
  if (later) {
    diag_init(&read);
    struct trace_read_options quiet = {.threads = request->threads};
    if (trace_read(reader, consumers, later, &quiet, &read) != TRACE_READ_OK &&
        !read_error[0])
      diag_join(&read, read_error, sizeof read_error);
    diag_clear(&read);
    context.read_error = read_error[0] ? read_error : NULL;
  }
done:
  /* What each made, before any prints: an output may print from another's product. */
  for (size_t i = 0; opened && i < asked; i++) {
    unsigned before = d->count;
    if (opened[i].output->finish && !opened[i].failed &&
        opened[i].output->finish(&context, opened[i].state, d)) {
      fold_causes(d, before, NULL);
      failures++;
    }
  }
  for (size_t i = 0; opened && i < asked; i++) {
    unsigned before = d->count;
    if (opened[i].output->close &&
        opened[i].output->close(&context, opened[i].failed ? NULL : opened[i].state, d)) {
      fold_causes(d, before, NULL);
      failures++;
    }
  }
  close_timeline(&timeline, context.read_error, result, d);
  if (tally_made)
    tally_free(&tally);
  free(opened);
  free(consumers);
  free(owned);
  trace_reader_close(reader);
  return failures || d->count > mark ? ANALYSIS_FAILED : ANALYSIS_OK;
}
