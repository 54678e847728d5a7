/* omp hooks: starting the generated OMPT tool (generated/omp/omp_tool.c), chaining to the
 * app's own tool, and putting offload work on the device table.
 *
 * The tracer preloads this library, so the OpenMP runtime's search for ompt_start_tool
 * finds ours first, unless the executable itself defines one: that tool then wins and
 * nothing is traced, which the constructor below says. Ours chains to the next tool it
 * finds, as the runtime would have: a later ompt_start_tool in the process, else the
 * first library of OMP_TOOL_LIBRARIES whose ompt_start_tool accepts. The chained tool
 * initializes through our lookup, whose ompt_set_callback stores its callbacks of the
 * kinds we trace (ours call them after recording) and passes the others on. Transfers and
 * submits are the spec's device commands (trace.commands), a submit on its region's device.
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omp_args.h"
#include "tracer_notice.h"
#include "tracer_tool.h"

extern const struct tracer_callback omp_callbacks[];
extern const unsigned omp_callback_count;

typedef ompt_start_tool_result_t *omp_start_tool_fn(unsigned int, const char *);

static ompt_start_tool_result_t *omp_next_tool;
static ompt_set_callback_t omp_runtime_set_callback;
static ompt_function_lookup_t omp_runtime_lookup;

static ompt_set_result_t omp_chained_set_callback(ompt_callbacks_t which, ompt_callback_t cb) {
  for (unsigned i = 0; i < omp_callback_count; i++)
    if (omp_callbacks[i].id == (int)which) {
      *omp_callbacks[i].next = (tracer_callback_fn *)cb;
      return ompt_set_always;
    }
  return omp_runtime_set_callback(which, cb);
}

static ompt_interface_fn_t omp_chained_lookup(const char *name) {
  if (strcmp(name, "ompt_set_callback") == 0)
    return (ompt_interface_fn_t)omp_chained_set_callback;
  return omp_runtime_lookup(name);
}

static int omp_find_offload_library(struct dl_phdr_info *info, size_t size, void *found) {
  (void)size;
  const char *base = strrchr(info->dlpi_name, '/');
  if (strncmp(base ? base + 1 : info->dlpi_name, "libomptarget.so", 15) != 0)
    return 0;
  snprintf(found, PATH_MAX, "%s", info->dlpi_name);
  return 1;
}

/* LLVM's libomptarget connects to libomp for OMPT by loading "libomp.so" through the
 * library search, which does not look where the app's own RUNPATH found libomp (Debian's
 * /usr/lib/llvm-19/lib): then no target callback ever comes, traced or not. The search
 * is tried here without loading anything (RTLD_NOLOAD succeeds only for the libomp
 * already loaded); when it fails, the report says why offload is missing, and the fix. */
static void omp_check_offload_connection(void) {
  char offload[PATH_MAX] = "";
  if (!dl_iterate_phdr(omp_find_offload_library, offload))
    return;
  void *libomp = dlopen("libomp.so", RTLD_LAZY | RTLD_NOLOAD);
  if (libomp) {
    dlclose(libomp);
    return;
  }
  Dl_info info;
  char folder[PATH_MAX] = "the folder of the app's libomp";
  if (dladdr((void *)omp_runtime_set_callback, &info) && info.dli_fname) {
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", info.dli_fname);
    snprintf(folder, sizeof folder, "%s", dirname(copy));
  }
  tracer_notice("omp",
                "OpenMP offload is not traced: %s finds no libomp.so to connect its OMPT "
                "callbacks to; add %s to LD_LIBRARY_PATH",
                offload, folder);
}

static int omp_tool_initialize(ompt_function_lookup_t lookup, int initial_device_num,
                               ompt_data_t *tool_data) {
  (void)tool_data;
  omp_runtime_lookup = lookup;
  omp_runtime_set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!omp_runtime_set_callback)
    return 0;
  omp_check_offload_connection();
  for (unsigned i = 0; i < omp_callback_count; i++) {
    ompt_set_result_t set = omp_runtime_set_callback((ompt_callbacks_t)omp_callbacks[i].id,
                                                     (ompt_callback_t)omp_callbacks[i].fn);
    tracer_debug("OMPT callback %s: %s", omp_callbacks[i].name,
                 set == ompt_set_never ? "refused" : "registered");
  }
  if (omp_next_tool && omp_next_tool->initialize &&
      !omp_next_tool->initialize(omp_chained_lookup, initial_device_num,
                                 &omp_next_tool->tool_data))
    omp_next_tool = NULL; /* it declined: its callbacks stay unset */
  return 1;
}

static void omp_tool_finalize(ompt_data_t *tool_data) {
  (void)tool_data;
  if (omp_next_tool && omp_next_tool->finalize)
    omp_next_tool->finalize(&omp_next_tool->tool_data);
}

/* Whether address is in this library. Not by comparing with ompt_start_tool: that name,
 * exported, may be bound to another tool's definition even here. */
static bool omp_is_ours(void *address) {
  Dl_info ours, theirs;
  return dladdr((void *)omp_tool_initialize, &ours) && dladdr(address, &theirs) &&
         ours.dli_fbase == theirs.dli_fbase;
}

/* The tool the runtime would have started without us. */
static ompt_start_tool_result_t *omp_find_next_tool(unsigned int omp_version,
                                                    const char *runtime_version) {
  omp_start_tool_fn *later = (omp_start_tool_fn *)dlsym(RTLD_NEXT, "ompt_start_tool");
  ompt_start_tool_result_t *found = later ? later(omp_version, runtime_version) : NULL;
  const char *libraries = getenv("OMP_TOOL_LIBRARIES");
  char *list = !found && libraries ? strdup(libraries) : NULL, *save = NULL;
  for (char *path = list ? strtok_r(list, ":", &save) : NULL; path && !found;
       path = strtok_r(NULL, ":", &save)) {
    void *library = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    omp_start_tool_fn *start =
        library ? (omp_start_tool_fn *)dlsym(library, "ompt_start_tool") : NULL;
    if (start && !omp_is_ours((void *)start))
      found = start(omp_version, runtime_version);
  }
  free(list);
  return found;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version) {
  static ompt_start_tool_result_t ours = {omp_tool_initialize, omp_tool_finalize, {0}};
  omp_next_tool = omp_find_next_tool(omp_version, runtime_version);
  return &ours;
}

/* An executable that defines ompt_start_tool is searched before any preloaded library:
 * the runtime starts its tool, never ours. Said once, at load. */
__attribute__((constructor)) static void omp_check_app_tool(void) {
  void *first = dlsym(RTLD_DEFAULT, "ompt_start_tool");
  Dl_info info;
  if (!first || omp_is_ours(first) || !dladdr(first, &info) ||
      (info.dli_fname && strstr(info.dli_fname, "libomp")))
    return;
  char message[512];
  int n = snprintf(message, sizeof message,
                   "tracer: %s defines its own OMPT tool (ompt_start_tool), which the OpenMP "
                   "runtime starts instead of the tracer's: OpenMP offload is not traced. "
                   "Build that tool as a library and name it in OMP_TOOL_LIBRARIES: the "
                   "tracer's tool then starts it too.\n",
                   info.dli_fname && *info.dli_fname ? info.dli_fname : "the program");
  if (n > 0)
    (void)!write(2, message, (size_t)n < sizeof message ? (size_t)n : sizeof message - 1);
}
