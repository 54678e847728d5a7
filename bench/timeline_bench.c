/* timeline_bench TRACE OUT.pftrace [SPLIT_BYTES]: the timeline of a saved trace, as
 * `tracer -r TRACE -l OUT` writes it but without the tally, timed: prints
 * `seconds=S slices=N parts=N bytes=N peak_rss_kib=N`. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "perfetto.h"
#include "timeline.h"
#include "timeline_build.h"
#include "trace_reader.h"

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: timeline_bench TRACE OUT.pftrace [SPLIT_BYTES]\n");
    return 2;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  struct trace_reader *reader;
  struct diag d;
  char chain[1024];
  diag_init(&d);
  if (trace_reader_open(argv[1], &reader, &d)) {
    fprintf(stderr, "timeline_bench: %s\n", diag_join(&d, chain, sizeof chain));
    return 1;
  }
  struct perfetto_options options = {.path = argv[2]};
  if (argc > 3)
    options.split_bytes = strtoull(argv[3], NULL, 10);
  struct timeline *tl = NULL;
  char message[512];
  struct timeline_sink sink;
  int rc = perfetto_sink_open(&options, &sink, &d) ? -1 : timeline_open(&sink, 1, &tl);
  /* TIMELINE_THREADS: as tracer --threads (0, the default: as the tracer decides). */
  const char *threads = getenv("TIMELINE_THREADS");
  struct timeline_build_options build = {.threads = threads ? (unsigned)atoi(threads) : 0};
  if (rc == 0)
    rc = timeline_build(reader, tl, &build, &d);
  struct timeline_stats stats;
  if (timeline_close(tl, &stats, message, sizeof message) || rc) {
    fprintf(stderr, "timeline_bench: %s\n", d.count ? diag_join(&d, chain, sizeof chain) : message);
    return 1;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("seconds=%.3f slices=%llu parts=%u bytes=%llu peak_rss_kib=%ld\n", s,
         (unsigned long long)stats.slices,
         stats.parts, (unsigned long long)stats.bytes, ru.ru_maxrss);
  diag_clear(&d);
  trace_reader_close(reader);
  return 0;
}
