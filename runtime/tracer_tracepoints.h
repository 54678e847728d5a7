/* The runtime's own tracepoint provider, lttng_ust_tracer: events that no single API
 * call produces, such as device commands timed by the backend hooks.
 * See docs/trace-format.md. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER lttng_ust_tracer

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "tracer_tracepoints.h"

#if !defined(TRACER_TRACEPOINTS_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TRACER_TRACEPOINTS_H

#include <lttng/tracepoint.h>
#include <stdint.h>

#include "tracer_runtime.h" /* struct tracer_call_id */

/* call_tid and call_start: the call that submitted the command (struct tracer_call_id in
 * tracer_device.h; 0 when unknown); device and device_name: the device it ran on (-1 and ""
 * when unknown); call_stack: that call's stack (lttng_ust_tracer:stack below; 0: none). One pointer for them since LTTNG_UST_TP_ARGS takes 10 at most. */
LTTNG_UST_TRACEPOINT_EVENT(lttng_ust_tracer, device_command,
  LTTNG_UST_TP_ARGS(int32_t, pid, int32_t, tid, const char *, backend, uint8_t, kind,
                    const char *, name, uint64_t, bytes, uintptr_t, queue, uint64_t, start,
                    uint64_t, end, const struct tracer_command_origin *, origin),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(int32_t, pid, pid)
    lttng_ust_field_integer(int32_t, tid, tid)
    lttng_ust_field_string(backend, backend)
    lttng_ust_field_integer(uint8_t, kind, kind)
    lttng_ust_field_string(name, name)
    lttng_ust_field_integer(uint64_t, bytes, bytes)
    lttng_ust_field_integer_hex(uintptr_t, queue, queue)
    lttng_ust_field_integer(uint64_t, start, start)
    lttng_ust_field_integer(uint64_t, end, end)
    lttng_ust_field_integer(int32_t, call_tid, origin->call.tid)
    lttng_ust_field_integer(uint64_t, call_start, origin->call.start)
    lttng_ust_field_integer(int32_t, device, origin->device)
    lttng_ust_field_string(device_name, origin->device_name)
    lttng_ust_field_integer_hex(uint64_t, call_stack, origin->call.stack)
  )
)

/* Something the report must tell that no call shows: why a backend the app uses records
 * nothing (OpenMP offload whose runtime cannot reach the tool), or what is left out by
 * default (a runtime library's own ITT calls). One sentence, written once per process. */
LTTNG_UST_TRACEPOINT_EVENT(lttng_ust_tracer, notice,
  LTTNG_UST_TP_ARGS(int32_t, pid, int32_t, tid, const char *, backend, const char *, text),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(int32_t, pid, pid)
    lttng_ust_field_integer(int32_t, tid, tid)
    lttng_ust_field_string(backend, backend)
    lttng_ust_field_string(text, text)
  )
)

/* Where this process stands in a job, from its launcher's variables (torchrun's RANK,
 * WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE; MPI launchers' and Slurm's: the table of
 * cli/control/rank_env.h), written once when the process starts, only when they are set:
 * so that one trace of a launcher and its ranks (`tracer torchrun ...`) can be told apart
 * by rank, the launcher being the process without one. -1 for what the launcher does not
 * say. */
LTTNG_UST_TRACEPOINT_EVENT(lttng_ust_tracer, rank,
  LTTNG_UST_TP_ARGS(int32_t, pid, int32_t, tid, const char *, launcher, int64_t, rank,
                    int64_t, size, int64_t, local_rank, int64_t, local_size),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(int32_t, pid, pid)
    lttng_ust_field_integer(int32_t, tid, tid)
    lttng_ust_field_string(launcher, launcher)
    lttng_ust_field_integer(int64_t, rank, rank)
    lttng_ust_field_integer(int64_t, size, size)
    lttng_ust_field_integer(int64_t, local_rank, local_rank)
    lttng_ust_field_integer(int64_t, local_size, local_size)
  )
)

/* A call that had not returned when its process ended (exit, or a fatal signal): written
 * at that moment for every such call of every thread, in minimal mode, where no entry
 * event shows it. */
LTTNG_UST_TRACEPOINT_EVENT(lttng_ust_tracer, unfinished,
  LTTNG_UST_TP_ARGS(int32_t, pid, int32_t, tid, const char *, backend, uint16_t, function,
                    uint64_t, start),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(int32_t, pid, pid)
    lttng_ust_field_integer(int32_t, tid, tid)
    lttng_ust_field_string(backend, backend)
    lttng_ust_field_integer(uint16_t, function, function)
    lttng_ust_field_integer(uint64_t, start, start)
  )
)

/* Calls of a counted function on one thread (tracer_runtime.h: struct tracer_counted):
 * how many returned this status, and the sum, least and most of their end - start, in
 * trace clock ticks. */
LTTNG_UST_TRACEPOINT_EVENT(lttng_ust_tracer, counted,
  LTTNG_UST_TP_ARGS(int32_t, pid, int32_t, tid, const char *, backend, uint16_t, function,
                    int64_t, status, uint64_t, calls, uint64_t, total, uint64_t, min,
                    uint64_t, max),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(int32_t, pid, pid)
    lttng_ust_field_integer(int32_t, tid, tid)
    lttng_ust_field_string(backend, backend)
    lttng_ust_field_integer(uint16_t, function, function)
    lttng_ust_field_integer(int64_t, status, status)
    lttng_ust_field_integer(uint64_t, calls, calls)
    lttng_ust_field_integer(uint64_t, total, total)
    lttng_ust_field_integer(uint64_t, min, min)
    lttng_ust_field_integer(uint64_t, max, max)
  )
)

/* What one read of the trace clock costs in this process: the median difference between two
 * reads in a row, in trace clock units. Every call's end - start holds one such read, which
 * the analyses take off (docs/trace-format.md). counted_ps: what a counted call costs on
 * average, its entry and its share of the clock reads (tracer_counted_call_ps), in ps. */
LTTNG_UST_TRACEPOINT_EVENT(lttng_ust_tracer, clock_read,
  LTTNG_UST_TP_ARGS(int32_t, pid, int32_t, tid, uint64_t, cost, uint64_t, counted_ps),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(int32_t, pid, pid)
    lttng_ust_field_integer(int32_t, tid, tid)
    lttng_ust_field_integer(uint64_t, cost, cost)
    lttng_ust_field_integer(uint64_t, counted_ps, counted_ps)
  )
)

/* The calibration (runtime/tracer_calibration.c): samples of a call record's head, then
 * its result: what recording one event costs on this machine, in picoseconds, as a fixed
 * cost and a cost per payload byte. */
LTTNG_UST_TRACEPOINT_EVENT(lttng_ust_tracer, calibration_sample,
  LTTNG_UST_TP_ARGS(const uint64_t *, slots, unsigned, count),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_sequence_hex(uint64_t, slots, slots, unsigned, count)
  )
)

LTTNG_UST_TRACEPOINT_EVENT(lttng_ust_tracer, calibration,
  LTTNG_UST_TP_ARGS(int32_t, pid, int32_t, tid, uint64_t, event_ps, uint64_t, byte_ps,
                    uint64_t, call_ps),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(int32_t, pid, pid)
    lttng_ust_field_integer(int32_t, tid, tid)
    lttng_ust_field_integer(uint64_t, event_ps, event_ps)
    lttng_ust_field_integer(uint64_t, byte_ps, byte_ps)
    lttng_ust_field_integer(uint64_t, call_ps, call_ps)
  )
)

/* A named region of one thread (tracer_recording.h), written when it closes. depth 0 is
 * outermost. */
LTTNG_UST_TRACEPOINT_EVENT(lttng_ust_tracer, region,
  LTTNG_UST_TP_ARGS(int32_t, pid, int32_t, tid, const char *, backend, const char *, name,
                    uint16_t, depth, uint64_t, start, uint64_t, end),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(int32_t, pid, pid)
    lttng_ust_field_integer(int32_t, tid, tid)
    lttng_ust_field_string(backend, backend)
    lttng_ust_field_string(name, name)
    lttng_ust_field_integer(uint16_t, depth, depth)
    lttng_ust_field_integer(uint64_t, start, start)
    lttng_ust_field_integer(uint64_t, end, end)
  )
)

/* Requests a call completed through an array of them (MPI_Waitall, MPI_Waitany,
 * MPI_Testsome: runtime/tracer_requests.h), in array order, as its records hold request
 * values; written when the call returns, just before its own event. call_start: the
 * call's start, which ties the two. sources and received, one per request or none (the
 * call ignored its statuses): what each one's status says, its sender as a rank of its
 * communicator (-1: none) and the bytes received (a receive's; a send's mean nothing). */
LTTNG_UST_TRACEPOINT_EVENT(lttng_ust_tracer, completed,
  LTTNG_UST_TP_ARGS(int32_t, pid, int32_t, tid, uint64_t, call_start, const uint64_t *, requests,
                    uint32_t, count, const int32_t *, sources, const uint64_t *, received,
                    uint32_t, with_status),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(int32_t, pid, pid)
    lttng_ust_field_integer(int32_t, tid, tid)
    lttng_ust_field_integer(uint64_t, call_start, call_start)
    lttng_ust_field_sequence(uint64_t, requests, requests, uint32_t, count)
    lttng_ust_field_sequence(int32_t, sources, sources, uint32_t, with_status)
    lttng_ust_field_sequence(uint64_t, received, received, uint32_t, with_status)
  )
)

/* A group of processes a call made: an MPI communicator (kind 0) or window (kind 1)
 * (runtime/tracer_groups.h), written when the call returns, just before its own event.
 * handle: the new one, as records hold handles; from: the communicator it was made from
 * (a window: over); call_start: the making call's start; size: its members; members:
 * their ranks in the job (world ranks; -1: a process outside it), in the order of their
 * ranks in the group, or none when they are the job's ranks in order. */
LTTNG_UST_TRACEPOINT_EVENT(lttng_ust_tracer, group,
  LTTNG_UST_TP_ARGS(int32_t, pid, int32_t, tid, uint8_t, kind, uint64_t, handle, uint64_t, from,
                    uint64_t, call_start, int32_t, size, const int32_t *, members,
                    uint32_t, count),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(int32_t, pid, pid)
    lttng_ust_field_integer(int32_t, tid, tid)
    lttng_ust_field_integer(uint8_t, kind, kind)
    lttng_ust_field_integer_hex(uint64_t, handle, handle)
    lttng_ust_field_integer_hex(uint64_t, from, from)
    lttng_ust_field_integer(uint64_t, call_start, call_start)
    lttng_ust_field_integer(int32_t, size, size)
    lttng_ust_field_sequence(int32_t, members, members, uint32_t, count)
  )
)

/* A stack of a call that submitted device work (runtime/stacks/tracer_stacks.h), written
 * once per process, the first time a submission comes from it; the calls' records and
 * the device commands refer to it by id. python: its Python frames, innermost first, one
 * "LINE\tFUNCTION\tFILE\n" each; native: the return addresses of its native frames,
 * innermost first, from the caller of the traced call up to Python's interpreter (or to
 * the depth limit); flags: enum tracer_stack_flags. */
LTTNG_UST_TRACEPOINT_EVENT(lttng_ust_tracer, stack,
  LTTNG_UST_TP_ARGS(int32_t, pid, int32_t, tid, uint64_t, id, const char *, python,
                    const uint64_t *, native, uint32_t, native_count, uint32_t, flags),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(int32_t, pid, pid)
    lttng_ust_field_integer(int32_t, tid, tid)
    lttng_ust_field_integer_hex(uint64_t, id, id)
    lttng_ust_field_string(python, python)
    lttng_ust_field_sequence_hex(uint64_t, native, native, uint32_t, native_count)
    lttng_ust_field_integer(uint32_t, flags, flags)
  )
)

/* A loaded ELF object that native frames of the stacks above lie in, written once per
 * process before the first stack that needs it, so that the tracer names the frames
 * when it reads the trace: path (the program's own as /proc/self/exe names it), its
 * GNU build id, base (what the loader added to the file's addresses) and the span of its
 * loaded segments. */
LTTNG_UST_TRACEPOINT_EVENT(lttng_ust_tracer, object,
  LTTNG_UST_TP_ARGS(int32_t, pid, int32_t, tid, const char *, path, const uint8_t *, build_id,
                    uint32_t, build_id_size, uint64_t, base, uint64_t, start, uint64_t, end),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(int32_t, pid, pid)
    lttng_ust_field_integer(int32_t, tid, tid)
    lttng_ust_field_string(path, path)
    lttng_ust_field_sequence_hex(uint8_t, build_id, build_id, uint32_t, build_id_size)
    lttng_ust_field_integer_hex(uint64_t, base, base)
    lttng_ust_field_integer_hex(uint64_t, start, start)
    lttng_ust_field_integer_hex(uint64_t, end, end)
  )
)

/* The GPU's own samples of a kernel's program counters (tracer --pc-sampling, CUPTI's PC
 * sampling: runtime/cupti/cupti_pc_sampling.c): `samples` samples of the instruction at
 * pc_offset in function (demangled, as device_command names kernels), found stalled for
 * stall (CUPTI's name of the reason), since the function's previous event of that PC and
 * reason. */
LTTNG_UST_TRACEPOINT_EVENT(lttng_ust_tracer, pc_sample,
  LTTNG_UST_TP_ARGS(int32_t, pid, int32_t, tid, const char *, function, uint64_t, pc_offset,
                    const char *, stall, uint64_t, samples),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(int32_t, pid, pid)
    lttng_ust_field_integer(int32_t, tid, tid)
    lttng_ust_field_string(function, function)
    lttng_ust_field_integer_hex(uint64_t, pc_offset, pc_offset)
    lttng_ust_field_string(stall, stall)
    lttng_ust_field_integer(uint64_t, samples, samples)
  )
)

/* The recording was paused from start to end (tracer_recording.h): written when it
 * resumes, or when the process ends paused. */
LTTNG_UST_TRACEPOINT_EVENT(lttng_ust_tracer, paused,
  LTTNG_UST_TP_ARGS(int32_t, pid, int32_t, tid, uint64_t, start, uint64_t, end),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(int32_t, pid, pid)
    lttng_ust_field_integer(int32_t, tid, tid)
    lttng_ust_field_integer(uint64_t, start, start)
    lttng_ust_field_integer(uint64_t, end, end)
  )
)

#endif

#include <lttng/tracepoint-event.h>
