/* iso: one of two apps that run at the same time, each under its own tracer, to show that
 * neither tracer records the other's calls. Built twice: iso_a makes clGetPlatformInfo
 * calls, iso_b clGetDeviceIDs calls (ISO_B defined), and each makes its own number of
 * clGetPlatformIDs calls, so a tally that mixes them shows it by name and by count.
 *
 * The two overlap for sure: each creates SYNC/NAME.ready, waits for SYNC/PEER.ready,
 * makes its calls, creates SYNC/NAME.done and waits for SYNC/PEER.done before exiting.
 * Its count file is $REL_COUNT (rel_count.h).
 * usage: iso_a|iso_b SYNC NAME PEER IDS OTHERS */
#include "rel_count.h"

#include <time.h>

static void touch(const char *dir, const char *name, const char *suffix) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%s", dir, name, suffix);
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    perror(path);
    exit(1);
  }
  close(fd);
}

/* Waits up to 30 s for the peer's file. */
static void await(const char *dir, const char *name, const char *suffix) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%s", dir, name, suffix);
  for (int i = 0; i < 30000; i++) {
    if (access(path, F_OK) == 0)
      return;
    struct timespec ms = {0, 1000000L};
    nanosleep(&ms, NULL);
  }
  fprintf(stderr, "iso: %s never appeared\n", path);
  exit(1);
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s SYNC NAME PEER IDS OTHERS\n", argv[0]);
    return 2;
  }
  const char *sync = argv[1], *name = argv[2], *peer = argv[3];
  int ids = atoi(argv[4]), others = atoi(argv[5]);
  cl_platform_id platform = rel_start();
  touch(sync, name, "ready");
  await(sync, peer, "ready");
  for (int i = 0; i < ids || i < others; i++) {
    cl_uint n = 0;
    if (i < ids)
      rel_platform_ids(0, NULL, &n);
    if (i < others) {
#ifdef ISO_B
      rel_device_count(platform, &n);
#else
      char text[256];
      rel_platform_name(platform, text, sizeof text);
#endif
    }
  }
  rel_flush();
  touch(sync, name, "done");
  await(sync, peer, "done");
  printf("%s: %d + %d calls: ok\n", name, ids, others);
  return 0;
}
