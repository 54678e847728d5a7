/* diff: `tracer diff [-j] [-o FILE] A B`: two runs compared (cli/reports/diff/run_diff.h):
 * each a saved trace, read through the one reader by the tally and the steps finder, an
 * MPI job's folder, through its ranks' results (node_gather.h) and their traces' steps
 * (job_steps.h), or a JSON result of either (result_json.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "job_folder.h"
#include "job_steps.h"
#include "log.h"
#include "node_gather.h"
#include "result_json.h"
#include "run_diff.h"
#include "steps.h"
#include "tally.h"
#include "trace_reader.h"

struct loaded {
  struct diff_run run;
  struct tally tally;        /* a trace's */
  struct job_result job;     /* a job's */
  struct result_json result; /* a JSON result's */
  bool is_job, has_tally, is_json;
};

/* The step figures of a job: per step its slowest rank's time (job_steps.h), from the
 * ranks' traces; none when none of them has steps (or only results were kept). */
static void job_steps_of(const char *path, unsigned threads, struct diff_run *run) {
  struct job_steps_request asked = {path, NULL, NULL, threads};
  struct job_steps steps;
  struct diag d;
  diag_init(&d);
  if (job_steps_read(&asked, &steps, &d) == 0 && steps.step_count) {
    uint64_t *ns = calloc(steps.step_count, sizeof *ns);
    for (size_t k = 0; ns && k < steps.step_count; k++)
      ns[k] = steps.by_step[k].slowest_ns;
    if (ns)
      diff_run_steps(run, ns, steps.step_count, steps.what);
    free(ns);
  }
  diag_clear(&d);
  job_steps_free(&steps);
}

/* The step figures of a trace: the first process with steps (a job compares its ranks'
 * slowest: job_steps_of). */
static void trace_steps_of(struct trace_reader *reader, unsigned threads, struct diff_run *run) {
  struct steps steps;
  struct diag d;
  diag_init(&d);
  if (steps_find(reader, NULL, threads, &steps, &d) == 0) {
    for (size_t i = 0; i < steps.count; i++) {
      const struct steps_process *p = &steps.processes[i];
      if (!p->count)
        continue;
      uint64_t *ns = malloc(p->count * sizeof *ns);
      for (size_t k = 0; ns && k < p->count; k++)
        ns[k] = p->steps[k].ns;
      if (ns)
        diff_run_steps(run, ns, p->count, p->what);
      free(ns);
      break;
    }
  }
  steps_free(&steps);
  diag_clear(&d);
}

/* A JSON result (tracer -j's, a job's -j report) into l. Returns 0, or an exit status. */
static int load_json(const char *path, struct loaded *l) {
  struct diag d;
  diag_init(&d);
  enum result_json_status st = result_json_read(path, &l->result, &d);
  l->is_json = true;
  if (st != RESULT_JSON_READ) {
    char chain[1024];
    diag_join(&d, chain, sizeof chain);
    if (st == RESULT_JSON_BAD) /* its cause names the file */
      log_error("%s", chain);
    else
      log_error("Cannot compare %s: %s", path, chain);
    diag_clear(&d);
    return st == RESULT_JSON_BAD ? TRACER_EXIT_USAGE : TRACER_EXIT_ANALYSIS;
  }
  diag_clear(&d);
  if (l->result.left_out)
    log_warn("%s: %zu rows of backends or functions this tracer does not know are left out",
             path, l->result.left_out);
  l->run.tally = &l->result.tally;
  if (l->result.step_count)
    diff_run_steps(&l->run, l->result.step_ns, l->result.step_count, l->result.steps_what);
  return 0;
}

/* Reads path into l. Returns 0, or an exit status (said). */
static int load(const char *path, unsigned threads, struct loaded *l) {
  memset(l, 0, sizeof *l);
  l->run.path = path;
  struct stat st;
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
    return load_json(path, l);
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
    log_error("Cannot compare %s: not a trace folder, an MPI job's folder or a JSON result "
              "(tracer diff reads saved traces, jobs and tracer -j's results)",
              path);
    return TRACER_EXIT_USAGE;
  }
  struct diag d;
  diag_init(&d);
  if (job_folder_is_job(path)) {
    l->is_job = true;
    struct node_gather_report got;
    if (job_result_init(&l->job) || node_gather_job(path, NULL, 0, 0, threads, &l->job, &got)) {
      log_error("Cannot compare %s: no rank's result or trace could be read", path);
      return TRACER_EXIT_ANALYSIS;
    }
    l->run.tally = &l->job.tally;
    job_steps_of(path, threads, &l->run);
    return 0;
  }
  struct trace_reader *reader;
  if (trace_reader_open(path, &reader, &d)) {
    char chain[1024];
    log_error("Cannot compare %s: Cannot read the trace: %s", path,
              diag_join(&d, chain, sizeof chain));
    diag_clear(&d);
    return TRACER_EXIT_ANALYSIS;
  }
  struct trace_read_options options = {.threads = threads};
  int rc = 0;
  l->has_tally = true; /* freed whatever the read's outcome */
  if (tally_trace(reader, &options, false, &l->tally, &d)) {
    char chain[1024];
    log_error("Cannot compare %s: %s", path, diag_join(&d, chain, sizeof chain));
    rc = TRACER_EXIT_ANALYSIS;
  } else {
    l->run.tally = &l->tally;
    trace_steps_of(reader, threads, &l->run);
  }
  diag_clear(&d);
  trace_reader_close(reader);
  return rc;
}

static void unload(struct loaded *l) {
  if (l->has_tally)
    tally_free(&l->tally);
  if (l->is_job)
    job_result_free(&l->job);
  if (l->is_json)
    result_json_free(&l->result);
}

int command_diff(const struct tracer_options *o, const char *a_path, const char *b_path) {
  struct loaded a, b;
  int rc = load(a_path, o->threads, &a);
  if (rc) {
    unload(&a);
    return rc;
  }
  if ((rc = load(b_path, o->threads, &b))) {
    unload(&a);
    unload(&b);
    return rc;
  }
  if (!diff_comparable(&a.run, &b.run)) {
    log_error("Cannot compare %s with %s: they have no backend in common (each traced other "
              "APIs)",
              a_path, b_path);
    rc = TRACER_EXIT_USAGE;
  } else {
    FILE *out = o->output ? fopen(o->output, "w") : stdout;
    if (!out) {
      log_error("Cannot write the comparison: file=%s", o->output);
      rc = TRACER_EXIT_ANALYSIS;
    } else {
      if (o->json)
        diff_print_json(&a.run, &b.run, out);
      else
        diff_print_text(&a.run, &b.run, out);
      if (out != stdout && fclose(out) != 0) {
        log_error("Cannot write the comparison: file=%s", o->output);
        rc = TRACER_EXIT_ANALYSIS;
      }
    }
  }
  unload(&a);
  unload(&b);
  return rc;
}
