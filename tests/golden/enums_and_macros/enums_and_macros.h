/* Golden case "enums_and_macros": enum values and macro constants a naive parser
 * gets wrong. */
#ifndef ENUMS_AND_MACROS_H
#define ENUMS_AND_MACROS_H
#include <stdint.h>

/* Negative values, implicit values counting up from a negative one, and a repeat. */
typedef enum em_status {
  EM_ERROR_LAST = -100,
  EM_ERROR_NEXT,          /* -99 */
  EM_ERROR_DEVICE = -2,
  EM_ERROR = -1,
  EM_OK = 0,
  EM_OK_ALIAS = EM_OK,
  EM_STATUS_FORCE_UINT = 0x7fffffff
} em_status_t;

/* Values that need 64 bits: the enum's type becomes unsigned long. */
enum em_wide {
  EM_WIDE_ZERO = 0,
  EM_WIDE_BIT40 = 1ULL << 40,
  EM_WIDE_MAX = 0xFFFFFFFFFFFFFFFF
};

/* A 64-bit signed enum: INT64_MIN and INT64_MAX. */
enum em_signed64 {
  EM_S64_MIN = INT64_MIN,
  EM_S64_MINUS_ONE = -1,
  EM_S64_MAX = INT64_MAX
};

/* Flags built from shifts, and an unsigned 32-bit enum. */
typedef enum {
  EM_FLAG_A = 1u << 0,
  EM_FLAG_B = 1u << 1,
  EM_FLAG_AB = EM_FLAG_A | EM_FLAG_B,
  EM_FLAG_TOP = 0x80000000u
} em_flags_t;

typedef uint64_t em_bitfield_t;

/* Macros that are expressions. */
#define EM_VERSION_MAJOR 2
#define EM_VERSION_MINOR 7
#define EM_VERSION ((EM_VERSION_MAJOR << 16) | EM_VERSION_MINOR)
#define EM_BIT(n) (1u << (n))
#define EM_MASK_LOW EM_BIT(3)
#define EM_CAST_FLAG ((em_bitfield_t)1 << 33)
#define EM_NEGATIVE (-42)
#define EM_NEGATIVE_HEX -0x10
#define EM_FROM_ENUM (EM_ERROR_DEVICE * 10)
#define EM_SIZE sizeof(em_bitfield_t)
#define EM_CHAR 'A'
#define EM_U64_MAX 0xFFFFFFFFFFFFFFFFull
#define EM_NAME "em" "-" "lib"
#define EM_PATH ("/dev/" "em0")
#define EM_EMPTY
#define EM_TYPE unsigned long
#define EM_HANDLE_TYPE em_bitfield_t
#define EM_FLOAT 1.5f
#define EM_EXCLUDED_VALUE 99

em_status_t em_set_flags(em_flags_t flags, enum em_wide wide, enum em_signed64 s);
#endif
