/* option_values: the values of the tracer's numeric options, read strictly. A value is
 * refused with the reason in why (one phrase, for "--OPTION VALUE: WHY"): not a number,
 * an unknown suffix, too large for 64 bits, below the least the option takes, not a power
 * of 2. strtoull alone took "2Q" as 2 and "17179869185G" as 1G (the shift overflowed). */
#ifndef TRACER_OPTION_VALUES_H
#define TRACER_OPTION_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A size: decimal digits and an optional k (or K), M or G suffix (binary units), from
 * min to max bytes. */
bool option_size(const char *text, uint64_t min, uint64_t max, uint64_t *value, char *why,
                 size_t size);

/* A count: decimal digits only, from min to max. */
bool option_count(const char *text, uint64_t min, uint64_t max, uint64_t *value, char *why,
                  size_t size);

/* A size (option_size) or count that must also be a power of 2. */
bool option_power_of_two(uint64_t value, char *why, size_t size);

/* "1M", "4k", "1G" or the bytes: a bound as the messages write it. */
const char *option_size_text(uint64_t bytes, char *out, size_t size);

#endif
