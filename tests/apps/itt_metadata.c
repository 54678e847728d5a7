/* itt_metadata: string metadata through ITT's __itt_metadata_str_add, whose `length` is
 * the number of characters of `data`, or -1 (0 in older ittnotify.h) when data ends in
 * NUL and its length is unknown. Adds one string each way: -1, 0, 5 chars of a longer
 * string, and 7 chars that end a page the next of which cannot be read (no NUL after
 * them: a tracer that reads them as a NUL-terminated string faults).
 *
 * Writes to argv[1] one line per call, EVENT<TAB>TEXT, the text that `tracer -m full -t`
 * must show in the entry line of that call (tests/e2e/itt_metadata_test.sh). Exits 77
 * when no collector is loaded.
 */
#define _DEFAULT_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ittnotify.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: itt_metadata EXPECT_TSV\n");
    return 2;
  }
  void *lib = NULL;
  const char *path = getenv("INTEL_LIBITTNOTIFY64");
  if (path && *path)
    lib = dlopen(path, RTLD_LAZY);
  if (!lib || !dlsym(lib, "__itt_api_version")) {
    fprintf(stderr, "itt_metadata: no ITT collector (INTEL_LIBITTNOTIFY64)\n");
    return 77;
  }
  __typeof__(__itt_domain_create) *domain_create = (__typeof__(__itt_domain_create) *)dlsym(
      lib, "__itt_domain_create");
  __typeof__(__itt_string_handle_create) *handle_create =
      (__typeof__(__itt_string_handle_create) *)dlsym(lib, "__itt_string_handle_create");
  __typeof__(__itt_metadata_str_add) *str_add =
      (__typeof__(__itt_metadata_str_add) *)dlsym(lib, "__itt_metadata_str_add");
  if (!domain_create || !handle_create || !str_add) {
    fprintf(stderr, "itt_metadata: the collector lacks __itt_metadata_str_add\n");
    return 1;
  }
  __itt_domain *domain = domain_create("tracer.test");
  __itt_string_handle *key = handle_create("note");

  /* The last 7 bytes of a page, the next page unreadable. */
  long page = sysconf(_SC_PAGESIZE);
  char *pages = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
  if (pages == MAP_FAILED || mprotect(pages + page, (size_t)page, PROT_NONE) != 0) {
    perror("itt_metadata: mmap");
    return 1;
  }
  char *at_end = pages + page - 7;
  memcpy(at_end, "pageend", 7);

  str_add(domain, __itt_null, key, "minus one", (size_t)-1);
  str_add(domain, __itt_null, key, "old zero", 0);
  str_add(domain, __itt_null, key, "abcdeXYZ", 5);
  str_add(domain, __itt_null, key, at_end, 7);

  FILE *out = fopen(argv[1], "w");
  if (!out) {
    perror(argv[1]);
    return 1;
  }
  const char *event = "__itt_metadata_str_add_entry";
  fprintf(out, "%s\tdata_str: \"minus one\"\n", event);
  fprintf(out, "%s\tdata_str: \"old zero\"\n", event);
  fprintf(out, "%s\tdata_str: \"abcde\"\n", event);
  fprintf(out, "%s\tdata_str: \"pageend\"\n", event);
  fclose(out);
  printf("itt_metadata: 4 strings added\n");
  return 0;
}
