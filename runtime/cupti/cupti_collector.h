/* cupti_collector: what the parts of the CUPTI source (cupti_source.h) share. The choice's
 * lock (cupti_choice.c), when both are taken, is taken before the origins' lock
 * (cupti_origins.c).
 */
#ifndef TRACER_CUPTI_COLLECTOR_H
#define TRACER_CUPTI_COLLECTOR_H

#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <stdbool.h>

#include "cupti_source.h"

/* CUPTI's functions, looked up when it loads (cupti_records.c). */
struct cupti_api {
  CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
                                    CUpti_BuffersCallbackCompleteFunc);
  CUptiResult (*enable)(CUpti_ActivityKind);
  CUptiResult (*disable)(CUpti_ActivityKind);
  CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
  CUptiResult (*flush_all)(uint32_t);
  CUptiResult (*register_timestamp)(CUpti_TimestampCallbackFunc);
  /* Optional: without them, commands carry no submitting call (docs/cuda.md). */
  CUptiResult (*push_external)(CUpti_ExternalCorrelationKind, uint64_t);
  CUptiResult (*pop_external)(CUpti_ExternalCorrelationKind, uint64_t *);
  CUptiResult (*enable_driver_api)(CUpti_CallbackId, uint8_t);
  CUptiResult (*callback_name)(CUpti_CallbackDomain, uint32_t, const char **);
};
extern struct cupti_api cupti;
/* External correlation records are on: launches push their ids (cupti_origins.c). */
extern bool cupti_correlates;

/* Turns on the activity records of a command function's API (once per function: an
 * external correlation id is joined to its commands only through them); false when CUPTI
 * has no such API or refuses (cupti_records.c). */
bool cupti_api_records(const char *function);

/* --pc-sampling (cupti_pc_sampling.c): before each command, its context sampled from its
 * first command on, the samples gathered now and then; at the end, or when the app's own
 * CUPTI client comes (why: the notice's reason; NULL: none said), the last samples
 * gathered and sampling turned off. */
void cupti_pc_sampling_command(void);
void cupti_pc_sampling_stop(const char *why);

/* The app runs a CUPTI client of its own (cupti_choice.c). */
bool cupti_app_has_cupti(void);
/* libcupti, opened once: the real one the app loaded, else found on the search path. */
void *cupti_library(void);

/* Starts CUPTI's records; false when CUPTI cannot be loaded or started (cupti_records.c). */
bool cupti_records_start(void);
/* Hands CUPTI to the app: the tracer's records are read and its kinds turned off. */
void cupti_records_hand_over(void);

/* A device command's record, waiting for its call where it may yet come. */
struct cupti_command {
  uint32_t correlation;
  int32_t device;
  enum tracer_command_kind kind;
  char name[160];
  uint64_t bytes;
  uint32_t stream;
  uint64_t start, end; /* trace clock */
};
/* Records a command, with its call where known (cupti_origins.c). */
void cupti_command_record(const struct cupti_command *command);
/* An external correlation record: a launch's call joined to its correlation id. */
void cupti_correlation_record(const CUpti_ActivityExternalCorrelation *record);
/* The commands still held at the last flush, recorded without their calls. */
void cupti_held_release(void);

#endif
