/* A Level Zero program for the tracer's ze test, run on the loader with the upstream
 * null driver (ZE_ENABLE_NULL_DRIVER=1): every call succeeds and no work runs. It
 * exercises what the ze hooks handle, and counts what it did (manifest.h):
 *  - a regular command list (copy in, kernel, copy out) executed twice on a queue;
 *  - an immediate list: a kernel signalling the app's own event, a copy, a fill;
 *  - calls through the dispatch tables of zeGetCommandListProcAddrTable and
 *    zeGetGlobalProcAddrTable, and an extension function lookup.
 * The null driver gives every object of a kind the same handle, so each command list is
 * destroyed before the next is made, and a kernel is launched only while it is the last
 * one created. Copies between host (H), device (D), shared (S) and malloc'd (M) memory
 * are named as the tracer names them.
 */
#include <level_zero/ze_api.h>
#include <level_zero/ze_ddi.h>
#include <stdint.h>

#include "manifest.h"

#define ZE(function, ...) MANIFEST_CALL(function, function(__VA_ARGS__) == ZE_RESULT_SUCCESS)
/* A call through a dispatch table entry, counted under the API function it stands for. */
#define ZE_TABLE(function, entry, ...)                                                    \
  MANIFEST_CALL(function, entry(__VA_ARGS__) == ZE_RESULT_SUCCESS)

enum { N = 1 << 16 };

static const char *copy_name(const char *kind) {
  static char names[8][64];
  static int next;
  char *name = names[next++ % 8];
  snprintf(name, sizeof names[0], "zeCommandListAppendMemoryCopy(%s)", kind);
  return name;
}

int main(void) {
  ZE(zeInit, 0);
  uint32_t count = 0;
  ze_driver_handle_t driver;
  ZE(zeDriverGet, &count, NULL);
  count = 1;
  ZE(zeDriverGet, &count, &driver);
  ze_device_handle_t device;
  count = 1;
  ZE(zeDeviceGet, driver, &count, &device);
  ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
  ZE(zeDeviceGetProperties, device, &props);
  ze_context_desc_t context_desc = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
  ze_context_handle_t context;
  ZE(zeContextCreate, driver, &context_desc, &context);

  static const uint8_t spirv[] = {0x03, 0x02, 0x23, 0x07}; /* never read by the driver */
  ze_module_desc_t module_desc = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                                  .format = ZE_MODULE_FORMAT_IL_SPIRV,
                                  .inputSize = sizeof spirv,
                                  .pInputModule = spirv};
  ze_module_handle_t module;
  ZE(zeModuleCreate, context, device, &module_desc, &module, NULL);

  ze_device_mem_alloc_desc_t device_desc = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
  ze_host_mem_alloc_desc_t host_desc = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
  void *dev, *host, *shared;
  ZE(zeMemAllocDevice, context, &device_desc, N, 64, device, &dev);
  ZE(zeMemAllocHost, context, &host_desc, N, 64, &host);
  ZE(zeMemAllocShared, context, &device_desc, &host_desc, N, 64, device, &shared);
  void *plain = calloc(1, N);

  /* A regular list, run twice. */
  ze_kernel_desc_t vadd_desc = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "vadd"};
  ze_kernel_handle_t vadd;
  ZE(zeKernelCreate, module, &vadd_desc, &vadd);
  ZE(zeKernelSetGroupSize, vadd, 64, 1, 1);
  ZE(zeKernelSetArgumentValue, vadd, 0, sizeof dev, &dev);
  ze_group_count_t groups = {N / 64, 1, 1};
  ze_command_queue_desc_t queue_desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                        .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS};
  ze_command_queue_handle_t queue;
  ZE(zeCommandQueueCreate, context, device, &queue_desc, &queue);
  ze_command_list_desc_t list_desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
  ze_command_list_handle_t list;
  ZE(zeCommandListCreate, context, device, &list_desc, &list);
  ZE(zeCommandListAppendMemoryCopy, list, dev, host, N, NULL, 0, NULL);
  ZE(zeCommandListAppendLaunchKernel, list, vadd, &groups, NULL, 0, NULL);
  ZE(zeCommandListAppendMemoryCopy, list, plain, dev, N, NULL, 0, NULL);
  ZE(zeCommandListClose, list);
  for (int run = 0; run < 2; run++) {
    ZE(zeCommandQueueExecuteCommandLists, queue, 1, &list, NULL);
    ZE(zeCommandQueueSynchronize, queue, UINT64_MAX);
    manifest_transfer(copy_name("H2D"), N);
    manifest_kernel("vadd");
    manifest_transfer(copy_name("D2M"), N);
  }
  ZE(zeCommandListDestroy, list);

  /* An immediate list, with the app's own event on the kernel. */
  ze_kernel_desc_t scale_desc = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC,
                                 .pKernelName = "scale"};
  ze_kernel_handle_t scale;
  ZE(zeKernelCreate, module, &scale_desc, &scale);
  ze_event_pool_desc_t pool_desc = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                                    .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
                                    .count = 1};
  ze_event_pool_handle_t pool;
  ZE(zeEventPoolCreate, context, &pool_desc, 1, &device, &pool);
  ze_event_desc_t event_desc = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC,
                                .signal = ZE_EVENT_SCOPE_FLAG_HOST,
                                .wait = ZE_EVENT_SCOPE_FLAG_HOST};
  ze_event_handle_t event;
  ZE(zeEventCreate, pool, &event_desc, &event);
  ze_command_list_handle_t immediate;
  ZE(zeCommandListCreateImmediate, context, device, &queue_desc, &immediate);
  ZE(zeCommandListAppendLaunchKernel, immediate, scale, &groups, event, 0, NULL);
  manifest_kernel("scale");
  ZE(zeCommandListAppendMemoryCopy, immediate, shared, dev, N / 2, NULL, 0, NULL);
  manifest_transfer(copy_name("D2S"), N / 2);
  static const uint32_t pattern = 0xabcdef;
  ZE(zeCommandListAppendMemoryFill, immediate, dev, &pattern, sizeof pattern, N, NULL, 0, NULL);
  manifest_transfer("zeCommandListAppendMemoryFill", N);
  ZE(zeEventHostSynchronize, event, UINT64_MAX);
  ZE(zeCommandListDestroy, immediate);

  /* Through the dispatch tables, as a layer or a runtime calls. */
  ze_global_dditable_t global;
  ZE(zeGetGlobalProcAddrTable, ZE_API_VERSION_CURRENT, &global);
  ZE_TABLE(zeInit, global.pfnInit, 0);
  ze_command_list_dditable_t lists;
  ZE(zeGetCommandListProcAddrTable, ZE_API_VERSION_CURRENT, &lists);
  ze_command_list_handle_t through_table;
  ZE_TABLE(zeCommandListCreateImmediate, lists.pfnCreateImmediate, context, device, &queue_desc,
           &through_table);
  ZE_TABLE(zeCommandListAppendMemoryCopy, lists.pfnAppendMemoryCopy, through_table, host, dev,
           N, NULL, 0, NULL);
  manifest_transfer(copy_name("D2H"), N);
  ZE_TABLE(zeCommandListAppendLaunchKernel, lists.pfnAppendLaunchKernel, through_table, scale,
           &groups, NULL, 0, NULL);
  manifest_kernel("scale");
  ZE_TABLE(zeCommandListDestroy, lists.pfnDestroy, through_table);

  /* An extension lookup (the null driver knows none, and says so with a NULL address). */
  void *extension = NULL;
  ZE(zeDriverGetExtensionFunctionAddress, driver, "zexDriverImportExternalPointer", &extension);

  ZE(zeEventDestroy, event);
  ZE(zeEventPoolDestroy, pool);
  ZE(zeCommandQueueDestroy, queue);
  ZE(zeKernelDestroy, scale);
  ZE(zeKernelDestroy, vadd);
  ZE(zeModuleDestroy, module);
  ZE(zeMemFree, context, shared);
  ZE(zeMemFree, context, host);
  ZE(zeMemFree, context, dev);
  free(plain);
  ZE(zeContextDestroy, context);
  manifest_write();
  printf("ze_app: %s, done\n", props.name);
  return 0;
}
