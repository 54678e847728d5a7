/* output: what a report or an export is to a run of the tracer's analyses, the interface
 * every one implements (a plug-in) and the registry lists (cli/analysis/registry.c, one
 * line each).
 *
 * A report prints on the analysis output (the tally's tables, -t, the gaps); an export
 * writes a file for another tool (the timeline's Perfetto and JSON files, the tally as
 * CSV). Each says the option that asks for it and what it consumes:
 *   - OUTPUT_READS_EVENTS: the trace's records; it gives the read a consumer
 *     (trace_consumer.h), and the trace is read once for all of them;
 *   - OUTPUT_READS_TALLY: the finished tally (tally.h), made when one of them asks;
 *   - OUTPUT_READS_TIMELINE: the timeline's tracks and slices; it gives the timeline
 *     writer a sink (timeline_sink.h), and the timeline is built when one of them asks.
 * A run (cli/analysis/analysis.h) opens those asked, reads the trace once and closes them in the
 * registry's order, which is the order in which reports print.
 *
 * Outputs never print messages: a failure is a cause added to d (a whole sentence, the
 * run reports each on its own line), what they made goes into the analysis_result.
 */
#ifndef TRACER_OUTPUT_H
#define TRACER_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "trace_reader.h"

struct event_map;
struct gap_report;
struct run_record;
struct steps;
struct tally;
struct tally_addition;
struct timeline_sink;
struct trace_consumer;
struct verdict_inputs;

/* What one analysis of a trace is asked for: the options that choose and shape its
 * reports and exports. */
struct analysis_request {
  const char *trace_dir;
  FILE *out;                     /* the reports' stream */
  const struct run_record *run;  /* how the app ended; may be NULL */
  bool text;                     /* -t: every call instead of the tables */
  bool json;                     /* -j: the tables as JSON */
  bool extended;                 /* -e: the tables per actor too */
  bool full_names;               /* --full-names: kernel names whole in the text tables */
  bool rank_view;                /* --ranks: a launcher's ranks' times (job/rank_view.c) */
  unsigned ranks_pct;            /* --ranks=PCT: a straggler is over the median by more */
  unsigned threads;              /* for reading stream by stream (0: one per core) */
  const char *timeline_path;     /* -l: the .pftrace to write; NULL: no timeline */
  const char *timeline_json_path; /* --timeline-format json: the JSON; NULL: none */
  uint64_t timeline_split;       /* --timeline-split (0: the default) */
  const char *app_name;          /* shown with process ids in the timeline; may be NULL */
  const char *csv_path;          /* --csv: the tally as CSV; NULL: none */
  const char *otf2_path;         /* --otf2: the OTF2 archive's folder; NULL: none */
  const char *flame_path;        /* --flame: the folded stacks (device time); NULL: none */
  /* --runtime-calls, now or when the run was made: a library's own calls, made inside
   * another backend's traced calls, count as the app's (tally.runtime_calls). */
  bool runtime_calls;
  /* The part of the run to analyse (cli/reports/steps/window_build.h): its parts; all
   * NULL and false for the whole run. */
  const char *window;            /* --window NAME|PATTERN */
  bool skip_asked;               /* --skip-steps N */
  unsigned skip_steps;
  const char *from, *to;         /* --from, --to: seconds or region names */
  bool steps;                    /* --steps: the steps table */
  const char *steps_pattern;     /* --steps PATTERN; NULL: the outermost repeating region */
  /* While the trace is read: how far (trace_read_options.progress); NULL: nothing. */
  void (*progress)(void *context, uint64_t done, uint64_t total, bool finished);
  void *progress_context;
};

/* What a run made, for the command's messages. */
struct analysis_result {
  bool timeline;                 /* a timeline was written: */
  uint64_t slices, flows, counter_values, bytes;
  unsigned parts;                /* Perfetto files (more than 1: split, with a summary) */
  char timeline_left_out[1024];  /* written, but part of the trace could not be read: the
                                    read's error ("": none) */
  bool csv;                      /* the CSV was written */
  struct trace_read_report read; /* how the trace was read (its one read) */
  bool flame;                    /* the folded stacks were written: */
  uint64_t flame_device_lines, flame_host_lines;
  bool otf2;                     /* the OTF2 archive was written: */
  uint64_t otf2_locations, otf2_events;
  /* Packets the trace should hold and does not (trace_reader.h: struct trace_losses):
   * those its index lists that its files lack, those never written (gaps in the packets'
   * sequence numbers), of them those the run record does not account for (lost while
   * recording: lost_packets, a full disk), and what to say of them, a line each
   * (missing_packets.h); an index that could not be used. */
  uint64_t missing_not_in_file, missing_not_written, missing_unexplained;
  char missing_text[4096];
  char missing_warning[512];
  /* The run record's values the trace contradicts, and what the report used instead
   * (one line; empty: none). */
  char run_record_note[512];
};

/* What a run hands its outputs. */
struct output_context {
  const struct analysis_request *request;
  const struct event_map *map;   /* the trace's */
  /* The steps found before the read (--steps, --skip-steps), else NULL; the window the
   * reader applies (trace_window.h), else NULL: every output sees only its records. */
  const struct steps *steps;
  const struct trace_window *window;
  const struct tally *tally;     /* at close, when made (an output reads it); else NULL */
  /* At close, when the gap report was worked out (a run with device work and the text
   * tables): the devices' use, for the outputs that print before it (the verdict). */
  const struct gap_report *gaps;
  /* At close, when --steps found steps: what the verdict weighs over them alone
   * (reports/steps/steps_report.h), for the verdict of a run whose start-up drowns its
   * steps. */
  const struct verdict_inputs *steps_verdict;
  /* At close: what reports add to the tally's tables and JSON (reports/tally/
   * tally_print.h), published by their finish (the collectives table); room for
   * OUTPUT_ADDITIONS. */
  struct tally_addition *additions;
  size_t addition_count;
  bool read_failed;              /* at close: the read stopped (out of memory, ...) */
  const char *read_error;        /* at close: the first error met reading, or NULL */
  struct analysis_result *result;
};

enum { OUTPUT_ADDITIONS = 6 };
enum output_kind { OUTPUT_REPORT, OUTPUT_EXPORT };
enum output_input { OUTPUT_READS_EVENTS, OUTPUT_READS_TALLY, OUTPUT_READS_TIMELINE };

struct output {
  const char *name;
  enum output_kind kind;
  const char *option;            /* what asks for it on the command line */
  enum output_input input;
  const char *reads;             /* what it takes from its input, in words */
  bool (*asked)(const struct analysis_request *request);
  /* Before the read: its state, and for READS_EVENTS its consumer, for READS_TIMELINE
   * its sink. NULL when it has nothing to open. Returns 0, or -1 with a cause in d. */
  int (*open)(const struct output_context *context, void **state,
              struct trace_consumer *consumer, struct timeline_sink *sink, struct diag *d);
  /* After the reads, before any output closes: works out what it made, and may publish
   * it in context for the others (the gaps: their report). NULL when there is nothing to
   * work out apart from printing. Returns 0, or -1 with a cause in d. */
  int (*finish)(struct output_context *context, void *state, struct diag *d);
  /* After every finish, in the registry's order: prints or writes what it made and
   * frees its state (NULL when its open failed). Returns 0, or -1 with a cause in d. */
  int (*close)(const struct output_context *context, void *state, struct diag *d);
  /* For a consumer that needs time order but has something to say only on condition
   * (the gaps: a run with device work), NULL for the others. When no other output of
   * the run reads in time order, the others read first (stream by stream, on every
   * core), and it reads after them, alone, only when this says the tally calls for it.
   * When another reads in time order anyway, it shares that read. */
  bool (*worth_a_read)(const struct output_context *context);
};

/* The registry (cli/analysis/registry.c): every report and export, NULL-terminated. */
extern const struct output *const outputs[];

#endif
