/* trace_window: see trace_window.h. */
#include "trace_window.h"

#include <stdlib.h>
#include <string.h>

static bool ranges_hold(const struct trace_window_process *p, uint64_t clock) {
  size_t lo = 0, hi = p->count; /* the first range that ends after clock */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->ranges[mid].end <= clock)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < p->count && p->ranges[lo].start <= clock;
}

bool trace_window_holds(const struct trace_window *w, int host, int64_t pid, bool has_pid,
                        uint64_t clock, size_t *last) {
  if (!has_pid) {
    for (size_t i = 0; i < w->count; i++)
      if (w->processes[i].host == host && ranges_hold(&w->processes[i], clock))
        return true;
    return false;
  }
  const struct trace_window_process *p = *last < w->count ? &w->processes[*last] : NULL;
  if (!p || p->pid != pid || p->host != host) {
    p = NULL;
    for (size_t i = 0; i < w->count && !p; i++)
      if (w->processes[i].pid == pid && w->processes[i].host == host) {
        p = &w->processes[i];
        *last = i;
      }
  }
  return p && ranges_hold(p, clock);
}

const struct trace_window_process *trace_window_process(const struct trace_window *w, int host,
                                                        int64_t pid) {
  for (size_t i = 0; w && i < w->count; i++)
    if (w->processes[i].pid == pid && w->processes[i].host == host)
      return &w->processes[i];
  return NULL;
}

uint64_t trace_window_longest_ns(const struct trace_window *w) {
  uint64_t most = 0;
  for (size_t i = 0; w && i < w->count; i++)
    if (w->processes[i].ns > most)
      most = w->processes[i].ns;
  return most;
}

void trace_window_free(struct trace_window *w) {
  for (size_t i = 0; i < w->count; i++)
    free(w->processes[i].ranges);
  free(w->processes);
  memset(w, 0, sizeof *w);
}
