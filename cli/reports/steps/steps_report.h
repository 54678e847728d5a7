/* steps_report: the steps table (`--steps`, docs/steps.md): per process (rank) its steps
 * (steps.h), their count, median, least and most time and the slowest by number, and per
 * step HTA's definitions (hta.h) applied to the step: on each GPU of the process, over
 * the step's time, compute (the union of its compute kernels), communication (of its
 * NCCL/RCCL kernels, outside compute), copies (outside both), idle (the rest), of it host
 * wait (idle gaps whose next command was submitted by a call that started after the GPU
 * had run dry), and communication/computation overlap; and the host time of the calls
 * the specs call collectives (trace.messages) that started in the step. A command counts
 * in a step for the part of it inside the step (clipped).
 *
 * A consumer of the read in any order (stream by stream, forked and joined): it keeps
 * each device command (32 bytes) and each collective call's start and time, and works
 * the table out at the end.
 */
#ifndef TRACER_STEPS_REPORT_H
#define TRACER_STEPS_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "device_label.h"
#include "diag.h"
#include "steps.h"
#include "trace_consumer.h"
#include "verdict.h"

/* One step on one GPU (or on none: the host's figures only). Times in ns. */
struct steps_row {
  unsigned number;
  const char *name;          /* borrowed from the steps */
  uint64_t ns;
  uint64_t compute, communication, copies, idle, host_wait;
  uint64_t comm_overlap, comm_all; /* |comm ∩ compute|, |comm| */
  uint64_t kernels;
  uint64_t collectives_ns;   /* host time of collective calls started in the step */
};

struct steps_table {
  const struct steps_process *process; /* borrowed */
  char gpu[DEVICE_LABEL_SIZE];         /* "GPU 0"; "" for the host's table */
  struct steps_row *rows;              /* owned; by step number */
  size_t count;
  uint64_t median, least, most;
  unsigned least_step, most_step;
  unsigned slowest[5];                 /* the slowest steps' numbers, slowest first */
  size_t slowest_count;
};

struct steps_report {
  struct steps_table *tables; /* owned */
  size_t count;
  const struct steps *steps;  /* borrowed */
  /* What the verdict weighs over the steps alone: the longest process's steps as the
   * run's time, the host's depth-0 calls started in a step, the GPUs' busy time in
   * the steps (has_verdict: any step). */
  struct verdict_inputs verdict;
  bool has_verdict;
};

struct steps_reading;

/* The consumer over the steps found (borrowed until steps_read_close). Returns 0, or -1
 * with a cause in d. */
int steps_read_open(const struct steps *steps, struct steps_reading **reading,
                    struct trace_consumer *consumer, struct diag *d);
/* After the read: the tables into *report (steps_report_free); frees the reading.
 * Returns 0, or -1 with a cause in d when out of memory. */
int steps_read_close(struct steps_reading *reading, struct steps_report *report,
                     struct diag *d);

/* The text: a table per process and GPU, or the line that says no region repeats and
 * how to mark steps. */
void steps_print_text(const struct steps_report *report, FILE *out);
/* The tables alone, without the title (a job's, rank by rank). */
void steps_print_tables(const struct steps_report *report, FILE *out);
/* The JSON value of the tally's "steps" member. */
void steps_print_json(const struct steps_report *report, FILE *out);
/* Its tables alone, as entries of that list (a job's, rank by rank), after *printed
 * entries (counted on). */
void steps_print_json_tables(const struct steps_report *report, size_t *printed, FILE *out);
void steps_report_free(struct steps_report *report);

#endif
