/* verdict: the one or two lines that open a report: where the run's wall time went and
 * which bound the run is: a device (its kernels, its copies: transfers, or its
 * communication kernels: NCCL's collectives), communication (the host calls of a backend
 * whose calls move messages: MPI, NCCL, and calls that wait for a peer), a host API, or
 * none of the traced APIs.
 *
 * What a call's time is comes from the spec (trace.calls: waits_for, setup; the
 * generated tracer_function_desc.role), never from names here:
 *   - the calls that set up (cuInit, module loading, communicator creation) are set apart
 *     as start-up: the rules weigh the run after start-up;
 *   - the calls that wait for a device (cuCtxSynchronize, clFinish, ...) count for the
 *     devices, those that wait for a peer (MPI_Wait, a blocking ncclGroupEnd) for
 *     communication, not as host work;
 *   - only calls made at depth 0 count (a runtime call and the driver calls inside it
 *     once), so the host's parts of "Where the time went" add up to at most 100% on a
 *     thread.
 *
 * The rules, in order (docs/analysis-output.md#the-verdict), as shares of the run after
 * start-up: a device busy half of it or more (or the host waiting for devices that
 * long), and at least as much as any backend's host work, bounds it (by its
 * communication kernels when they took more than its other kernels, by its copies when
 * they were busier than its kernels); else communication taking a quarter or more, and
 * at least any other backend's host work; else the host work of a backend taking a
 * quarter or more; else none of the traced APIs. The run's time is the window's (the
 * longest process's part) when one was asked, else the app's wall time (the run
 * record's), else the trace's span.
 */
#ifndef TRACER_VERDICT_H
#define TRACER_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gap_report;
struct run_record;
struct tally;
struct trace_window;
struct tracer_backend_desc;

enum verdict_bound {
  VERDICT_UNKNOWN,        /* no wall time to compare with */
  VERDICT_NONE,           /* none of the traced APIs */
  VERDICT_HOST_API,
  VERDICT_COMMUNICATION,
  VERDICT_DEVICE,
  VERDICT_TRANSFERS,
  VERDICT_DEVICE_COMMUNICATION, /* a device's communication kernels */
  VERDICT_DEVICE_WAITS,   /* the host waiting for the devices (more than they were seen busy) */
};

struct verdict {
  enum verdict_bound bound;
  uint64_t wall_ns;       /* the run's (or the window's) time */
  uint64_t startup_ns;    /* of it, set-up calls */
  uint64_t wait_device_ns, wait_peer_ns; /* calls waiting for devices, for peers */
  const char *what;       /* the backend's or device's name in the verdict line */
  double share;           /* of the time after start-up, 0..1, for `what` */
};

/* What the rules weigh, from the tally and the devices' use, or from the steps
 * (steps_report.h): a backend's host work and the devices' busy time. */
enum { VERDICT_BACKENDS = 32, VERDICT_DEVICES = 32 };
struct verdict_inputs {
  uint64_t wall_ns, startup_ns, wait_device_ns, wait_peer_ns;
  struct verdict_backend {
    const struct tracer_backend_desc *desc;
    uint64_t work_ns;     /* its depth-0 calls that neither wait nor set up */
    bool communicates;    /* its calls move messages (trace.messages) */
  } backends[VERDICT_BACKENDS];
  size_t backend_count;
  struct verdict_device {
    char name[160];       /* "GPU 0: NVIDIA H100 on node1" */
    uint64_t busy, kernels, copies, communication;
  } devices[VERDICT_DEVICES];
  size_t device_count;
};

/* Adds from's host figures (not its devices or wall) into into. */
void verdict_merge(struct verdict_inputs *into, const struct verdict_inputs *from);
/* The verdict of what inputs says (the rules above). */
void verdict_weigh(const struct verdict_inputs *in, struct verdict *v);
/* The lines "Where the time went" and "Verdict", with a title ("" or " over the steps"). */
void verdict_print_inputs(const struct verdict_inputs *in, const char *title, FILE *out);
/* Adds a backend's depth-0 time of function f (its role from the spec). */
void verdict_add_call(struct verdict_inputs *in, const struct tracer_backend_desc *desc,
                      uint32_t f, uint64_t ns);

/* The verdict of a run: tally and run are required (run may lack a wall time), gaps may
 * be NULL (no device work, or not worked out), window NULL for the whole run. */
void verdict_make(const struct tally *tally, const struct run_record *run,
                  const struct gap_report *gaps, const struct trace_window *window,
                  struct verdict *v);

/* The lines that open the text report. */
void verdict_print_text(const struct tally *tally, const struct run_record *run,
                        const struct gap_report *gaps, const struct trace_window *window,
                        FILE *out);

#endif
