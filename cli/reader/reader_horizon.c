/* reader_horizon: minimal mode's batches come out of the trace after their calls, so the
 * read position alone would let records of other threads pass them. A first look at the
 * batches notes each one's earliest call; while reading in time order, the horizon is
 * the read position, held back to the earliest call of the batches still to come
 * (`until[k]`: the least start of batches k and later, in the order the merge reads
 * them). */
#include <stdlib.h>

#include "reader_internal.h"

uint64_t *reader_batch_horizons(const struct trace_reader *reader, size_t *count) {
  *count = 0;
  struct ctf_merge *merge;
  struct ctf_error err;
  if (!reader->has_batches || ctf_merge_open(reader->trace, NULL,
                                             ctf_trace_stream_count(reader->trace), &merge,
                                             &err) != CTF_OK)
    return NULL;
  uint64_t *until = NULL;
  size_t cap = 0;
  const struct ctf_event *ev;
  enum ctf_status st;
  struct event_call *calls = malloc(EVENT_BATCH_MAX * sizeof *calls);
  while (calls && (st = ctf_merge_next(merge, &ev, &err)) != CTF_END) {
    const struct event_info *info = &reader->map.infos[ev->event_class->index];
    if (st != CTF_OK || !(info->role == EVENT_CALL && info->batch))
      continue;
    if (*count == cap) {
      uint64_t *grown = realloc(until, (cap = cap ? 2 * cap : 1024) * sizeof *until);
      if (!grown)
        break;
      until = grown;
    }
    uint64_t earliest = ev->timestamp;
    size_t n = event_map_batch(info, ev, calls, EVENT_BATCH_MAX);
    for (size_t i = 0; i < n; i++)
      earliest = calls[i].start < earliest ? calls[i].start : earliest;
    until[(*count)++] = earliest;
  }
  free(calls);
  ctf_merge_close(merge);
  for (size_t k = *count; k-- > 1;)
    until[k - 1] = until[k] < until[k - 1] ? until[k] : until[k - 1];
  return until;
}
