/* manifest: a test app's own count of what it did, written as JSON to $APP_MANIFEST when
 * that is set, in the form tests/e2e/compare.jq reads (tests/e2e/README.md):
 *   {"processes": 1, "threads": 1, "calls": {...}, "errors": 0, "failed": {},
 *    "bytes": {...}, "transfers": {...}, "kernels": {...}}
 * For apps whose calls all succeed (an app stops at the first failure), made on one
 * thread, or counted there after the threads that made them ended (manifest_threads).
 * Header-only: each app includes it once.
 */
#ifndef TEST_MANIFEST_H
#define TEST_MANIFEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MANIFEST_NAMES = 128 };

struct manifest_counts {
  const char *name[MANIFEST_NAMES];
  uint64_t value[MANIFEST_NAMES];
  size_t count;
};

static struct manifest_counts manifest_calls, manifest_bytes, manifest_transfers,
    manifest_kernels;
static unsigned manifest_threads = 1; /* threads that made the calls */

static void manifest_add(struct manifest_counts *c, const char *name, uint64_t n) {
  size_t i = 0;
  while (i < c->count && strcmp(c->name[i], name) != 0)
    i++;
  if (i == MANIFEST_NAMES) {
    fprintf(stderr, "manifest: more than %d names\n", MANIFEST_NAMES);
    exit(1);
  }
  if (i == c->count) {
    c->name[c->count++] = name;
    c->value[i] = 0;
  }
  c->value[i] += n;
}

/* One successful call of function; a failing one ends the app. */
#define MANIFEST_CALL(function, call)                                                     \
  do {                                                                                    \
    manifest_add(&manifest_calls, #function, 1);                                          \
    if (!(call)) {                                                                        \
      fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #function);               \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

/* A copy as the device table names it ("hipMemcpy(H2D)"), with its bytes. */
static void manifest_transfer(const char *device_name, uint64_t bytes) {
  manifest_add(&manifest_transfers, device_name, 1);
  manifest_add(&manifest_bytes, device_name, bytes);
}

static void manifest_kernel(const char *name) { manifest_add(&manifest_kernels, name, 1); }

static void manifest_print(FILE *f, const char *key, const struct manifest_counts *c) {
  fprintf(f, "\"%s\": {", key);
  for (size_t i = 0; i < c->count; i++)
    fprintf(f, "%s\"%s\": %llu", i ? ", " : "", c->name[i], (unsigned long long)c->value[i]);
  fputs("}", f);
}

static void manifest_write(void) {
  const char *path = getenv("APP_MANIFEST");
  if (!path)
    return;
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(1);
  }
  fprintf(f, "{\"processes\": 1, \"threads\": %u, ", manifest_threads);
  manifest_print(f, "calls", &manifest_calls);
  fputs(", \"errors\": 0, \"failed\": {}, ", f);
  manifest_print(f, "bytes", &manifest_bytes);
  fputs(", ", f);
  manifest_print(f, "transfers", &manifest_transfers);
  fputs(", ", f);
  manifest_print(f, "kernels", &manifest_kernels);
  fputs("}\n", f);
  fclose(f);
}

#endif
