/* option_values: see option_values.h. */
#include "option_values.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* The leading decimal digits of text; *end after them. */
static bool leading_number(const char *text, uint64_t *value, const char **end, char *why,
                           size_t size) {
  if (!isdigit((unsigned char)text[0])) {
    snprintf(why, size, "not a number%s", text[0] == '-' ? " of 0 or more" : "");
    return false;
  }
  errno = 0;
  char *after;
  unsigned long long v = strtoull(text, &after, 10);
  if (errno == ERANGE) {
    snprintf(why, size, "too large (more than 64 bits)");
    return false;
  }
  *value = v;
  *end = after;
  return true;
}

static bool within(uint64_t v, uint64_t min, uint64_t max, bool bytes, char *why, size_t size) {
  char bound[32];
  if (v < min) {
    snprintf(why, size, "too small (the least is %s)",
             bytes ? option_size_text(min, bound, sizeof bound)
                   : (snprintf(bound, sizeof bound, "%" PRIu64, min), bound));
    return false;
  }
  if (v > max) {
    snprintf(why, size, "too large (the most is %s)",
             bytes ? option_size_text(max, bound, sizeof bound)
                   : (snprintf(bound, sizeof bound, "%" PRIu64, max), bound));
    return false;
  }
  return true;
}

bool option_size(const char *text, uint64_t min, uint64_t max, uint64_t *value, char *why,
                 size_t size) {
  uint64_t v;
  const char *end;
  if (!leading_number(text, &v, &end, why, size))
    return false;
  unsigned shift = 0;
  if (*end == 'k' || *end == 'K')
    shift = 10;
  else if (*end == 'M')
    shift = 20;
  else if (*end == 'G')
    shift = 30;
  if (shift)
    end++;
  if (*end) {
    snprintf(why, size, "unknown suffix '%s' (a size takes k, M or G)", shift ? end - 1 : end);
    return false;
  }
  if (shift && v > UINT64_MAX >> shift) {
    snprintf(why, size, "too large (more than 64 bits of bytes)");
    return false;
  }
  v <<= shift;
  if (!within(v, min, max, true, why, size))
    return false;
  *value = v;
  return true;
}

bool option_count(const char *text, uint64_t min, uint64_t max, uint64_t *value, char *why,
                  size_t size) {
  uint64_t v;
  const char *end;
  if (!leading_number(text, &v, &end, why, size))
    return false;
  if (*end) {
    snprintf(why, size, "not a whole number ('%s' after the digits)", end);
    return false;
  }
  if (!within(v, min, max, false, why, size))
    return false;
  *value = v;
  return true;
}

bool option_power_of_two(uint64_t value, char *why, size_t size) {
  if (value && !(value & (value - 1)))
    return true;
  snprintf(why, size, "not a power of 2");
  return false;
}

const char *option_size_text(uint64_t bytes, char *out, size_t size) {
  static const char units[] = "kMG";
  int unit = -1;
  while (unit < 2 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    unit++;
  }
  if (unit < 0)
    snprintf(out, size, "%" PRIu64 " bytes", bytes);
  else
    snprintf(out, size, "%" PRIu64 "%c", bytes, units[unit]);
  return out;
}
