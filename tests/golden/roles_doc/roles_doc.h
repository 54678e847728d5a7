/* Golden case "roles_doc": param roles written in doc comments, in the styles of
 * Level Zero (trailing ///<), Doxygen (\param[dir], @param [dir]) and CUDA. */
#ifndef ROLES_DOC_H
#define ROLES_DOC_H
#include <stddef.h>
#include <stdint.h>

typedef struct rd_device_s *rd_device_handle_t;
typedef struct rd_properties {
  uint32_t count;
  char name[32];
} rd_properties_t;

/* Level Zero style: tags after each param, an array length from range(0, *pCount). */
int rdDeviceGet(
    rd_device_handle_t hParent,                     ///< [in] handle of the parent
    uint32_t *pCount,                               ///< [in,out] pointer to the number of devices.
                                                    ///< if count is zero, the call returns the count.
    rd_device_handle_t *phDevices                   ///< [out][optional][range(0, *pCount)] array of handles
    );

/* Level Zero style: an out struct, an in-out without a comma, and an optional input. */
int rdDeviceGetProperties(
    rd_device_handle_t hDevice,                     ///< [in] handle of the device
    rd_properties_t *pProperties,                   ///< [in, out] query result
    const char *pName,                              ///< [in][optional] a name to match
    void *pScratch                                  ///< [out] scratch space
    );

/**
 * \brief Doxygen style with the direction in brackets.
 * \param[in]     size    bytes to copy
 * \param[out]    dst     where the bytes go
 * \param[in,out] cursor  advanced by size
 * \param[in]     flags   not a pointer, stays in
 */
int rd_copy(size_t size, void *dst, size_t *cursor, unsigned flags);

/**
 * @brief Doxygen style with @ and a space before the bracket.
 * @param [out] value    the value read
 * @param [in] key       what to read
 * @param [in] [optional] fallback   used when the key is missing
 */
int rd_read(int *value, const char *key, const int *fallback);

/**
 * \brief CUDA style: no brackets, outputs start with "Returned".
 *
 * \param pCount  - Returned number of devices
 * \param device  - Device to query
 * \param pName   - Returned name of the device
 * \param len     - Maximum length of pName
 */
int rdGetDeviceName(int *pCount, int device, char *pName, int len);

/* No doc comment: the C declaration decides (a const pointer is in, a non-const
 * pointer is taken as out, const char * is a string, a sized array has its size as
 * length). */
int rd_plain(const int *in_values, int *out_values, const char *label, char buffer[64]);
#endif
