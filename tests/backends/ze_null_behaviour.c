/* A behaviour for the null Level Zero loader (generated/ze/ze_null_library.c), for the
 * sampler's tests (tests/sample/): one driver with one device, seen through Sysman with
 * one power domain and one memory module whose counters the test controls through its
 * environment, one step per reading (the sampler reads each query once per period):
 * - the energy counter: its timestamp 100 ms later at each reading, its energy that much
 *   more at 100 W for the first ZE_NULL_POWER_STEP readings and at 250 W after, so the
 *   power between two readings is exactly one of the two;
 * - memory used: ZE_NULL_MEMORY_STEP bytes more at each reading, out of 16 GiB;
 * - no frequency domain, engine group or temperature sensor.
 * Every other function is the generated null one: it succeeds and does nothing (the ze
 * tests run the real loader with its null driver, not this library).
 */
#include <level_zero/ze_api.h>
#include <level_zero/zes_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int the_driver, the_device, the_power, the_memory;

static unsigned long long setting(const char *name, unsigned long long fallback) {
  const char *v = getenv(name);
  return v && *v ? strtoull(v, NULL, 10) : fallback;
}

/* One handle in a two-call list: the count asked, then the handle. */
static ze_result_t one(uint32_t *count, void **handles, void *handle) {
  if (*count == 0 || !handles) {
    *count = 1;
    return ZE_RESULT_SUCCESS;
  }
  *count = 1;
  handles[0] = handle;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t none(uint32_t *count) {
  *count = 0;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers) {
  return one(pCount, (void **)phDrivers, &the_driver);
}

ze_result_t zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount,
                        ze_device_handle_t *phDevices) {
  (void)hDriver;
  return one(pCount, (void **)phDevices, &the_device);
}

ze_result_t zeDeviceGetProperties(ze_device_handle_t hDevice, ze_device_properties_t *p) {
  (void)hDevice;
  snprintf(p->name, sizeof p->name, "Null Sysman GPU");
  return ZE_RESULT_SUCCESS;
}

ze_result_t zesDeviceEnumPowerDomains(zes_device_handle_t hDevice, uint32_t *pCount,
                                      zes_pwr_handle_t *phPower) {
  (void)hDevice;
  return one(pCount, (void **)phPower, &the_power);
}

ze_result_t zesPowerGetEnergyCounter(zes_pwr_handle_t hPower, zes_power_energy_counter_t *e) {
  (void)hPower;
  static unsigned long long readings, energy_uj;
  readings++;
  energy_uj += (readings <= setting("ZE_NULL_POWER_STEP", 5) ? 100 : 250) * 100000ull;
  e->energy = energy_uj;
  e->timestamp = readings * 100000ull; /* us */
  return ZE_RESULT_SUCCESS;
}

ze_result_t zesDeviceEnumMemoryModules(zes_device_handle_t hDevice, uint32_t *pCount,
                                       zes_mem_handle_t *phMemory) {
  (void)hDevice;
  return one(pCount, (void **)phMemory, &the_memory);
}

ze_result_t zesMemoryGetState(zes_mem_handle_t hMemory, zes_mem_state_t *pState) {
  (void)hMemory;
  static unsigned long long readings;
  pState->size = 16ull << 30;
  pState->free = pState->size - ++readings * setting("ZE_NULL_MEMORY_STEP", 1 << 20);
  return ZE_RESULT_SUCCESS;
}

ze_result_t zesDeviceEnumFrequencyDomains(zes_device_handle_t hDevice, uint32_t *pCount,
                                          zes_freq_handle_t *phFrequency) {
  (void)hDevice;
  (void)phFrequency;
  return none(pCount);
}

ze_result_t zesDeviceEnumEngineGroups(zes_device_handle_t hDevice, uint32_t *pCount,
                                      zes_engine_handle_t *phEngine) {
  (void)hDevice;
  (void)phEngine;
  return none(pCount);
}

ze_result_t zesDeviceEnumTemperatureSensors(zes_device_handle_t hDevice, uint32_t *pCount,
                                            zes_temp_handle_t *phTemperature) {
  (void)hDevice;
  (void)phTemperature;
  return none(pCount);
}
