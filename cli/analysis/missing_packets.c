/* missing_packets: see missing_packets.h. */
#include "missing_packets.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

enum { PACKETS_SHOWN = 8 }; /* per stream; -j lists every one */

struct text {
  char *out;
  size_t size, used;
};

static void put(struct text *t, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *format, ...) {
  if (t->used >= t->size)
    return;
  va_list args;
  va_start(args, format);
  int n = vsnprintf(t->out + t->used, t->size - t->used, format, args);
  va_end(args);
  t->used = n < 0 ? t->size : t->used + (size_t)n;
  if (t->used >= t->size && t->size > 4) /* cut: say so */
    memcpy(t->out + t->size - 5, "...\n", 5);
}

static uint64_t into(const struct trace_losses *l, uint64_t ns) {
  return ns > l->start_ns ? ns - l->start_ns : 0;
}

/* ", 0.12s to 0.31s into the trace" over list[from, to). */
static void put_span(struct text *t, const struct trace_losses *l, size_t from, size_t to,
                     const char *word) {
  uint64_t first = UINT64_MAX, last = 0;
  for (size_t i = from; i < to; i++)
    if (l->list[i].has_times) {
      uint64_t b = into(l, l->list[i].begin_ns), e = into(l, l->list[i].end_ns);
      first = b < first ? b : first;
      last = e > last ? e : last;
    }
  if (first == UINT64_MAX || !l->start_ns)
    return;
  char a[32], b[32];
  units_time(first, a, sizeof a);
  units_time(last, b, sizeof b);
  put(t, ", %s %s %s %s into the trace", word, a, word[0] == 'b' ? "and" : "to", b);
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* One stream's packets of one kind, list[from, to): a line, then each packet's. */
static void put_group(struct text *t, const struct trace_losses *l, size_t from, size_t to) {
  const struct trace_lost_packets *p = &l->list[from];
  uint64_t packets = 0, size = 0, about = 0;
  bool estimated = true;
  for (size_t i = from; i < to; i++) {
    packets += l->list[i].packets;
    size += l->list[i].bytes;
    about += l->list[i].events_about;
    estimated &= l->list[i].has_events_about;
  }
  char b[32];
  units_bytes(size, b, sizeof b);
  char held[48] = ""; /* the estimate, when there is one */
  if (estimated)
    snprintf(held, sizeof held, ", about %llu events", (unsigned long long)about);
  if (p->kind == TRACE_LOSS_NOT_WRITTEN) {
    put(t, "%llu packet%s of %s %s never written: sequence numbers %llu to %llu are missing "
           "(about %s%s",
        (unsigned long long)packets, packets == 1 ? "" : "s", p->stream,
        packets == 1 ? "was" : "were", (unsigned long long)p->sequence_number,
        (unsigned long long)(l->list[to - 1].sequence_number + l->list[to - 1].packets - 1), b,
        held);
    put_span(t, l, from, to, "between");
    put(t, ")\n");
    return;
  }
  if (p->file_gone)
    put(t, "Cannot find %s: the file is gone; its index (index/%s.idx) lists %llu packet%s "
           "(%s%s",
        p->stream, base_name(p->stream), (unsigned long long)packets, packets == 1 ? "" : "s",
        b, held);
  else
    put(t, "Cannot find %llu packet%s of %s (%s%s", (unsigned long long)packets,
        packets == 1 ? "" : "s", p->stream, b, held);
  put_span(t, l, from, to, "from");
  if (p->file_gone)
    put(t, ")\n");
  else if (p->file_bytes == 0)
    put(t, "): its index lists %s from offset %llu on; the file is empty\n",
        packets == 1 ? "it" : "them", (unsigned long long)p->offset);
  else
    put(t, "): its index lists %s from offset %llu on; the file ends at byte %llu\n",
        packets == 1 ? "it" : "them", (unsigned long long)p->offset,
        (unsigned long long)p->file_bytes);
  for (size_t i = from; i < to && i < from + PACKETS_SHOWN; i++) {
    const struct trace_lost_packets *q = &l->list[i];
    units_bytes(q->bytes, b, sizeof b);
    put(t, "  packet");
    if (q->has_sequence_number)
      put(t, " %llu", (unsigned long long)q->sequence_number);
    put(t, " at offset %llu: %s", (unsigned long long)q->offset, b);
    if (q->has_events_about)
      put(t, ", about %llu events", (unsigned long long)q->events_about);
    put_span(t, l, i, i + 1, "from");
    put(t, "\n");
  }
  if (to - from > PACKETS_SHOWN)
    put(t, "  and %zu more packets (-j lists every one under \"missing_packets\")\n",
        to - from - PACKETS_SHOWN);
}

void missing_packets_describe(const struct trace_losses *l, char *out, size_t size) {
  struct text t = {out, size, 0};
  out[0] = '\0';
  for (size_t from = 0; l && from < l->count;) {
    size_t to = from + 1;
    while (to < l->count && l->list[to].stream == l->list[from].stream &&
           l->list[to].kind == l->list[from].kind)
      to++;
    put_group(&t, l, from, to);
    from = to;
  }
}
