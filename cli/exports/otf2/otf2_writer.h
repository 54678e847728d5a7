/* otf2_writer: a trace as an OTF2 archive (`--otf2 DIR`, docs/otf2.md), written with
 * libotf2 for Vampir, Scalasca and OTF2's Python bindings. A consumer of the reader
 * (trace_consumer.h):
 *
 *   system tree   machine > host (its name) > "<backend> device" per host
 *   locations     a process group per process (`APP (pid N)`, or `rank N` in a job) with
 *                 a CPU thread location per thread; an accelerator group per process and
 *                 backend with a stream location per queue (`queue 0x...`; commands that
 *                 overlap on a queue go on its lanes, `queue 0x... #2`, ...)
 *   regions       one per API function (the tally's rows), one per kernel, copy and
 *                 other device command name, one per named region (ITT, NVTX: paradigm
 *                 user, role code); paradigm CUDA, OpenCL, HIP or MPI from the backend,
 *                 user for the others; role from what the call means (allocate,
 *                 deallocate, point-to-point, collectives, RMA, data transfer for copies)
 *   events        enter and leave for every call and named region, nested as they ran
 *                 (call_stacks.h), and for every device command on its queue, whose enter
 *                 carries the submitting call as two attributes: its thread's location and
 *                 its start (the enter of that call); MPI records (otf2_mpi.h)
 *   metrics       the device counters of tracer --sample (otf2_defs.h): per device a
 *                 metric location (`nvml 0: NAME`) in a group of its own under a system
 *                 tree node of the device, and a metric event per reading of each counter
 *                 (its metric instance); not in a job's archive yet
 *   clock         the trace clock in ns since the epoch (the offset its CTF metadata
 *                 carries applied, so ranks of several nodes line up), resolution 1 ns,
 *                 offset and length from the first and last event; the trace clock's name
 *                 and frequency as archive properties TRACER::CLOCK*
 * A counted function's calls (counted per thread, not one event each) have no events.
 *
 * One rank of a job writes its part of the job's archive (rank >= 0): location ids
 * rank << 32 onwards, so that the ranks' event files keep their names in the job's
 * archive (otf2_merge.h). */
#ifndef TRACER_OTF2_WRITER_H
#define TRACER_OTF2_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "call_stacks.h"
#include "diag.h"
#include "trace_consumer.h"

struct otf2_options {
  const char *path;         /* the archive's folder (otf2_folder.h) */
  const char *app_name;     /* names the processes; may be NULL */
  long rank;                /* >= 0: a rank's part of a job's archive */
};

struct otf2_stats {
  uint64_t locations, events, mpi_records;
  struct stack_counts stacks;
};

struct otf2_export;

/* *consumer is what to give the read. Fails (-1, a cause in d) when the folder cannot
 * take an archive. */
int otf2_export_open(const struct otf2_options *options, struct otf2_export **out,
                     struct trace_consumer *consumer, struct diag *d);
/* Writes the definitions and moves the archive into place, unless read_failed (then
 * nothing is left behind); frees the export. Returns 0, or -1 with a cause in d. */
int otf2_export_close(struct otf2_export *x, bool read_failed, struct otf2_stats *stats,
                      struct diag *d);

#endif
