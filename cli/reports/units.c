/* units: see units.h. */
#include "units.h"

#include <stdio.h>

void units_time(uint64_t ns, char *buf, size_t size) {
  double v = (double)ns;
  if (ns < 1000)
    snprintf(buf, size, "%lluns", (unsigned long long)ns);
  else if (ns < 1000000)
    snprintf(buf, size, "%.2fus", v / 1e3);
  else if (ns < 1000000000)
    snprintf(buf, size, "%.2fms", v / 1e6);
  else if (ns < 60000000000ull)
    snprintf(buf, size, "%.2fs", v / 1e9);
  else
    snprintf(buf, size, "%.2fmin", v / 60e9);
}

void units_bytes(uint64_t bytes, char *buf, size_t size) {
  static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = (double)bytes;
  size_t unit = 0;
  while (v >= 1024 && unit + 1 < sizeof names / sizeof *names) {
    v /= 1024;
    unit++;
  }
  if (unit == 0)
    snprintf(buf, size, "%lluB", (unsigned long long)bytes);
  else
    snprintf(buf, size, "%.2f%s", v, names[unit]);
}

void units_bandwidth(double bytes_per_second, char *buf, size_t size) {
  static const char *const names[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
  double v = bytes_per_second;
  size_t unit = 0;
  while (v >= 1000 && unit + 1 < sizeof names / sizeof *names) {
    v /= 1000;
    unit++;
  }
  snprintf(buf, size, "%.2f%s", v, names[unit]);
}

void units_json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(out, "\\%c", *p);
    else if (*p < 0x20)
      fprintf(out, "\\u%04x", *p);
    else
      fputc(*p, out);
  }
  fputc('"', out);
}
