/* ctf_merge.c: a k-way merge of stream cursors by time, with a binary min-heap keyed
 * by (nanoseconds since the clock origin, stream index), so ties come out in a fixed
 * order whatever the order in which streams were read. */
#include "ctf_internal.h"

#include <stdlib.h>

struct merge_entry {
  int64_t time;
  size_t stream_index;
  struct ctf_cursor *cursor;
  const struct ctf_event *event;
};

struct ctf_merge {
  /* The last clock met that counts ns, and its time at 0: the key of its values is that
   * plus the value, as ctf_clock_to_ns() gives it (no 128-bit arithmetic per event). */
  const struct ctf_clock_class *clock_ns;
  int64_t clock_ns_zero;
  struct ctf_cursor **cursors;   /* owned */
  size_t cursor_count;
  struct merge_entry *heap;
  size_t heap_count;
  bool top_out; /* the top's event was handed out: its cursor reads on at the next call */
  /* Cursors whose event was handed out (or not yet read): advanced on the next call. */
  struct ctf_cursor **pending;
  size_t pending_count;
  size_t *pending_streams;
};

static bool before(const struct merge_entry *a, const struct merge_entry *b) {
  return a->time < b->time || (a->time == b->time && a->stream_index < b->stream_index);
}

static void heap_push(struct ctf_merge *merge, struct merge_entry entry) {
  size_t at = merge->heap_count++;
  while (at > 0) {
    size_t parent = (at - 1) / 2;
    if (!before(&entry, &merge->heap[parent]))
      break;
    merge->heap[at] = merge->heap[parent];
    at = parent;
  }
  merge->heap[at] = entry;
}

/* Puts `entry` in the top's place and sifts it down. */
static void heap_replace_top(struct ctf_merge *merge, struct merge_entry entry) {
  size_t count = merge->heap_count, at = 0;
  for (;;) {
    size_t child = 2 * at + 1;
    if (child >= count)
      break;
    if (child + 1 < count && before(&merge->heap[child + 1], &merge->heap[child]))
      child++;
    if (!before(&merge->heap[child], &entry))
      break;
    merge->heap[at] = merge->heap[child];
    at = child;
  }
  merge->heap[at] = entry;
}

static struct merge_entry heap_pop(struct ctf_merge *merge) {
  struct merge_entry top = merge->heap[0];
  struct merge_entry last = merge->heap[--merge->heap_count];
  if (merge->heap_count)
    heap_replace_top(merge, last);
  return top;
}

/* ctf_clock_to_ns(clock, cycles), without 128-bit arithmetic for a clock counting ns
 * whose values are far from overflowing (LTTng's monotonic clock). */
static int64_t time_of(struct ctf_merge *merge, const struct ctf_clock_class *clock,
                       uint64_t cycles) {
  enum { FAST_BITS = 62 };
  if (clock && clock == merge->clock_ns && cycles < UINT64_C(1) << FAST_BITS)
    return merge->clock_ns_zero + (int64_t)cycles;
  if (clock && clock->frequency == 1000000000 && clock != merge->clock_ns) {
    int64_t zero = ctf_clock_to_ns(clock, 0);
    if (zero > -(INT64_C(1) << FAST_BITS) && zero < INT64_C(1) << FAST_BITS) {
      merge->clock_ns = clock;
      merge->clock_ns_zero = zero;
    }
  }
  return ctf_clock_to_ns(clock, cycles);
}

enum ctf_status ctf_merge_open(const struct ctf_trace *trace, const size_t *stream_indices,
                               size_t stream_count, struct ctf_merge **out,
                               struct ctf_error *error) {
  *out = NULL;
  if (!stream_indices)
    stream_count = ctf_trace_stream_count(trace);
  struct ctf_merge *merge = calloc(1, sizeof *merge);
  if (!merge)
    return ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot open merge: out of memory");
  size_t slots = stream_count ? stream_count : 1;
  merge->cursors = calloc(slots, sizeof *merge->cursors);
  merge->heap = calloc(slots, sizeof *merge->heap);
  merge->pending = calloc(slots, sizeof *merge->pending);
  merge->pending_streams = calloc(slots, sizeof *merge->pending_streams);
  if (!merge->cursors || !merge->heap || !merge->pending || !merge->pending_streams) {
    ctf_merge_close(merge);
    return ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot open merge: out of memory");
  }
  for (size_t i = 0; i < stream_count; i++) {
    size_t index = stream_indices ? stream_indices[i] : i;
    enum ctf_status status = ctf_cursor_open(trace, index, &merge->cursors[i], error);
    if (status != CTF_OK) {
      ctf_merge_close(merge);
      return status;
    }
    merge->cursor_count++;
    /* Pending in reverse so that the first stream is advanced first. */
    merge->pending[stream_count - 1 - i] = merge->cursors[i];
    merge->pending_streams[stream_count - 1 - i] = index;
  }
  merge->pending_count = stream_count;
  *out = merge;
  return CTF_OK;
}

void ctf_merge_close(struct ctf_merge *merge) {
  if (!merge)
    return;
  for (size_t i = 0; i < merge->cursor_count; i++)
    ctf_cursor_close(merge->cursors[i]);
  free(merge->cursors);
  free(merge->heap);
  free(merge->pending);
  free(merge->pending_streams);
  free(merge);
}

enum ctf_status ctf_merge_next(struct ctf_merge *merge, const struct ctf_event **event,
                               struct ctf_error *error) {
  *event = NULL;
  /* The common case: the stream of the event handed out last, kept at the top, reads on;
   * its next event takes its place there, sifted down once (not a pop and a push). */
  if (merge->top_out) {
    merge->top_out = false;
    struct merge_entry top = merge->heap[0];
    const struct ctf_event *next = NULL;
    enum ctf_status status = ctf_cursor_next(top.cursor, &next, error);
    if (status == CTF_OK) {
      const struct ctf_stream_class *sc = next->event_class->stream_class;
      top.time = time_of(merge, sc->clock, next->timestamp);
      top.event = next;
      heap_replace_top(merge, top);
    } else {
      heap_pop(merge); /* the stream ended, or failed: it leaves the merge */
      if (status != CTF_END) {
        if (!ctf_cursor_failed(top.cursor)) { /* it skipped a damaged packet: it goes on */
          merge->pending[merge->pending_count] = top.cursor;
          merge->pending_streams[merge->pending_count] = top.stream_index;
          merge->pending_count++;
        }
        return status;
      }
    }
  }
  while (merge->pending_count) {
    size_t last = --merge->pending_count;
    struct ctf_cursor *cursor = merge->pending[last];
    const struct ctf_event *next = NULL;
    enum ctf_status status = ctf_cursor_next(cursor, &next, error);
    if (status == CTF_END)
      continue;
    if (status != CTF_OK) {
      if (!ctf_cursor_failed(cursor))
        merge->pending_count++; /* it skipped a damaged packet: it goes on */
      return status;           /* else this stream leaves the merge; the others go on */
    }
    const struct ctf_stream_class *sc = next->event_class->stream_class;
    heap_push(merge, (struct merge_entry){time_of(merge, sc->clock, next->timestamp),
                                          merge->pending_streams[last], cursor, next});
  }
  if (!merge->heap_count)
    return CTF_END;
  merge->top_out = true; /* read on at the next call */
  *event = merge->heap[0].event;
  return CTF_OK;
}

uint64_t ctf_merge_events_discarded(const struct ctf_merge *merge) {
  uint64_t total = 0;
  for (size_t i = 0; i < merge->cursor_count; i++)
    total += ctf_cursor_events_discarded(merge->cursors[i]);
  return total;
}
