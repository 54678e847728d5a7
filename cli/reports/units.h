/* units: numbers as people read them in tables (812.34ms, 4.00KiB, 2.22GB/s), and strings
 * as JSON writes them. */
#ifndef TRACER_UNITS_H
#define TRACER_UNITS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

void units_time(uint64_t ns, char *buf, size_t size);
void units_bytes(uint64_t bytes, char *buf, size_t size);
void units_bandwidth(double bytes_per_second, char *buf, size_t size);
/* s as a JSON string, quoted and escaped. */
void units_json_string(FILE *out, const char *s);

#endif
