/* nvtx hooks: what an NVTX tool must do itself.
 *
 * - InitializeInjectionNvtx2, the entry point the app's NVTX looks up in the library
 *   named by NVTX_INJECTION64_PATH: it fills NVTX's callback tables (core and domain
 *   modules) with the collector's functions (generated/nvtx/nvtx_collector.c), by
 *   callback id.
 * - Domains and registered strings are interned: the handle is the tool's copy of the
 *   name, never freed (the app keeps it for its life).
 * - Ranges and marks become regions (runtime/tracer_recording.h): pushes named by their
 *   attributes (nvtxRangePushEx, domain pushes) or by a wide string open one on the
 *   calling thread (pops close it: the spec's regions); start/end ranges, which may end
 *   on another thread, are the runtime's ranges by id; a mark is a region of no length.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "nvtx_args.h"
#include "tracer_recording.h"

/* The callback ids and export tables (NVTX's tool interface, nvtxDetail/nvtxTypes.h)
 * come with nvToolsExt.h. */

/* ---- interned names ---- */

struct name {
  struct name *next;
  char text[];
};
static struct name *names;
static pthread_mutex_t nvtx_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *intern(const char *text) {
  if (!text)
    return NULL;
  pthread_mutex_lock(&nvtx_lock);
  struct name *n = names;
  while (n && strcmp(n->text, text) != 0)
    n = n->next;
  if (!n && (n = malloc(sizeof *n + strlen(text) + 1))) {
    strcpy(n->text, text);
    n->next = names;
    names = n;
  }
  pthread_mutex_unlock(&nvtx_lock);
  return n ? n->text : NULL;
}

static const char *intern_wide(const wchar_t *text, char *buffer, size_t size) {
  if (!text)
    return NULL;
  mbstate_t state = {0};
  const wchar_t *source = text;
  size_t n = wcsrtombs(buffer, &source, size - 1, &state);
  buffer[n == (size_t)-1 ? 0 : n] = '\0';
  return intern(buffer);
}

/* The text of an event's message: ASCII, wide, or a registered string. */
static const char *message_of(const nvtxEventAttributes_t *attributes) {
  if (!attributes)
    return NULL;
  char buffer[256];
  switch (attributes->messageType) {
  case NVTX_MESSAGE_TYPE_ASCII: return attributes->message.ascii;
  case NVTX_MESSAGE_TYPE_UNICODE:
    return intern_wide(attributes->message.unicode, buffer, sizeof buffer);
  case NVTX_MESSAGE_TYPE_REGISTERED: return (const char *)attributes->message.registered;
  default: return NULL;
  }
}

void nvtx_hook_nvtxDomainCreateA_after(struct nvtx_nvtxDomainCreateA_args *args) {
  args->tracer_result = (nvtxDomainHandle_t)intern(args->name);
}
void nvtx_hook_nvtxDomainCreateW_after(struct nvtx_nvtxDomainCreateW_args *args) {
  char buffer[256];
  args->tracer_result = (nvtxDomainHandle_t)intern_wide(args->name, buffer, sizeof buffer);
}
void nvtx_hook_nvtxDomainRegisterStringA_after(struct nvtx_nvtxDomainRegisterStringA_args *args) {
  args->tracer_result = (nvtxStringHandle_t)intern(args->string);
}
void nvtx_hook_nvtxDomainRegisterStringW_after(struct nvtx_nvtxDomainRegisterStringW_args *args) {
  char buffer[256];
  args->tracer_result = (nvtxStringHandle_t)intern_wide(args->string, buffer, sizeof buffer);
}

/* ---- pushes named otherwise than by an ASCII param ---- */

void nvtx_hook_nvtxRangePushEx_after(struct nvtx_nvtxRangePushEx_args *args) {
  tracer_region_open("nvtx", message_of(args->eventAttrib), args->tracer_start);
}
void nvtx_hook_nvtxDomainRangePushEx_after(struct nvtx_nvtxDomainRangePushEx_args *args) {
  tracer_region_open("nvtx", message_of(args->eventAttrib), args->tracer_start);
}
void nvtx_hook_nvtxRangePushW_after(struct nvtx_nvtxRangePushW_args *args) {
  char buffer[256];
  tracer_region_open("nvtx", intern_wide(args->message, buffer, sizeof buffer), args->tracer_start);
}

/* ---- marks: regions of no length ---- */

void nvtx_hook_nvtxMarkA_after(struct nvtx_nvtxMarkA_args *args) {
  tracer_region_mark("nvtx", args->message, args->tracer_start);
}
void nvtx_hook_nvtxMarkW_after(struct nvtx_nvtxMarkW_args *args) {
  char buffer[256];
  tracer_region_mark("nvtx", intern_wide(args->message, buffer, sizeof buffer), args->tracer_start);
}
void nvtx_hook_nvtxMarkEx_after(struct nvtx_nvtxMarkEx_args *args) {
  tracer_region_mark("nvtx", message_of(args->eventAttrib), args->tracer_start);
}
void nvtx_hook_nvtxDomainMarkEx_after(struct nvtx_nvtxDomainMarkEx_args *args) {
  tracer_region_mark("nvtx", message_of(args->eventAttrib), args->tracer_start);
}

/* ---- start/end ranges, by id (tracer_recording.h) ---- */

void nvtx_hook_nvtxRangeStartA_after(struct nvtx_nvtxRangeStartA_args *args) {
  args->tracer_result = tracer_range_start("nvtx", args->message, args->tracer_start);
}
void nvtx_hook_nvtxRangeStartW_after(struct nvtx_nvtxRangeStartW_args *args) {
  char buffer[256];
  args->tracer_result = tracer_range_start(
      "nvtx", intern_wide(args->message, buffer, sizeof buffer), args->tracer_start);
}
void nvtx_hook_nvtxRangeStartEx_after(struct nvtx_nvtxRangeStartEx_args *args) {
  args->tracer_result =
      tracer_range_start("nvtx", message_of(args->eventAttrib), args->tracer_start);
}
void nvtx_hook_nvtxDomainRangeStartEx_after(struct nvtx_nvtxDomainRangeStartEx_args *args) {
  args->tracer_result =
      tracer_range_start("nvtx", message_of(args->eventAttrib), args->tracer_start);
}
void nvtx_hook_nvtxRangeEnd_after(struct nvtx_nvtxRangeEnd_args *args) {
  tracer_range_end("nvtx", args->id, tracer_now());
}
void nvtx_hook_nvtxDomainRangeEnd_after(struct nvtx_nvtxDomainRangeEnd_args *args) {
  tracer_range_end("nvtx", args->id, tracer_now());
}

/* ---- the entry point ---- */

/* The collector's function for each callback slot NVTX has, by module. */
#define SLOT(id, function)                                                                         \
  { id, (NvtxFunctionPointer)function }
struct slot {
  unsigned id;
  NvtxFunctionPointer function;
};
static const struct slot core_slots[] = {
    SLOT(NVTX_CBID_CORE_MarkEx, nvtxMarkEx),
    SLOT(NVTX_CBID_CORE_MarkA, nvtxMarkA),
    SLOT(NVTX_CBID_CORE_MarkW, nvtxMarkW),
    SLOT(NVTX_CBID_CORE_RangeStartEx, nvtxRangeStartEx),
    SLOT(NVTX_CBID_CORE_RangeStartA, nvtxRangeStartA),
    SLOT(NVTX_CBID_CORE_RangeStartW, nvtxRangeStartW),
    SLOT(NVTX_CBID_CORE_RangeEnd, nvtxRangeEnd),
    SLOT(NVTX_CBID_CORE_RangePushEx, nvtxRangePushEx),
    SLOT(NVTX_CBID_CORE_RangePushA, nvtxRangePushA),
    SLOT(NVTX_CBID_CORE_RangePushW, nvtxRangePushW),
    SLOT(NVTX_CBID_CORE_RangePop, nvtxRangePop),
    SLOT(NVTX_CBID_CORE_NameCategoryA, nvtxNameCategoryA),
    SLOT(NVTX_CBID_CORE_NameCategoryW, nvtxNameCategoryW),
    SLOT(NVTX_CBID_CORE_NameOsThreadA, nvtxNameOsThreadA),
    SLOT(NVTX_CBID_CORE_NameOsThreadW, nvtxNameOsThreadW),
};
static const struct slot core2_slots[] = {
    SLOT(NVTX_CBID_CORE2_DomainMarkEx, nvtxDomainMarkEx),
    SLOT(NVTX_CBID_CORE2_DomainRangeStartEx, nvtxDomainRangeStartEx),
    SLOT(NVTX_CBID_CORE2_DomainRangeEnd, nvtxDomainRangeEnd),
    SLOT(NVTX_CBID_CORE2_DomainRangePushEx, nvtxDomainRangePushEx),
    SLOT(NVTX_CBID_CORE2_DomainRangePop, nvtxDomainRangePop),
    SLOT(NVTX_CBID_CORE2_DomainResourceCreate, nvtxDomainResourceCreate),
    SLOT(NVTX_CBID_CORE2_DomainResourceDestroy, nvtxDomainResourceDestroy),
    SLOT(NVTX_CBID_CORE2_DomainNameCategoryA, nvtxDomainNameCategoryA),
    SLOT(NVTX_CBID_CORE2_DomainNameCategoryW, nvtxDomainNameCategoryW),
    SLOT(NVTX_CBID_CORE2_DomainRegisterStringA, nvtxDomainRegisterStringA),
    SLOT(NVTX_CBID_CORE2_DomainRegisterStringW, nvtxDomainRegisterStringW),
    SLOT(NVTX_CBID_CORE2_DomainCreateA, nvtxDomainCreateA),
    SLOT(NVTX_CBID_CORE2_DomainCreateW, nvtxDomainCreateW),
    SLOT(NVTX_CBID_CORE2_DomainDestroy, nvtxDomainDestroy),
    SLOT(NVTX_CBID_CORE2_Initialize, nvtxInitialize),
};

static int fill(const NvtxExportTableCallbacks *callbacks, NvtxCallbackModule module,
                const struct slot *slots, size_t count) {
  NvtxFunctionTable table = NULL;
  unsigned int size = 0;
  if (!callbacks->GetModuleFunctionTable(module, &table, &size) || !table)
    return 0;
  for (size_t i = 0; i < count; i++)
    if (slots[i].id < size && table[slots[i].id])
      *table[slots[i].id] = slots[i].function;
  return 1;
}

int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t getExportTable);
int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t getExportTable) {
  const NvtxExportTableCallbacks *callbacks =
      (const NvtxExportTableCallbacks *)getExportTable(NVTX_ETID_CALLBACKS);
  if (!callbacks || callbacks->struct_size < sizeof *callbacks)
    return 0;
  return fill(callbacks, NVTX_CB_MODULE_CORE, core_slots, sizeof core_slots / sizeof *core_slots) &&
         fill(callbacks, NVTX_CB_MODULE_CORE2, core2_slots,
              sizeof core2_slots / sizeof *core2_slots);
}
