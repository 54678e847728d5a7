/* replay_corpus: every file of a fuzz target's corpus, once, through that target's
 * LLVMFuzzerTestOneInput() (linked in), without libFuzzer. The normal suite builds one
 * per target with the normal compiler (tests/CMakeLists.txt), so each seed and each
 * input that once crashed a target keeps being tried, sanitizers included.
 *
 * Usage: fuzz_replay_TARGET DIR|FILE...
 * Prints how many inputs it ran; exit status 0, or 1 when a path cannot be read or a
 * folder holds no input (a crash in the target is the test's failure).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay_corpus: error: Cannot open input: path=%s\n", path);
    return -1;
  }
  unsigned char *data = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len == cap) {
      cap = cap ? cap * 2 : 65536;
      unsigned char *bigger = realloc(data, cap);
      if (!bigger) {
        free(data);
        fclose(f);
        fprintf(stderr, "replay_corpus: error: Cannot read input: path=%s\n", path);
        return -1;
      }
      data = bigger;
    }
    size_t n = fread(data + len, 1, cap - len, f);
    if (n == 0)
      break;
    len += n;
  }
  fclose(f);
  /* An exact-size copy, as libFuzzer hands it: ASan sees any read past the end. */
  unsigned char *exact = malloc(len ? len : 1);
  if (!exact) {
    free(data);
    return -1;
  }
  if (len)
    memcpy(exact, data, len);
  free(data);
  LLVMFuzzerTestOneInput(exact, len);
  free(exact);
  return 0;
}

/* Every regular file of dir (not below), in name order; returns how many, -1 on error. */
static int replay_dir(const char *dir) {
  struct dirent **entries;
  int n = scandir(dir, &entries, NULL, alphasort);
  if (n < 0) {
    fprintf(stderr, "replay_corpus: error: Cannot read folder: path=%s\n", dir);
    return -1;
  }
  int count = 0;
  for (int i = 0; i < n; i++) {
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, entries[i]->d_name);
    if (entries[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
      if (replay_file(path) != 0)
        count = -1;
      else if (count >= 0)
        count++;
    }
    free(entries[i]);
  }
  free(entries);
  return count;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s DIR|FILE...\n", argv[0]);
    return 2;
  }
  int status = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    int count;
    if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
      count = replay_dir(argv[i]);
    else
      count = replay_file(argv[i]) == 0 ? 1 : -1;
    if (count <= 0) {
      if (count == 0)
        fprintf(stderr, "replay_corpus: error: Cannot replay: path=%s (no input)\n", argv[i]);
      status = 1;
      continue;
    }
    printf("replay_corpus: %d inputs from %s: ok\n", count, argv[i]);
  }
  return status;
}
