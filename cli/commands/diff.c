/* diff: `tracer diff [-j] [-o FILE] A B`: two runs compared (cli/reports/diff/run_diff.h):
 * each a saved trace, read through the one reader by the tally and the steps finder, or
 * an MPI job's folder, through its ranks' results (node_gather.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "job_folder.h"
#include "log.h"
#include "node_gather.h"
#include "run_diff.h"
#include "steps.h"
#include "tally.h"
#include "trace_reader.h"

struct loaded {
  struct diff_run run;
  struct tally tally;      /* a trace's */
  struct job_result job;   /* a job's */
  bool is_job, has_tally;
};

/* Reads path into l. Returns 0, or an exit status (said). */
static int load(const char *path, unsigned threads, struct loaded *l) {
  memset(l, 0, sizeof *l);
  l->run.path = path;
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
    log_error("Cannot compare %s: not a trace folder or an MPI job's folder (tracer diff reads "
              "saved traces and jobs)",
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
  if (tally_trace(reader, &options, false, &l->tally, &d)) {
    char chain[1024];
    log_error("Cannot compare %s: %s", path, diag_join(&d, chain, sizeof chain));
    rc = TRACER_EXIT_ANALYSIS;
  } else {
    l->has_tally = true;
    l->run.tally = &l->tally;
    struct steps steps;
    diag_clear(&d);
    if (steps_find(reader, NULL, threads, &steps, &d) == 0) {
      /* The first process with steps (a job compares rank by rank: a folder of its own). */
      for (size_t i = 0; i < steps.count; i++) {
        const struct steps_process *p = &steps.processes[i];
        if (!p->count)
          continue;
        uint64_t *ns = malloc(p->count * sizeof *ns);
        for (size_t k = 0; ns && k < p->count; k++)
          ns[k] = p->steps[k].ns;
        if (ns)
          diff_run_steps(&l->run, ns, p->count, p->what);
        free(ns);
        break;
      }
      steps_free(&steps);
    }
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
}

int command_diff(const struct tracer_options *o, const char *a_path, const char *b_path) {
  struct loaded a, b;
  int rc = load(a_path, o->threads, &a);
  if (rc)
    return rc;
  if ((rc = load(b_path, o->threads, &b))) {
    unload(&a);
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
