/* analysis: see analysis.h. */
#include "analysis.h"

#include <stdlib.h>
#include <string.h>

#include "missing_packets.h"
#include "run_record.h"
#include "steps.h"
#include "tally.h"
#include "tally_print.h"
#include "units.h"
#include "timeline.h"
#include "timeline_build.h"
#include "timeline_sink.h"
#include "units.h"
#include "trace_reader.h"
#include "window_build.h"

/* The tally's JSON "window" member: what the window is and each process's part. */
static void window_json(const void *product, FILE *out) {
  const struct trace_window *w = product;
  fputs("{\"label\": ", out);
  units_json_string(out, w->label);
  fprintf(out, ", \"longest_ns\": %llu, \"processes\": [",
          (unsigned long long)trace_window_longest_ns(w));
  for (size_t i = 0; i < w->count; i++)
    fprintf(out, "%s{\"pid\": %lld, \"ns\": %llu, \"ranges\": %zu}", i ? ", " : "",
            (long long)w->processes[i].pid, (unsigned long long)w->processes[i].ns,
            w->processes[i].count);
  fputs("]}", out);
}

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
      /* Written whole from what could be read: the read's error (which the tables and
       * -t report) is what it leaves out. */
      if (read_error)
        snprintf(result->timeline_left_out, sizeof result->timeline_left_out, "%s",
                 read_error);
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

/* The run record's wall time against the trace: no call (nor device command) is longer
 * than the app's run, nor do a backend's calls take more than all its threads' time (twice
 * over, for calls nested in others of their backend). A record that says otherwise is
 * damaged (or the app left children that traced on): the report then goes by the span
 * of the trace's packets. */
static void check_wall(const struct tally *t, const struct trace_losses *packets,
                       struct run_record *run, struct analysis_result *result) {
  if (!run->wall_ns)
    return;
  const uint64_t slack = 1000000; /* 1 ms: the tracer's and the trace's clocks */
  uint64_t longest = 0, worst_share_ns = 0;
  for (size_t i = 0; i < t->backend_count; i++) {
    const struct tally_backend *b = &t->backends[i];
    uint64_t host = 0;
    for (uint32_t f = 0; f < b->function_count; f++) {
      host += b->host[f].total;
      longest = b->host[f].max > longest ? b->host[f].max : longest;
    }
    for (size_t k = 0; k < b->device_count; k++)
      longest = b->device[k].time.max > longest ? b->device[k].time.max : longest;
    uint64_t threads = b->threads.len ? b->threads.len : 1;
    if (host > 2 * threads * run->wall_ns + slack && host / threads > worst_share_ns)
      worst_share_ns = host / threads;
  }
  if (longest <= run->wall_ns + slack && !worst_share_ns)
    return;
  uint64_t span = packets->end_ns > packets->start_ns ? packets->end_ns - packets->start_ns : 0;
  char line[16] = "", wall[32], held[32], used[32];
  if (run->wall_ns_line)
    snprintf(line, sizeof line, ":%u", run->wall_ns_line);
  units_time(run->wall_ns, wall, sizeof wall);
  units_time(worst_share_ns ? worst_share_ns : longest, held, sizeof held);
  units_time(span, used, sizeof used);
  snprintf(result->run_record_note, sizeof result->run_record_note,
           "%.300s%s: Cannot use wall_ns %llu (%s): %s %s%s; the report uses the span of the "
           "trace's packets, %s",
           run->path, line, (unsigned long long)run->wall_ns, wall,
           worst_share_ns ? "the trace's calls take" : "a call in the trace takes", held,
           worst_share_ns ? " per thread" : "", used);
  run->wall_ns = span;
}

/* The packets the trace should hold and does not: for the tables (the tally's), and for
 * the command, what to say and whether the run record accounts for them. */
static void note_missing(struct trace_reader *reader, const struct run_record *run,
                         struct tally *tally, struct analysis_result *result) {
  trace_reader_estimate_losses(reader);
  const struct trace_losses *losses = trace_reader_losses(reader);
  snprintf(result->missing_warning, sizeof result->missing_warning, "%s", losses->warning);
  if (!losses->count)
    return;
  if (tally)
    tally->missing = losses;
  result->missing_not_in_file = losses->not_in_file;
  result->missing_not_written = losses->not_written;
  /* Packets the consumer never wrote are the recording's loss when the run record says
   * so (its consumer's lost packets, a full file system); packets written and gone from
   * the files are the trace's damage since. */
  bool recorded = run && run->present &&
                  (run->lost_packets >= losses->not_written ||
                   run->partial_reason == RUN_PARTIAL_DISK_FULL);
  result->missing_unexplained = losses->not_in_file + (recorded ? 0 : losses->not_written);
  missing_packets_describe(losses, result->missing_text, sizeof result->missing_text);
}

enum analysis_status analysis_run(const struct analysis_request *given,
                                  struct analysis_result *result, struct diag *d) {
  memset(result, 0, sizeof *result);
  /* The outputs see the run record once checked against the trace (check_wall). */
  struct run_record run = given->run ? *given->run : (struct run_record){0};
  struct analysis_request checked = *given;
  checked.run = given->run ? &run : NULL;
  const struct analysis_request *request = &checked;
  struct trace_reader *reader;
  unsigned mark = d->count;
  if (trace_reader_open(request->trace_dir, &reader, d)) {
    fold_causes(d, mark, "Cannot read the trace");
    return ANALYSIS_NO_TRACE;
  }
  /* The window, and the steps it or the steps table asks for: found in a read of their
   * own, before the one the outputs share, which then hands out only the window. */
  struct steps steps = {0};
  struct trace_window window = {0};
  struct window_request wanted = {request->window, request->skip_asked, request->skip_steps,
                                  request->from, request->to};
  bool want_steps = request->steps || request->skip_asked;
  if (want_steps || window_requested(&wanted)) {
    int wrc = steps_find(reader, request->steps_pattern, request->threads, &steps, d);
    if (wrc == 0 && request->steps_pattern && !steps_total(&steps, NULL)) {
      diag_error(d, "Cannot find the steps: no region of the run matches --steps %s",
                 request->steps_pattern);
      wrc = WINDOW_BAD_INPUT;
    }
    if (wrc == 0 && window_requested(&wanted))
      wrc = window_build(&wanted, &steps, &window, d);
    if (wrc) {
      steps_free(&steps);
      trace_reader_close(reader);
      return wrc == WINDOW_BAD_INPUT ? ANALYSIS_BAD_WINDOW : ANALYSIS_FAILED;
    }
    if (window.count)
      trace_reader_set_window(reader, &window);
  }
  size_t count = 0;
  while (outputs[count])
    count++;
  struct opened *opened = calloc(count + 1, sizeof *opened);
  const struct trace_consumer **consumers = calloc(count + 3, sizeof *consumers);
  struct trace_consumer *owned = calloc(count + 3, sizeof *owned);
  struct timeline_product timeline = {.sinks = calloc(count + 1, sizeof *timeline.sinks)};
  struct tally tally;
  bool tally_made = false;
  bool window_empty = false;
  struct analysis_request quiet_request;
  FILE *nowhere = NULL;
  size_t consumer_count = 0, asked = 0;
  int failures = 0;
  struct tally_addition additions[OUTPUT_ADDITIONS];
  struct output_context context = {.request = request, .map = trace_reader_map(reader),
                                    .steps = want_steps ? &steps : NULL,
                                    .window = window.count ? &window : NULL,
                                    .additions = additions, .result = result};
  if (window.count)
    additions[context.addition_count++] =
        (struct tally_addition){"window", window_json, NULL, &window};
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
    tally.runtime_calls = request->runtime_calls;
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
  note_missing(reader, request->run, tally_made ? &tally : NULL, result);
  if (tally_made && request->run)
    check_wall(&tally, trace_reader_losses(reader), &run, result);
  /* A window that holds no record of the run: said in one line, and no table printed
   * that would look like a result. */
  if (window.count && tally_made && status != TRACE_READ_FAILED) {
    window_empty = !tally_has_device_work(&tally) && !tally.regions.count;
    for (size_t i = 0; i < tally.backend_count && window_empty; i++)
      window_empty = tally.backends[i].events == 0;
  }
  if (window_empty && (nowhere = fopen("/dev/null", "w"))) {
    quiet_request = *request;
    quiet_request.out = nowhere;
    context.request = &quiet_request;
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
  char label[sizeof window.label];
  memcpy(label, window.label, sizeof label);
  steps_free(&steps);
  trace_window_free(&window);
  if (nowhere)
    fclose(nowhere);
  free(opened);
  free(consumers);
  free(owned);
  trace_reader_close(reader);
  if (window_empty) {
    diag_error(d, "Cannot apply the window: it holds no record of the run (%s)",
               label[0] ? label : "the window asked");
    return ANALYSIS_BAD_WINDOW;
  }
  return failures || d->count > mark ? ANALYSIS_FAILED : ANALYSIS_OK;
}
