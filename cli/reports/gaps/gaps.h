/* gaps: the verdict a user would otherwise look for by eye in the timeline: per device
 * (each GPU its own, named as device_label.h says),
 * how busy it was over the run (and each of its queues), how long copies ran while
 * kernels ran, and its longest idle gaps with the host call that was in progress.
 *
 * A consumer of the read in time order (trace_consumer.h), sharing the one read with
 * the other reports. Device commands are recorded when they complete, so they come
 * nearly in start order: they are put back in order through a bounded reorder heap, and
 * taken from it once they started well before the read position (twice the latest
 * lateness seen, at least GAPS_MARGIN_NS) or when it is full. Calls come when they
 * return; those that ended after the earliest a gap still to come can start are kept
 * (GAPS_HISTORY at most), so that a gap found after its calls were read still finds the
 * call the host was in. Memory grows with devices and queues, never with the trace's
 * length (the history: 48 bytes a call, 12 MiB at most).
 *
 * The answer is the one of the two-step way (every command in start order first, then
 * every call): when a command comes later than the margin allowed (out of start order
 * on its device), or a gap's middle is older than the calls kept, the gaps ask the
 * reader for the trace again and are worked out that way (a second, and a third, pass,
 * for them alone; bench/RESULTS.md).
 *
 * Busy time is the union of a device's (or queue's) commands; overlap is
 * |kernels| + |copies| - |kernels or copies| on one device. A gap is a span between
 * two commands of a device where none ran. What the host was in: the innermost traced
 * call of that host's processes in progress at the gap's middle; none means the app's
 * own code (or a call of an API that is not traced). */
#ifndef TRACER_GAPS_H
#define TRACER_GAPS_H

#include <stdio.h>

#include "device_label.h"
#include "diag.h"
#include "trace_consumer.h"

enum { GAPS_KEPT = 5, GAPS_HISTORY = 1 << 18 };
/* Commands are taken in start order this long after their start at least: one that
 * comes later (a long kernel on another queue, recorded when it ends) sends the gaps to
 * the two-step way, and a longer margin keeps more calls. */
#define GAPS_MARGIN_NS 5000000ull /* 5 ms */

struct gap {
  uint64_t start, end;         /* ns, trace clock */
  char host_call[128];         /* "" when the host was in no traced call */
  int64_t host_pid, host_tid;
  uint64_t call_length;        /* of host_call; for the innermost choice */
};

struct gap_queue {
  uint64_t id, busy, commands;
  int64_t pid;                 /* the process the queue belongs to */
};

struct gap_device {
  char *host;                  /* owned */
  const char *backend;         /* static */
  int ordinal;                 /* the device's in its backend, -1 when the trace says none */
  char label[DEVICE_LABEL_SIZE]; /* device_label(): "GPU 0: NVIDIA H100 80GB HBM3" */
  uint64_t busy, kernels, copies, overlap, commands;
  uint64_t communication;      /* of kernels: NCCL's and RCCL's (hta_is_communication) */
  struct gap_queue *queues;    /* owned */
  size_t queue_count;
  struct gap gaps[GAPS_KEPT];  /* longest first */
  size_t gap_count;
};

struct gap_report {
  uint64_t run_start, run_end; /* first and last event of the trace, ns */
  struct gap_device *devices;  /* owned */
  size_t device_count;
};

struct gaps;

/* The analysis as a consumer of the read (needs time order and times). Returns 0, or -1
 * with a cause in d. */
int gaps_open(struct gaps **gaps, struct trace_consumer *consumer, struct diag *d);
/* After the read: its report into *report (gaps_free), and frees the analysis. Returns
 * 0, or -1 with a cause in d when out of memory (what could be worked out is there). */
int gaps_close(struct gaps *gaps, struct gap_report *report, struct diag *d);
void gaps_print_text(const struct gap_report *report, FILE *out);
void gaps_free(struct gap_report *report);

#endif
