/* A tiny API used by the README to show what apigen makes of a header. */
#ifndef MINIMAL_H
#define MINIMAL_H

#include <stddef.h>
#include <stdint.h>

#define MINI_VERSION "1.2"
#define MINI_FLAG_ASYNC (1u << 0)
#define MINI_FLAG_PINNED (1u << 1)

typedef struct mini_device_s *mini_device_t; /* an opaque handle */

typedef enum mini_result {
  MINI_SUCCESS = 0,
  MINI_ERROR_INVALID = -1,
  MINI_ERROR_OUT_OF_MEMORY = -2,
} mini_result_t;

typedef struct mini_copy_desc {
  void *dst;
  const void *src;
  size_t bytes;
  uint32_t flags : 4;
  uint32_t priority : 3;
} mini_copy_desc_t;

typedef void (*mini_callback_t)(mini_result_t status, void *user_data);

/** Lists the devices.
 * \param[in,out] count  in: room in devices; out: how many there are
 * \param[out] devices   the devices found
 */
mini_result_t miniGetDevices(uint32_t *count, mini_device_t *devices);

/** Copies memory on a device; calls done when finished. */
mini_result_t miniCopy(mini_device_t device, const mini_copy_desc_t *desc,
                       mini_callback_t done, void *user_data);

const char *miniResultString(mini_result_t result);

#endif
