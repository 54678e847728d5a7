/* node_results: per-node results of a simulated MPI job for bench/mpi_merge_bench.sh.
 *
 *   node_results SEED OUT NODES
 *
 * reads SEED, the result of one real node (JOB/nodes/HOST.result, written by a traced
 * job), and writes NODES results into OUT/nodes/ with the real reader and writer
 * (cli/job/result_file.c): node K covers the seed's ranks moved to K x R + r (R the
 * seed's rank count), runs on host node-K, sends its seed's messages to the same ranks of
 * node K+1, and its times vary by up to +-25% (a fixed pseudo-random sequence), so that
 * `tracer -r OUT` merges NODES different results of the seed's size. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "result_file.h"

static uint64_t state = 88172645463325252ull;

static uint64_t vary(uint64_t v) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return v - v / 4 + (v / 2 ? state % (v / 2 + 1) : 0);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: node_results SEED OUT NODES\n");
    return 2;
  }
  const char *seed = argv[1], *out = argv[2];
  long nodes = strtol(argv[3], NULL, 10);
  char path[4096], error[1024];
  snprintf(path, sizeof path, "%s/nodes", out);
  if (mkdir(out, 0700) && errno != EEXIST)
    return perror(out), 1;
  if (mkdir(path, 0700) && errno != EEXIST)
    return perror(path), 1;
  for (long k = 0; k < nodes; k++) {
    struct job_result r;
    int made = job_result_init(&r);
    r.want_actors = true; /* node results carry their ranks' actors (-e, --ranks) */
    if (made || result_file_read(seed, &r, error, sizeof error)) {
      fprintf(stderr, "node_results: %s\n", error);
      return 1;
    }
    long per_node = (long)r.rank_count, shift = k * per_node, all = nodes * per_node;
    for (size_t i = 0; i < r.rank_count; i++)
      r.ranks[i] += shift;
    for (size_t i = 0; i < r.failed_count; i++)
      r.failed[i].rank += shift;
    for (size_t i = 0; i < r.tally.actors.count; i++)
      r.tally.actors.list[i].rank += shift;
    for (size_t i = 0; i < r.tally.host_count; i++) {
      free(r.tally.hostnames[i]);
      char name[64];
      snprintf(name, sizeof name, "node-%ld", k);
      r.tally.hostnames[i] = strdup(name);
    }
    for (size_t b = 0; b < r.tally.backend_count; b++) {
      struct tally_backend *tb = &r.tally.backends[b];
      for (uint32_t f = 0; f < tb->function_count; f++) {
        struct tally_stat *s = &tb->host[f];
        if (!s->calls)
          continue;
        s->total = vary(s->total);
        s->min = s->min < s->total / s->calls ? s->min : s->total / s->calls;
        s->max = s->max > s->total / s->calls ? s->max : s->total / s->calls;
        struct job_spread *sp = &r.function_ns[b][f];
        sp->min = vary(sp->min);
        sp->max = sp->max > sp->min ? vary(sp->max) : sp->min;
        if (sp->max < sp->min)
          sp->max = sp->min;
        sp->min_rank += shift;
        sp->max_rank += shift;
      }
      r.host_share[b].min_rank += shift;
      r.host_share[b].max_rank += shift;
      r.device_share[b].min_rank += shift;
      r.device_share[b].max_rank += shift;
    }
    for (size_t i = 0; i < r.matrix_count; i++) {
      r.matrix[i].from += shift;
      r.matrix[i].to = (r.matrix[i].to + shift + per_node) % (all ? all : 1);
    }
    snprintf(path, sizeof path, "%s/nodes/node-%ld.result", out, k);
    if (result_file_write(path, &r)) {
      perror(path);
      return 1;
    }
    job_result_free(&r);
  }
  return 0;
}
