/* nvtx hooks: what an NVTX tool must do itself.
 *
 * - InitializeInjectionNvtx2, the entry point the app's NVTX looks up in the library
 *   named by NVTX_INJECTION64_PATH: it fills NVTX's callback tables (core and domain
 *   modules) with the collector's functions (generated/nvtx/nvtx_collector.c), by
 *   callback id.
 * - The name of a region given by event attributes (ASCII, wide or registered string).
 * Domains and registered strings, and the regions of ranges and marks, are the spec's
 * (trace.results, trace.regions).
 */
#include "nvtx_args.h"
#include "tracer_given.h"

/* The callback ids and export tables (NVTX's tool interface, nvtxDetail/nvtxTypes.h)
 * come with nvToolsExt.h. */

const char *nvtx_region_name(const nvtxEventAttributes_t *attributes) {
  if (!attributes)
    return NULL;
  switch (attributes->messageType) {
  case NVTX_MESSAGE_TYPE_ASCII: return attributes->message.ascii;
  case NVTX_MESSAGE_TYPE_UNICODE: return tracer_intern_wide(attributes->message.unicode);
  case NVTX_MESSAGE_TYPE_REGISTERED: return (const char *)attributes->message.registered;
  default: return NULL;
  }
}

/* ---- the entry point ---- */

/* Fills a module's table with the collector's functions (trace.callback_tables). */
static int fill(const NvtxExportTableCallbacks *callbacks, const struct tracer_slot_table *t) {
  NvtxFunctionTable table = NULL;
  unsigned int size = 0;
  if (!callbacks->GetModuleFunctionTable((NvtxCallbackModule)t->module, &table, &size) || !table)
    return 0;
  for (unsigned i = 0; i < t->count; i++)
    if ((unsigned)t->slots[i].id < size && table[t->slots[i].id])
      *table[t->slots[i].id] = (NvtxFunctionPointer)t->slots[i].fn;
  return 1;
}

int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t getExportTable);
int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t getExportTable) {
  const NvtxExportTableCallbacks *callbacks =
      (const NvtxExportTableCallbacks *)getExportTable(NVTX_ETID_CALLBACKS);
  if (!callbacks || callbacks->struct_size < sizeof *callbacks)
    return 0;
  for (unsigned i = 0; i < nvtx_callback_table_count; i++)
    if (!fill(callbacks, &nvtx_callback_tables[i]))
      return 0;
  return 1;
}
