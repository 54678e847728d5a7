/* The stand-in CUPTI's PC sampling API (cupti_pcsampling.h), for `tracer --pc-sampling`'s
 * test (pc_sampling_test.sh); the rest of the stand-in is cupti_standin.c. One state for
 * the process: the null driver's contexts all sample alike.
 * - cuptiPCSamplingEnable comes first: every other call fails before it, as CUPTI's do.
 *   Each call checks its params' size.
 * - Six stall reasons, at indices that are not their positions: selected, long_scoreboard
 *   and math_pipe_throttle, each with its `_not_issued` twin. As CUPTI counts them, a
 *   sample counts under its reason, and once more under the twin when the warp issued
 *   nothing.
 * - Configuration: the reasons to collect (all by default), the data buffer (without one,
 *   nothing is sampled).
 * - Each kernel launched while sampling is configured is sampled at two instructions of
 *   its function: 0x10 on long_scoreboard 1 + strlen(name) % 4 times (so that kernels
 *   differ), 1 of them not issued, and on math_pipe_throttle once, not issued; 0x20
 *   selected twice.
 * - As the hardware's buffer does, the last launch's samples wait: cuptiPCSamplingGetData
 *   hands out those of the launches before it (a record per instruction of a function,
 *   with the collected reasons that have samples; at most collectNumPcs, remainingNumPcs
 *   says how many more), and cuptiPCSamplingDisable copies all that is left into the
 *   configured buffer.
 * - With $CUPTI_STANDIN_SAMPLES set, after every launch sampled, the samples taken so far
 *   per function (as the driver names it), instruction and reason, twins left out (they
 *   are no samples of their own), as JSON lines
 *   {"function": "_Z4vaddPfPKfS1_", "pc": 16, "stall": "long_scoreboard", "samples": 3}.
 */
#define _GNU_SOURCE
#include <cupti_pcsampling.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void standin_pc_sampling_launch(const char *name);

enum { FUNCTIONS = 64, PCS = 2, REASONS = 6 };
static const char prefix[] = "smsp__pcsamp_warps_issue_stalled_";
static const struct {
  uint32_t index;
  const char *name; /* without the prefix */
  bool twin;        /* a `_not_issued` twin */
} reasons[REASONS] = {
    {3, "selected", false},
    {4, "selected_not_issued", true},
    {7, "long_scoreboard", false},
    {8, "long_scoreboard_not_issued", true},
    {11, "math_pipe_throttle", false},
    {12, "math_pipe_throttle_not_issued", true},
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool enabled;
static bool collected[REASONS];
static CUpti_PCSamplingData *configured; /* the client's buffer */
static struct {
  const char *name;               /* the null driver's, which live as long as the process */
  uint64_t taken[PCS][REASONS];   /* every sample so far */
  uint64_t waiting[PCS][REASONS]; /* the last launch's, not yet handed out */
  uint64_t ready[PCS][REASONS];   /* for the next cuptiPCSamplingGetData */
} functions[FUNCTIONS];
static size_t function_count;

static void write_taken(void) {
  const char *path = getenv("CUPTI_STANDIN_SAMPLES");
  FILE *out = path ? fopen(path, "w") : NULL;
  for (size_t f = 0; out && f < function_count; f++)
    for (int pc = 0; pc < PCS; pc++)
      for (int r = 0; r < REASONS; r++)
        if (!reasons[r].twin && functions[f].taken[pc][r])
          fprintf(out, "{\"function\": \"%s\", \"pc\": %d, \"stall\": \"%s\", \"samples\": %llu}\n",
                  functions[f].name, 16 * (pc + 1), reasons[r].name,
                  (unsigned long long)functions[f].taken[pc][r]);
  if (out)
    fclose(out);
}

/* The waiting samples become ready. Called with lock held. */
static void drain(void) {
  for (size_t f = 0; f < function_count; f++)
    for (int pc = 0; pc < PCS; pc++)
      for (int r = 0; r < REASONS; r++) {
        functions[f].ready[pc][r] += functions[f].waiting[pc][r];
        functions[f].waiting[pc][r] = 0;
      }
}

void standin_pc_sampling_launch(const char *name) {
  pthread_mutex_lock(&lock);
  if (!enabled || !configured) {
    pthread_mutex_unlock(&lock);
    return;
  }
  drain();
  size_t f = 0;
  while (f < function_count && strcmp(functions[f].name, name) != 0)
    f++;
  if (f == function_count && function_count < FUNCTIONS)
    functions[function_count++].name = name;
  if (f < function_count) {
    uint64_t launch[PCS][REASONS] = {{0}};
    launch[0][2] = 1 + strlen(name) % 4; /* long_scoreboard */
    launch[0][3] = 1;                    /* of which not issued */
    launch[0][4] = launch[0][5] = 1;     /* math_pipe_throttle, not issued */
    launch[1][0] = 2;                    /* selected */
    for (int pc = 0; pc < PCS; pc++)
      for (int r = 0; r < REASONS; r++) {
        functions[f].taken[pc][r] += launch[pc][r];
        if (collected[r])
          functions[f].waiting[pc][r] += launch[pc][r];
      }
    write_taken();
  }
  pthread_mutex_unlock(&lock);
}

CUptiResult CUPTIAPI cuptiPCSamplingEnable(CUpti_PCSamplingEnableParams *params) {
  if (!params || params->size < CUpti_PCSamplingEnableParamsSize)
    return CUPTI_ERROR_INVALID_PARAMETER;
  pthread_mutex_lock(&lock);
  enabled = true;
  for (int r = 0; r < REASONS; r++)
    collected[r] = true; /* CUPTI's default: every reason */
  pthread_mutex_unlock(&lock);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiPCSamplingGetNumStallReasons(CUpti_PCSamplingGetNumStallReasonsParams *params) {
  if (!params || params->size < CUpti_PCSamplingGetNumStallReasonsParamsSize ||
      !params->numStallReasons)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (!enabled)
    return CUPTI_ERROR_INVALID_OPERATION;
  *params->numStallReasons = REASONS;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiPCSamplingGetStallReasons(CUpti_PCSamplingGetStallReasonsParams *params) {
  if (!params || params->size < CUpti_PCSamplingGetStallReasonsParamsSize ||
      params->numStallReasons < REASONS || !params->stallReasonIndex || !params->stallReasons)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (!enabled)
    return CUPTI_ERROR_INVALID_OPERATION;
  for (int r = 0; r < REASONS; r++) {
    params->stallReasonIndex[r] = reasons[r].index;
    snprintf(params->stallReasons[r], CUPTI_STALL_REASON_STRING_SIZE, "%s%s", prefix,
             reasons[r].name);
  }
  return CUPTI_SUCCESS;
}

static int reason_at(uint32_t index) {
  for (int r = 0; r < REASONS; r++)
    if (reasons[r].index == index)
      return r;
  return -1;
}

CUptiResult CUPTIAPI
cuptiPCSamplingSetConfigurationAttribute(CUpti_PCSamplingConfigurationInfoParams *params) {
  if (!params || params->size < CUpti_PCSamplingConfigurationInfoParamsSize ||
      (params->numAttributes && !params->pPCSamplingConfigurationInfo))
    return CUPTI_ERROR_INVALID_PARAMETER;
  pthread_mutex_lock(&lock);
  CUptiResult result = enabled ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_OPERATION;
  for (size_t i = 0; result == CUPTI_SUCCESS && i < params->numAttributes; i++) {
    CUpti_PCSamplingConfigurationInfo *info = &params->pPCSamplingConfigurationInfo[i];
    if (info->attributeType == CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON) {
      bool chosen[REASONS] = {false};
      for (size_t k = 0; k < info->attributeData.stallReasonData.stallReasonCount; k++) {
        int r = reason_at(info->attributeData.stallReasonData.pStallReasonIndex[k]);
        if (r < 0)
          result = info->attributeStatus = CUPTI_ERROR_INVALID_OPERATION;
        else
          chosen[r] = true;
      }
      memcpy(collected, chosen, sizeof collected);
    } else if (info->attributeType ==
               CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER) {
      configured = info->attributeData.samplingDataBufferData.samplingDataBuffer;
    } else if (info->attributeType == CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD &&
               (info->attributeData.samplingPeriodData.samplingPeriod < 5 ||
                info->attributeData.samplingPeriodData.samplingPeriod > 31)) {
      result = info->attributeStatus = CUPTI_ERROR_INVALID_OPERATION;
    }
  }
  pthread_mutex_unlock(&lock);
  return result;
}

/* Hands the ready samples out into data. Called with lock held. */
static void hand_out(CUpti_PCSamplingData *data) {
  size_t n = 0, left = 0;
  uint64_t samples = 0;
  for (size_t f = 0; f < function_count; f++)
    for (int pc = 0; pc < PCS; pc++) {
      uint64_t *ready = functions[f].ready[pc];
      size_t with = 0;
      for (int r = 0; r < REASONS; r++)
        with += ready[r] != 0;
      if (!with)
        continue;
      if (n == data->collectNumPcs) {
        left++;
        continue;
      }
      CUpti_PCSamplingPCData *record = &data->pPcData[n++];
      record->pcOffset = 16 * (uint64_t)(pc + 1);
      record->functionName = (char *)functions[f].name;
      record->stallReasonCount = 0;
      for (int r = 0; r < REASONS; r++)
        if (ready[r]) {
          CUpti_PCSamplingStallReason *s = &record->stallReason[record->stallReasonCount++];
          s->pcSamplingStallReasonIndex = reasons[r].index;
          s->samples = (uint32_t)ready[r];
          if (!reasons[r].twin)
            samples += ready[r];
          ready[r] = 0;
        }
    }
  data->totalNumPcs = n;
  data->remainingNumPcs = left;
  data->totalSamples = samples;
  data->droppedSamples = 0;
}

CUptiResult CUPTIAPI cuptiPCSamplingGetData(CUpti_PCSamplingGetDataParams *params) {
  if (!params || params->size < CUpti_PCSamplingGetDataParamsSize || !params->pcSamplingData)
    return CUPTI_ERROR_INVALID_PARAMETER;
  pthread_mutex_lock(&lock);
  CUptiResult result = enabled ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_OPERATION;
  if (result == CUPTI_SUCCESS)
    hand_out(params->pcSamplingData);
  pthread_mutex_unlock(&lock);
  return result;
}

CUptiResult CUPTIAPI cuptiPCSamplingDisable(CUpti_PCSamplingDisableParams *params) {
  if (!params || params->size < CUpti_PCSamplingDisableParamsSize)
    return CUPTI_ERROR_INVALID_PARAMETER;
  pthread_mutex_lock(&lock);
  CUptiResult result = enabled ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_OPERATION;
  if (enabled && configured) {
    drain();
    hand_out(configured); /* what does not fit is lost, as CUPTI's */
  }
  enabled = false;
  configured = NULL;
  pthread_mutex_unlock(&lock);
  return result;
}
