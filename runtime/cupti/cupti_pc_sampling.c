/* cupti_pc_sampling: the GPU's own samples of where its kernels stall (`tracer
 * --pc-sampling`, TRACER_PC_SAMPLING=1; docs/flame.md), through CUPTI's PC sampling API
 * (cupti_pcsampling.h), beside CUPTI's activity records (cupti_records.c).
 *
 * Each CUDA context the app submits work on gets PC sampling at its first command, before
 * the real call: enabled (every other PC sampling call needs it first), then configured
 * in continuous mode (kernels run concurrently as they would; samples add up per function
 * and instruction, without the kernel launch they came from), the data parsed into a
 * buffer of the tracer's. The stall reasons sampled are those CUPTI names that do not end
 * in `_not_issued`: CUPTI counts a sample under its reason and, where the warp issued
 * nothing, once more under the reason's `_not_issued` twin, so the others give each
 * sample once. TRACER_PC_SAMPLING_PERIOD=N samples every 2^N cycles (5 to 31; CUPTI's
 * default otherwise).
 *
 * The samples are gathered every GATHER_EVERY commands on the context, and at the end (the
 * records' atexit handler: what CUPTI holds, then what cuptiPCSamplingDisable copies into
 * the buffer), and written as lttng_ust_tracer:pc_sample events: per function (demangled
 * as the kernels' records name them), instruction offset and stall reason, the samples
 * since the last gathering. A context CUPTI refuses (an older GPU, a driver that does not
 * allow it, profiling permissions) is said once in a notice, and its work runs unsampled;
 * the activity records go on either way. The app's own CUPTI client takes CUPTI for
 * itself (cupti_choice.c): sampling stops then, and a notice says so.
 *
 * CUPTI's function names may be shared with its other records and may be freed only once
 * every record was read: they are left to the process's end, each demangled once.
 */
#include "cupti_source.h"

#ifdef TRACER_CUPTI
#include <cupti_pcsampling.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_args.h"
#include "cupti_collector.h"
#include "tracer_notice.h"
#include "tracer_wrappers.h"

enum {
  CONTEXTS_MAX = 32,
  PCS = 4096,               /* instructions a gathering reads at once */
  GATHER_EVERY = 512,       /* commands on a context between gatherings */
  SCRATCH_BYTES = 16 << 20, /* CUPTI's buffer of parsed samples: about 88000 PCs */
  NAMES_MAX = 1 << 14,      /* CUPTI's function names demangled, by address */
};

typedef CUptiResult CUPTIAPI config_fn(CUpti_PCSamplingConfigurationInfoParams *);
typedef CUptiResult CUPTIAPI data_fn(CUpti_PCSamplingGetDataParams *);
typedef CUptiResult CUPTIAPI enable_fn(CUpti_PCSamplingEnableParams *);
typedef CUptiResult CUPTIAPI disable_fn(CUpti_PCSamplingDisableParams *);
typedef CUptiResult CUPTIAPI count_fn(CUpti_PCSamplingGetNumStallReasonsParams *);
typedef CUptiResult CUPTIAPI reasons_fn(CUpti_PCSamplingGetStallReasonsParams *);

static struct {
  config_fn *configure;
  data_fn *get_data;
  enable_fn *enable;
  disable_fn *disable;
  count_fn *reason_count;
  reasons_fn *reasons;
} pcs;

struct sampled {
  CUcontext context;
  bool on;                   /* sampling, its data to gather */
  unsigned since;            /* commands since the last gathering */
  CUpti_PCSamplingData data; /* the parsed samples' buffer; owned */
  size_t reason_count;       /* all CUPTI knows */
  uint32_t *reason_index;    /* owned */
  char **reason_names;       /* owned, CUPTI_STALL_REASON_STRING_SIZE each */
  uint32_t *kept_index;      /* the reasons sampled (not _not_issued); owned */
  size_t kept_count;
};

static struct sampled contexts[CONTEXTS_MAX];
static unsigned context_count;
static int asked = -1; /* -1: not read yet */
static bool stopped, refused_said, full_said;
/* What the run sampled, for the last notice. */
static uint64_t total_samples, dropped_samples, gatherings;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* CUPTI's function names, demangled as the kernels' records are (cupti_records.c):
 * open addressing by the name's address. */
static struct {
  const char *cupti;
  char *demangled;
} names[NAMES_MAX];
static unsigned name_count;

static bool wanted(void) {
  if (__atomic_load_n(&asked, __ATOMIC_ACQUIRE) < 0) {
    const char *on = getenv("TRACER_PC_SAMPLING");
    __atomic_store_n(&asked, on && *on && strcmp(on, "0") != 0, __ATOMIC_RELEASE);
  }
  return __atomic_load_n(&asked, __ATOMIC_ACQUIRE) > 0;
}

static bool found(void) {
  if (pcs.get_data)
    return true;
  void *library = cupti_library();
  if (!library)
    return false;
  pcs.configure =
      (config_fn *)tracer_real_dlsym(library, "cuptiPCSamplingSetConfigurationAttribute");
  pcs.enable = (enable_fn *)tracer_real_dlsym(library, "cuptiPCSamplingEnable");
  pcs.disable = (disable_fn *)tracer_real_dlsym(library, "cuptiPCSamplingDisable");
  pcs.reason_count = (count_fn *)tracer_real_dlsym(library, "cuptiPCSamplingGetNumStallReasons");
  pcs.reasons = (reasons_fn *)tracer_real_dlsym(library, "cuptiPCSamplingGetStallReasons");
  data_fn *get_data = (data_fn *)tracer_real_dlsym(library, "cuptiPCSamplingGetData");
  if (!pcs.configure || !pcs.enable || !pcs.disable || !pcs.reason_count || !pcs.reasons)
    return false;
  pcs.get_data = get_data;
  return get_data != NULL;
}

/* CUPTI's name of a stall reason without its counter's prefix:
 * smsp__pcsamp_warps_issue_stalled_long_scoreboard -> long_scoreboard. */
static const char *short_reason(const char *name) {
  static const char *const prefixes[] = {"smsp__pcsamp_warps_issue_stalled_", "smsp__pcsamp_"};
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
    if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
      return name + strlen(prefixes[i]);
  return name;
}

static bool not_issued_twin(const char *name) {
  static const char suffix[] = "_not_issued";
  size_t n = strlen(name);
  return n >= sizeof suffix - 1 && strcmp(name + n - (sizeof suffix - 1), suffix) == 0;
}

static const char *reason_name(const struct sampled *s, uint32_t index) {
  for (size_t i = 0; i < s->reason_count; i++)
    if (s->reason_index[i] == index)
      return short_reason(s->reason_names[i]);
  return "unknown";
}

/* A function's name as a kernel's record names it; NULL when out of room or memory.
 * Called with lock held. */
static const char *function_name(const char *cupti) {
  if (!cupti)
    return "kernel";
  size_t slot = ((uintptr_t)cupti >> 4) * 0x9E3779B97F4A7C15u >> 50; /* NAMES_MAX = 2^14 */
  for (unsigned probes = 0; probes < NAMES_MAX; probes++, slot = (slot + 1) % NAMES_MAX) {
    if (names[slot].cupti == cupti)
      return names[slot].demangled;
    if (names[slot].cupti)
      continue;
    if (name_count >= NAMES_MAX * 3 / 4)
      return NULL;
    char demangled[sizeof((struct cupti_command *)0)->name];
    tracer_demangle(cupti, demangled, sizeof demangled);
    if (!(names[slot].demangled = strdup(demangled)))
      return NULL;
    names[slot].cupti = cupti;
    name_count++;
    return names[slot].demangled;
  }
  return NULL;
}

/* Writes the samples the context's buffer holds. Called with lock held. */
static void write_buffer(struct sampled *s) {
  CUpti_PCSamplingData *data = &s->data;
  total_samples += data->totalSamples;
  dropped_samples += data->droppedSamples;
  for (size_t i = 0; i < data->totalNumPcs && i < PCS; i++) {
    const CUpti_PCSamplingPCData *pc = &data->pPcData[i];
    const char *function = function_name(pc->functionName);
    for (size_t r = 0; function && r < pc->stallReasonCount && r < s->reason_count; r++)
      if (pc->stallReason[r].samples)
        tracer_pc_sample(function, pc->pcOffset,
                         reason_name(s, pc->stallReason[r].pcSamplingStallReasonIndex),
                         pc->stallReason[r].samples);
  }
  data->totalNumPcs = data->remainingNumPcs = 0;
  data->totalSamples = data->droppedSamples = 0;
}

static void buffer_full(void) {
  if (full_said)
    return;
  full_said = true;
  tracer_notice("cuda", "--pc-sampling: CUPTI's hardware buffer of PC samples was full: samples "
                        "were lost (TRACER_PC_SAMPLING_PERIOD=N samples every 2^N cycles)");
}

/* Reads what CUPTI holds of the context's samples and writes it. Called with lock held. */
static void gather(struct sampled *s) {
  CUpti_PCSamplingGetDataParams get = {
      .size = CUpti_PCSamplingGetDataParamsSize, .ctx = s->context, .pcSamplingData = &s->data};
  gatherings++;
  for (int rounds = 0; rounds < 1024; rounds++) {
    s->data.totalNumPcs = s->data.remainingNumPcs = 0;
    CUptiResult result = pcs.get_data(&get);
    if (result == CUPTI_ERROR_OUT_OF_MEMORY || s->data.hardwareBufferFull)
      buffer_full();
    if (result != CUPTI_SUCCESS)
      return;
    bool more = s->data.remainingNumPcs > 0;
    write_buffer(s);
    if (!more)
      return;
  }
}

static void refused(const char *what, CUptiResult result) {
  if (refused_said)
    return;
  refused_said = true;
  tracer_notice("cuda",
                "--pc-sampling: CUPTI refused PC sampling (%s: error %d); the device work of "
                "the contexts it refused runs unsampled, its activity records kept",
                what, (int)result);
}

/* The stall reasons CUPTI knows, and those sampled. Called with lock held. */
static bool learn_reasons(struct sampled *s) {
  CUpti_PCSamplingGetNumStallReasonsParams count = {
      .size = CUpti_PCSamplingGetNumStallReasonsParamsSize,
      .ctx = s->context,
      .numStallReasons = &s->reason_count};
  CUptiResult result = pcs.reason_count(&count);
  if (result != CUPTI_SUCCESS || !s->reason_count) {
    refused("cuptiPCSamplingGetNumStallReasons", result);
    return false;
  }
  s->reason_index = calloc(s->reason_count, sizeof *s->reason_index);
  s->kept_index = calloc(s->reason_count, sizeof *s->kept_index);
  s->reason_names = calloc(s->reason_count, sizeof *s->reason_names);
  bool memory = s->reason_index && s->kept_index && s->reason_names;
  for (size_t i = 0; memory && i < s->reason_count; i++)
    memory = (s->reason_names[i] = calloc(1, CUPTI_STALL_REASON_STRING_SIZE)) != NULL;
  if (!memory)
    return false;
  CUpti_PCSamplingGetStallReasonsParams get = {.size = CUpti_PCSamplingGetStallReasonsParamsSize,
                                               .ctx = s->context,
                                               .numStallReasons = s->reason_count,
                                               .stallReasonIndex = s->reason_index,
                                               .stallReasons = s->reason_names};
  if ((result = pcs.reasons(&get)) != CUPTI_SUCCESS) {
    refused("cuptiPCSamplingGetStallReasons", result);
    return false;
  }
  for (size_t i = 0; i < s->reason_count; i++) {
    s->reason_names[i][CUPTI_STALL_REASON_STRING_SIZE - 1] = '\0';
    if (!not_issued_twin(s->reason_names[i]))
      s->kept_index[s->kept_count++] = s->reason_index[i];
  }
  return s->kept_count > 0;
}

/* The buffer CUPTI writes parsed samples into: PCS records, each with room for every
 * reason. Called with lock held. */
static bool make_buffer(struct sampled *s) {
  s->data = (CUpti_PCSamplingData){.size = sizeof s->data,
                                   .collectNumPcs = PCS,
                                   .pPcData = calloc(PCS, sizeof *s->data.pPcData)};
  bool memory = s->data.pPcData != NULL;
  for (size_t i = 0; memory && i < PCS; i++) {
    s->data.pPcData[i].size = sizeof *s->data.pPcData;
    memory = (s->data.pPcData[i].stallReason =
                  calloc(s->reason_count, sizeof *s->data.pPcData[i].stallReason)) != NULL;
  }
  return memory;
}

/* Continuous mode, the reasons kept, the tracer's buffer. Called with lock held. */
static bool configure(struct sampled *s) {
  CUpti_PCSamplingConfigurationInfo info[6];
  memset(info, 0, sizeof info);
  size_t n = 0;
  info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
  info[n].attributeData.stallReasonData.stallReasonCount = s->kept_count;
  info[n++].attributeData.stallReasonData.pStallReasonIndex = s->kept_index;
  info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
  info[n++].attributeData.collectionModeData.collectionMode =
      CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
  info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE;
  info[n++].attributeData.scratchBufferSizeData.scratchBufferSize = SCRATCH_BYTES;
  info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
  info[n++].attributeData.outputDataFormatData.outputDataFormat =
      CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
  info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
  info[n++].attributeData.samplingDataBufferData.samplingDataBuffer = &s->data;
  const char *period = getenv("TRACER_PC_SAMPLING_PERIOD");
  long cycles_log2 = period ? strtol(period, NULL, 10) : 0;
  if (cycles_log2 >= 5 && cycles_log2 <= 31) {
    info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
    info[n++].attributeData.samplingPeriodData.samplingPeriod = (uint32_t)cycles_log2;
  }
  CUpti_PCSamplingConfigurationInfoParams params = {.size =
                                                        CUpti_PCSamplingConfigurationInfoParamsSize,
                                                    .ctx = s->context,
                                                    .numAttributes = n,
                                                    .pPCSamplingConfigurationInfo = info};
  CUptiResult result = pcs.configure(&params);
  if (result != CUPTI_SUCCESS) {
    refused("cuptiPCSamplingSetConfigurationAttribute", result);
    return false;
  }
  tracer_debug("PC sampling on context %p: %zu of %zu stall reasons", (void *)s->context,
               s->kept_count, s->reason_count);
  return true;
}

/* Enables sampling on the context, then configures it. Called with lock held. */
static bool start(struct sampled *s) {
  CUpti_PCSamplingEnableParams enable = {.size = CUpti_PCSamplingEnableParamsSize,
                                         .ctx = s->context};
  CUptiResult result = pcs.enable(&enable);
  if (result != CUPTI_SUCCESS) {
    refused("cuptiPCSamplingEnable", result);
    return false;
  }
  if (learn_reasons(s) && make_buffer(s) && configure(s))
    return true;
  CUpti_PCSamplingDisableParams disable = {.size = CUpti_PCSamplingDisableParamsSize,
                                           .ctx = s->context};
  pcs.disable(&disable);
  return false;
}

void cupti_pc_sampling_command(void) {
  if (!wanted() || cupti_app_has_cupti() || __atomic_load_n(&stopped, __ATOMIC_ACQUIRE))
    return;
  CUcontext context = NULL;
  cuda_depth++; /* the hooks' own driver calls are not traced */
  CUresult current = cuCtxGetCurrent(&context);
  cuda_depth--;
  if (current != CUDA_SUCCESS || !context)
    return;
  pthread_mutex_lock(&lock);
  struct sampled *s = NULL;
  for (unsigned i = 0; i < context_count && !s; i++)
    if (contexts[i].context == context)
      s = &contexts[i];
  if (!s && context_count < CONTEXTS_MAX && !stopped && found()) {
    s = &contexts[context_count++];
    s->context = context;
    s->on = start(s);
  } else if (s && s->on && ++s->since >= GATHER_EVERY) {
    s->since = 0;
    gather(s);
  }
  pthread_mutex_unlock(&lock);
}

void cupti_pc_sampling_stop(const char *why) {
  pthread_mutex_lock(&lock);
  bool sampled = false;
  __atomic_store_n(&stopped, true, __ATOMIC_RELEASE);
  for (unsigned i = 0; i < context_count; i++) {
    struct sampled *s = &contexts[i];
    if (!s->on)
      continue;
    sampled = true;
    gather(s);
    /* Disabling copies what CUPTI still held (the hardware's last samples) into the
     * buffer. */
    CUpti_PCSamplingDisableParams disable = {.size = CUpti_PCSamplingDisableParamsSize,
                                             .ctx = s->context};
    s->data.totalNumPcs = s->data.remainingNumPcs = 0;
    if (pcs.disable(&disable) == CUPTI_SUCCESS)
      write_buffer(s);
    s->on = false;
  }
  uint64_t total = total_samples, dropped = dropped_samples, rounds = gatherings;
  pthread_mutex_unlock(&lock);
  if (sampled)
    tracer_debug("PC sampling: %" PRIu64 " samples, %" PRIu64 " dropped, %" PRIu64
                 " gatherings, %u function names from CUPTI",
                 total, dropped, rounds, name_count);
  if (dropped)
    tracer_notice("cuda",
                  "--pc-sampling: the GPU dropped %" PRIu64 " of %" PRIu64
                  " PC samples (TRACER_PC_SAMPLING_PERIOD=N samples every 2^N cycles)",
                  dropped, total);
  if (sampled && why)
    tracer_notice("cuda", "--pc-sampling stopped: %s", why);
}
#endif
