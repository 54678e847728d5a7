/* fuzz_util: scratch files for the fuzz targets. */
#include "fuzz_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch[64];

static void die(const char *what, const char *path) {
  fprintf(stderr, "fuzz: error: Cannot %s: path=%s\n", what, path);
  abort();
}

static void remove_scratch(void) {
  DIR *dir = opendir(scratch);
  if (!dir)
    return;
  char path[4096];
  for (struct dirent *e; (e = readdir(dir));) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    snprintf(path, sizeof path, "%s/%s", scratch, e->d_name);
    unlink(path);
  }
  closedir(dir);
  rmdir(scratch);
}

const char *fuzz_util_dir(void) {
  if (!scratch[0]) {
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (strlen(scratch) + 1 >= sizeof scratch || !mkdtemp(scratch))
      die("create scratch folder", scratch);
    atexit(remove_scratch);
  }
  return scratch;
}

const char *fuzz_util_write(const char *dir, const char *name, const void *data, size_t size) {
  static char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    die("create", path);
  const char *p = data;
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n <= 0)
      die("write", path);
    p += n;
    size -= (size_t)n;
  }
  close(fd);
  return path;
}

void fuzz_util_copy(const char *corpus_path, const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", FUZZ_CORPUS_DIR, corpus_path);
  FILE *f = fopen(path, "rb");
  if (!f)
    die("open", path);
  char *bytes = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len == cap) {
      cap = cap ? cap * 2 : 65536;
      bytes = realloc(bytes, cap);
      if (!bytes)
        die("read", path);
    }
    size_t n = fread(bytes + len, 1, cap - len, f);
    if (n == 0)
      break;
    len += n;
  }
  fclose(f);
  fuzz_util_write(dir, name, bytes, len);
  free(bytes);
}

char *fuzz_util_cstring(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s)
    die("allocate", "memory");
  if (size)
    memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

FILE *fuzz_util_null(void) {
  static FILE *null;
  if (!null && !(null = fopen("/dev/null", "w")))
    die("open", "/dev/null");
  return null;
}
