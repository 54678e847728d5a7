/* flame (cli/exports/flame/flame.h) fed as the reader feeds it, its host-time file read
 * back: each stack's time (its line with all the lines below it) is its calls' time less
 * one clock read per call, as the tally counts them, even where a call inside another
 * took less than the clock read measured (a null driver's cuCtxGetDevice: a CI machine's
 * folded stacks said 1454 ns more for cudaGetDevice than the tally). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flame.h"
#include "tracer_backend_desc.h"

static const struct tracer_function_desc functions[] = {{.name = "outer"}, {.name = "inner"}};
static const struct tracer_backend_desc desc = {.name = "test", .functions = functions,
                                                .function_count = 2};
static int failures;

/* Calls reach the reader when they return: the inner one first. */
static struct trace_call call(int function, uint64_t start, uint64_t end, unsigned depth) {
  return (struct trace_call){.from.host_name = "host", .desc = &desc, .function = function,
                             .pid = 1, .tid = 1, .depth = depth, .start_clock = start,
                             .end_clock = end, .start = start, .end = end,
                             .duration_ns = end - start};
}

/* The weight of the line that is exactly `stack`, and of all lines at or below it. */
static void weights(const char *path, const char *stack, long long *own, long long *under) {
  FILE *f = fopen(path, "r");
  char line[512];
  size_t n = strlen(stack);
  *own = *under = 0;
  while (f && fgets(line, sizeof line, f)) {
    char *space = strrchr(line, ' ');
    if (!space)
      continue;
    long long w = atoll(space + 1);
    *space = '\0';
    if (strncmp(line, stack, n) == 0 && (line[n] == '\0' || line[n] == ';'))
      *under += w;
    if (strcmp(line, stack) == 0)
      *own = w;
  }
  if (f)
    fclose(f);
}

static void check(const char *what, long long got, long long want) {
  if (got != want) {
    printf("FAIL %s: %lld, want %lld\n", what, got, want);
    failures++;
  } else {
    printf("ok %s: %lld\n", what, got);
  }
}

int main(void) {
  char dir[] = "/tmp/flame-unit.XXXXXX", path[128], host[160];
  if (!mkdtemp(dir))
    return 2;
  snprintf(path, sizeof path, "%s/stacks.folded", dir);
  flame_host_path(path, host, sizeof host);

  struct flame_options options = {.path = path, .app_name = "app", .rank = -1};
  struct flame *flame;
  struct trace_consumer c;
  struct diag d = {0};
  if (flame_open(&options, &flame, &c, &d) != 0)
    return 2;
  /* One clock read costs 100 ns. Ten outer calls of 1000 ns, each holding an inner call
   * of 60 ns: 40 ns under the clock read, which the inner line cannot weigh (-400 ns). */
  struct trace_cost cost = {.kind = TRACE_COST_CLOCK_READ, .clock_read_ns = 100};
  c.cost(c.context, &cost);
  for (uint64_t i = 0; i < 10; i++) {
    uint64_t t = 10000 * (i + 1);
    struct trace_call inner = call(1, t + 200, t + 260, 1), outer = call(0, t, t + 1000, 0);
    if (c.call(c.context, &inner) || c.call(c.context, &outer))
      return 2;
  }
  struct trace_summary summary = {0};
  int read_failed = c.finish(c.context, &summary) != 0;
  struct flame_stats stats;
  if (flame_close(flame, read_failed, &stats, &d) != 0)
    return 2;

  long long own, under;
  weights(host, "app (pid 1);outer", &own, &under);
  /* The tally: 10 x 1000 ns less 10 clock reads. */
  check("outer's stack, all below it included", under, 10 * 1000 - 10 * 100);
  weights(host, "app (pid 1);outer;inner", &own, &under);
  check("inner's line, never below zero", own, 0);
  check("the file's total", (long long)stats.host_ns, 9000);

  unlink(path);
  unlink(host);
  rmdir(dir);
  return failures ? 1 : 0;
}
