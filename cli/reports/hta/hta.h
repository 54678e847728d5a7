/* hta: per rank (process) and GPU, the analyses Holistic Trace Analysis defines, as
 * docs/analysis-output.md gives them:
 *   - the temporal breakdown of the GPU's span (its first command's start to its last's
 *     end): compute (the union of its compute kernels), communication (of its
 *     communication kernels, NCCL's and RCCL's by name, outside compute), copies (outside
 *     both), idle (the span less the union of all three); the four add up to the span;
 *   - communication/computation overlap: |comm ∩ compute| / |comm|;
 *   - idle time split: host wait (the gap's next command was submitted by a call that
 *     started after the previous command ended: the device had run dry waiting for the
 *     host) and other;
 *   - kernel launch delay: a kernel's device start less its submitting call's end, its
 *     median, mean and most, and its outliers (over HTA_LAUNCH_OUTLIER_NS); a kernel
 *     submitted while its GPU was still busy with earlier commands is queued, not
 *     delayed: its delay is counted from when the GPU became free (only the time the GPU
 *     sat idle with the kernel ready counts).
 *
 * A consumer of the read (trace_consumer.h) in any order, stream by stream on several
 * threads: it keeps every command's times and submitting call (48 bytes a command) and
 * the calls that submit device work (32 bytes each: the spec's launches, copies and
 * commands), matched when the read is done. Commands without their call (CUPTI's)
 * count in the breakdown and as "other" idle, and not in the launch delay.
 */
#ifndef TRACER_HTA_H
#define TRACER_HTA_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "device_label.h"
#include "diag.h"
#include "trace_consumer.h"

#define HTA_LAUNCH_OUTLIER_NS 100000ull /* HTA's default launch delay cutoff: 100 us */

/* One rank's (process's) GPU. Times in ns. */
struct hta_gpu {
  char host[64];
  int64_t pid;
  long rank; /* the process's rank in a job (trace_rank), or -1 */
  char label[DEVICE_LABEL_SIZE]; /* "GPU 0: NVIDIA H100 80GB HBM3" */
  char short_label[32];          /* "GPU 0", for the tables (the device use names it) */
  uint64_t span, compute, communication, copies, idle;
  uint64_t comm_overlap; /* |comm ∩ compute| */
  uint64_t host_wait;    /* of idle */
  uint64_t kernels, commands;
  /* Launch delay of the kernels whose call is known (launched). */
  uint64_t launched, delay_outliers;
  int64_t delay_median, delay_mean, delay_max;
};

struct hta_report {
  struct hta_gpu *gpus; /* owned; by host, pid, then device */
  size_t gpu_count;
  size_t host_count; /* distinct hosts among them */
};

struct hta;

/* The analysis as a consumer of the read. Returns 0, or -1 with a cause in d. */
int hta_open(struct hta **hta, struct trace_consumer *consumer, struct diag *d);
/* After the read: the report (hta_free), and frees the analysis. Returns 0, or -1 with a
 * cause in d when out of memory. */
int hta_close(struct hta *hta, struct hta_report *report, struct diag *d);
void hta_print_text(const struct hta_report *report, FILE *out);
/* Adds count GPUs' rows to into (a job's, from its ranks), their rank set to rank unless
 * it is -1. Returns 0, or -1 when out of memory. */
int hta_append(struct hta_report *into, const struct hta_gpu *gpus, size_t count, long rank);
/* Orders the rows by host, process and device, and counts the hosts. */
void hta_sort(struct hta_report *report);
void hta_free(struct hta_report *report);

/* Whether a kernel's name marks it as communication (NCCL's, RCCL's). */
bool hta_is_communication(const char *kernel);

#endif
