/* timeline_bench TRACE OUT.pftrace [SPLIT_BYTES]: the timeline of a saved trace, as
 * `tracer -r TRACE -l OUT` writes it but without the tally, timed: prints
 * `seconds=S slices=N parts=N bytes=N peak_rss_kib=N`. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "ctf.h"
#include "event_map.h"
#include "timeline.h"
#include "timeline_build.h"

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: timeline_bench TRACE OUT.pftrace [SPLIT_BYTES]\n");
    return 2;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  struct ctf_trace *trace;
  struct ctf_error err;
  if (ctf_trace_open(argv[1], &trace, &err) != CTF_OK) {
    fprintf(stderr, "timeline_bench: %s\n", err.message);
    return 1;
  }
  struct event_map map;
  if (event_map_build(trace, &map))
    return 1;
  struct timeline_options options = {.path = argv[2]};
  if (argc > 3)
    options.split_bytes = strtoull(argv[3], NULL, 10);
  struct timeline *tl;
  char *msg = NULL, message[512];
  int rc = timeline_open(&options, &tl);
  /* TIMELINE_THREADS: as tracer --threads (0, the default: as the tracer decides). */
  const char *threads = getenv("TIMELINE_THREADS");
  struct timeline_build_options build = {.threads = threads ? (unsigned)atoi(threads) : 0};
  if (rc == 0)
    rc = timeline_build(trace, &map, tl, &build, &msg);
  struct timeline_stats stats;
  if (timeline_close(tl, &stats, message, sizeof message) || rc) {
    fprintf(stderr, "timeline_bench: %s\n", msg ? msg : message);
    return 1;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("seconds=%.3f slices=%llu parts=%u bytes=%llu peak_rss_kib=%ld\n", s,
         (unsigned long long)stats.slices,
         stats.parts, (unsigned long long)stats.bytes, ru.ru_maxrss);
  free(msg);
  event_map_free(&map);
  ctf_trace_close(trace);
  return 0;
}
