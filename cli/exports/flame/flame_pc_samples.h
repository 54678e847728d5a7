/* flame_pc_samples: the GPU's samples of its kernels' instructions (`tracer
 * --pc-sampling`, trace_pc_sample records), added up per process, kernel, instruction and
 * stall reason, for the flame graphs' frames below each kernel (docs/flame.md).
 *
 * CUPTI's continuous sampling says which function and instruction a sample hit, not which
 * launch: a kernel's samples are those of all its launches in the process, and each of
 * its frames gets its device time shared out over them in the same proportions.
 * Processes, kernels and reasons are the caller's ids (the flame's root nodes and frame
 * names). */
#ifndef TRACER_FLAME_PC_SAMPLES_H
#define TRACER_FLAME_PC_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "key_map.h"

struct flame_pc_sample {
  uint64_t pc_offset;
  uint32_t stall; /* the caller's id of the reason's name */
  uint64_t samples;
};

struct flame_pc_kernel;

struct flame_pc_samples {
  struct key_map kernels;       /* (process, kernel) -> index + 1 */
  struct flame_pc_kernel *list; /* owned */
  size_t count, cap;
  struct key_map entries; /* (kernel index, pc, stall) -> entry index + 1 */
};

/* Adds samples of kernel's instruction pc for reason stall in process; -1 when out of
 * memory. */
int flame_pc_samples_add(struct flame_pc_samples *s, uint32_t process, uint32_t kernel,
                         uint64_t pc_offset, uint32_t stall, uint64_t samples);

/* The process's samples of kernel, by instruction then reason id, into *samples: how
 * many (0: none). After the last add (at the read's end): no add may follow. */
size_t flame_pc_samples_of(struct flame_pc_samples *s, uint32_t process, uint32_t kernel,
                           const struct flame_pc_sample **samples);

/* weight shared out over n samples in proportion to their counts, into parts[n]: each
 * part the exact share rounded down, what rounding left given one each to the largest
 * remainders (the first on ties), so that the parts add up to weight. */
void flame_pc_share(uint64_t weight, const struct flame_pc_sample *samples, size_t n,
                    uint64_t *parts);

void flame_pc_samples_free(struct flame_pc_samples *s);

#endif
