/* A behaviour for the null NVML (generated/nvml/nvml_null_library.c), for the sampler's
 * tests (tests/sample/): one device, named, whose counters the test controls through
 * its environment, one step per reading (the sampler reads each query once per period):
 * - memory used: NVML_NULL_MEMORY_STEP bytes more at each reading (the first reads one
 *   step), out of 80 GiB, besides NVML_NULL_MEMORY_RESERVED bytes the driver keeps
 *   (default 615 MiB, an idle H200's): nvmlDeviceGetMemoryInfo_v2 (its struct's version
 *   checked, as NVML does) gives the used memory without them, as nvidia-smi shows it,
 *   the first nvmlDeviceGetMemoryInfo with them;
 * - power: 100 W for the first NVML_NULL_POWER_STEP readings, 250 W after;
 * - clocks, utilisation and temperature: fixed values;
 * - with NVML_NULL_INIT_FAILS set (non-empty), nvmlInit_v2 fails: no device is read.
 * Every other function is the generated null one: it succeeds and does nothing.
 */
#include <nvml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int the_device;

static unsigned long long setting(const char *name, unsigned long long fallback) {
  const char *v = getenv(name);
  return v && *v ? strtoull(v, NULL, 10) : fallback;
}

nvmlReturn_t nvmlInit_v2(void) {
  return setting("NVML_NULL_INIT_FAILS", 0) ? NVML_ERROR_DRIVER_NOT_LOADED : NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount) {
  *deviceCount = 1;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
  if (index != 0)
    return NVML_ERROR_INVALID_ARGUMENT;
  *device = (nvmlDevice_t)(void *)&the_device;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
  (void)device;
  snprintf(name, length, "Null GPU");
  return NVML_SUCCESS;
}

/* The memory the sampler's i-th reading finds in use (either query counts a reading). */
static unsigned long long readings;

static unsigned long long reserved(void) {
  return setting("NVML_NULL_MEMORY_RESERVED", 615ull << 20);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
  (void)device;
  memory->total = 80ull << 30;
  memory->used = ++readings * setting("NVML_NULL_MEMORY_STEP", 1 << 20) + reserved();
  memory->free = memory->total - memory->used;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory) {
  (void)device;
  if (memory->version != nvmlMemory_v2)
    return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  memory->total = 80ull << 30;
  memory->reserved = reserved();
  memory->used = ++readings * setting("NVML_NULL_MEMORY_STEP", 1 << 20);
  memory->free = memory->total - memory->reserved - memory->used;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power) {
  (void)device;
  static unsigned long long readings;
  *power = ++readings <= setting("NVML_NULL_POWER_STEP", 5) ? 100000 : 250000; /* mW */
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type,
                                    unsigned int *clock) {
  (void)device;
  *clock = type == NVML_CLOCK_SM ? 1980 : 2619;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *u) {
  (void)device;
  u->gpu = 50;
  u->memory = 25;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensor,
                                      unsigned int *temperature) {
  (void)device;
  (void)sensor;
  *temperature = 40;
  return NVML_SUCCESS;
}
