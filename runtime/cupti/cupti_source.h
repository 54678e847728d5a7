/* cupti_source: where the CUDA backend's device times come from, and CUPTI's activity
 * records as one source (docs/cuda.md compares them). What the CUDA hooks call.
 *
 * - CUPTI (the default where libcupti loads): its records carry each kernel's, copy's and
 *   memset's device start and end, read on the clock the tracer gives CUPTI, and become
 *   device_command events as CUPTI hands its buffers back (cupti_records.c). Around a
 *   launch the hooks only push an id that joins its record to its call (cupti_origins.c).
 * - CUDA events (TRACER_CUDA_TIMING=events, no CUPTI, or once the app runs a CUPTI client
 *   of its own, which gets CUPTI to itself: cupti_choice.c): the CUDA hooks record them.
 * - None (TRACER_CUDA_TIMING=none).
 * The library is opened at run time, so the interposer never depends on it. This folder
 * is compiled into the CUDA backend's library (its spec's trace.runtime_parts); without
 * cupti_activity.h at build time, CUDA events alone.
 */
#ifndef TRACER_CUPTI_SOURCE_H
#define TRACER_CUPTI_SOURCE_H

#include <stdint.h>

#include "tracer_device.h"

#if __has_include(<cupti_activity.h>)
#define TRACER_CUPTI 1
#endif

enum cuda_timing { CUDA_TIMING_UNSET, CUDA_TIMING_EVENTS, CUDA_TIMING_CUPTI, CUDA_TIMING_NONE };

/* The source of device times, chosen when the driver starts (cuInit, so that CUPTI sees
 * the contexts created) or at the first command; it changes only from CUPTI to CUDA
 * events, when the app's own CUPTI client comes. cuda_timing: UNSET before the choice. */
enum cuda_timing cuda_timing_choose(void);
enum cuda_timing cuda_timing(void);

#ifdef TRACER_CUPTI
/* Around the real call of a command timed by CUPTI: a launch is joined to its call. */
void cupti_launch_begin(const struct tracer_command *command);
void cupti_launch_end(int64_t status);
#else
static inline void cupti_launch_begin(const struct tracer_command *command) { (void)command; }
static inline void cupti_launch_end(int64_t status) { (void)status; }
#endif

#endif
