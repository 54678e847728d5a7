/* reader_losses: the packets a trace should hold and does not (struct trace_losses,
 * trace_reader.h), worked out once when the trace is opened, never per event. A stream's
 * index (LTTng's index/NAME.idx, ctf_index_read) lists every packet the consumer wrote:
 * those past the end of the stream file (cut at a packet boundary, emptied) or of a
 * stream file that is gone are not in the file; gaps in the index's sequence numbers
 * are packets the consumer never wrote. A stream without an index has its packets'
 * headers read (ctf_cursor_next_packet) for the gaps in their sequence numbers; what is
 * missing from its end cannot be seen then. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reader_internal.h"

struct finder {
  struct trace_losses *losses;
  size_t capacity;
  struct reader_loss_names *names;
  size_t stream_index; /* of the stream being looked at; SIZE_MAX: its file is gone */
  bool failed; /* out of memory */
};

static struct trace_lost_packets *add(struct finder *f, const struct trace_lost_packets *p) {
  struct trace_losses *l = f->losses;
  if (l->count == f->capacity) {
    size_t capacity = f->capacity ? 2 * f->capacity : 16;
    struct trace_lost_packets *grown = realloc(l->list, capacity * sizeof *grown);
    if (!grown) {
      f->failed = true;
      return NULL;
    }
    l->list = grown;
    f->capacity = capacity;
  }
  l->list[l->count] = *p;
  return &l->list[l->count++];
}

static const struct ctf_clock_class *clock_of(const struct ctf_subtrace *sub, uint64_t id) {
  for (size_t i = 0; i < sub->stream_class_count; i++)
    if (sub->stream_classes[i]->id == id || sub->stream_class_count == 1)
      return sub->stream_classes[i]->clock;
  return NULL;
}

static uint64_t to_ns(const struct ctf_clock_class *clock, uint64_t raw) {
  return clock ? (uint64_t)ctf_clock_to_ns(clock, raw) : raw;
}

static void note_start(struct trace_losses *l, uint64_t ns) {
  if (ns && (!l->start_ns || ns < l->start_ns))
    l->start_ns = ns;
}

static void note_end(struct trace_losses *l, uint64_t ns) {
  if (ns > l->end_ns)
    l->end_ns = ns;
}

/* Packets [first, first + n) never written, between the packets that end at `after` and
 * begin at `before` (raw clock values; has_after false: from the stream's start). */
static void add_gap(struct finder *f, const char *stream, uint64_t first, uint64_t n,
                    const struct ctf_clock_class *clock, bool has_after, uint64_t after,
                    uint64_t before, uint64_t file_bytes) {
  struct trace_lost_packets gap = {
      .stream = stream, .kind = TRACE_LOSS_NOT_WRITTEN, .has_sequence_number = true,
      .sequence_number = first, .packets = n, .file_bytes = file_bytes,
      .has_times = true, .begin_ns = has_after ? to_ns(clock, after) : 0,
      .end_ns = to_ns(clock, before)};
  add(f, &gap);
}

/* Sizes a stream's gaps (from index `from` of the list on) at its mean packet size. */
static void size_gaps(struct finder *f, size_t from, uint64_t packet_bytes, uint64_t packets) {
  uint64_t mean = packets ? packet_bytes / packets : 0;
  for (size_t i = from; i < f->losses->count; i++)
    if (f->losses->list[i].kind == TRACE_LOSS_NOT_WRITTEN)
      f->losses->list[i].bytes = f->losses->list[i].content_bytes =
          mean * f->losses->list[i].packets;
}

static void from_index(struct finder *f, const char *stream, const struct ctf_subtrace *sub,
                       const struct ctf_index *index, uint64_t file_bytes, bool gone) {
  size_t from = f->losses->count;
  uint64_t packet_bytes = 0;
  for (size_t i = 0; i < index->count; i++) {
    const struct ctf_index_entry *e = &index->entries[i];
    const struct ctf_clock_class *clock = clock_of(sub, e->stream_id);
    packet_bytes += e->packet_size / 8;
    if (i == 0)
      note_start(f->losses, to_ns(clock, e->timestamp_begin));
    note_end(f->losses, to_ns(clock, e->timestamp_end));
    const struct ctf_index_entry *prev = i ? &index->entries[i - 1] : NULL;
    if (e->has_sequence_number && (prev ? prev->has_sequence_number &&
                                               e->sequence_number > prev->sequence_number + 1
                                         : e->sequence_number > 0)) {
      uint64_t first = prev ? prev->sequence_number + 1 : 0;
      add_gap(f, stream, first, e->sequence_number - first, clock, prev != NULL,
              prev ? prev->timestamp_end : 0, e->timestamp_begin, file_bytes);
    }
    if (e->offset < file_bytes)
      continue; /* in the file (a packet cut short is the read's error) */
    struct trace_lost_packets p = {
        .stream = stream, .stream_index = f->stream_index, .kind = TRACE_LOSS_NOT_IN_FILE,
        .file_gone = gone,
        .has_sequence_number = e->has_sequence_number, .sequence_number = e->sequence_number,
        .packets = 1, .offset = e->offset, .file_bytes = file_bytes,
        .bytes = e->packet_size / 8, .bytes_known = true, .content_bytes = e->content_size / 8,
        .has_times = true, .begin_ns = to_ns(clock, e->timestamp_begin),
        .end_ns = to_ns(clock, e->timestamp_end)};
    add(f, &p);
  }
  size_gaps(f, from, packet_bytes, index->count);
}

/* A stream without an index: its packets' sequence numbers, read from their headers. */
static void from_packets(struct finder *f, const struct trace_reader *r, size_t stream) {
  const struct ctf_stream *s = ctf_trace_stream(r->trace, stream);
  struct ctf_cursor *cursor;
  if (ctf_cursor_open(r->trace, stream, &cursor, NULL) != CTF_OK)
    return; /* the read says why */
  size_t from = f->losses->count;
  uint64_t packet_bytes = 0, packets = 0, last_end = 0, last_seq = 0;
  bool has_last = false;
  const struct ctf_packet *p;
  while (ctf_cursor_next_packet(cursor, &p, NULL) == CTF_OK) {
    const struct ctf_clock_class *clock = p->stream_class->clock;
    if (packets == 0 && p->has_timestamps)
      note_start(f->losses, to_ns(clock, p->timestamp_begin));
    if (p->has_timestamps)
      note_end(f->losses, to_ns(clock, p->timestamp_end));
    packet_bytes += p->size / 8;
    packets++;
    if (p->has_sequence_number && p->has_timestamps) {
      uint64_t first = has_last ? last_seq + 1 : 0;
      if (p->sequence_number > first)
        add_gap(f, s->path, first, p->sequence_number - first, clock, has_last, last_end,
                p->timestamp_begin, s->file_size);
      last_seq = p->sequence_number;
      last_end = p->timestamp_end;
      has_last = true;
    }
  }
  ctf_cursor_close(cursor);
  size_gaps(f, from, packet_bytes, packets);
}

static const char *keep_name(struct finder *f, const char *path) {
  struct reader_loss_names *n = f->names;
  char **grown = realloc(n->names, (n->count + 1) * sizeof *grown);
  char *copy = strdup(path);
  if (!grown || !copy) {
    free(copy);
    if (grown)
      n->names = grown;
    f->failed = true;
    return NULL;
  }
  n->names = grown;
  n->names[n->count++] = copy;
  return copy;
}

static void warn_index(struct trace_losses *l, const char *message) {
  if (!l->warning[0])
    snprintf(l->warning, sizeof l->warning, "%.400s (its stream's packets were read instead)",
             message);
}

/* The index files of a sub-trace whose stream file is gone. */
static void gone_streams(struct finder *f, const struct ctf_subtrace *sub) {
  char folder[4096];
  snprintf(folder, sizeof folder, "%s/index", sub->path);
  DIR *dir = opendir(folder);
  if (!dir)
    return;
  struct dirent *entry;
  while (!f->failed && (entry = readdir(dir))) {
    size_t len = strlen(entry->d_name);
    if (entry->d_name[0] == '.' || len <= 4 || strcmp(entry->d_name + len - 4, ".idx") != 0)
      continue;
    char stream[4096], index_path[4200];
    snprintf(stream, sizeof stream, "%s/%.*s", sub->path, (int)(len - 4), entry->d_name);
    struct stat info;
    if (lstat(stream, &info) == 0 || errno != ENOENT)
      continue;
    snprintf(index_path, sizeof index_path, "%s/%s", folder, entry->d_name);
    struct ctf_index index;
    struct ctf_error error;
    enum ctf_status st = ctf_index_read(index_path, &index, &error);
    if (st == CTF_OK) {
      const char *name = keep_name(f, stream);
      if (name)
        from_index(f, name, sub, &index, 0, true);
      ctf_index_free(&index);
    } else if (st != CTF_END) {
      warn_index(f->losses, error.message);
    }
  }
  closedir(dir);
}

int reader_losses_find(struct trace_reader *r) {
  struct finder f = {.losses = &r->losses, .names = &r->loss_names};
  size_t streams = ctf_trace_stream_count(r->trace);
  r->stream_events = calloc(streams + 1, sizeof *r->stream_events);
  if (!r->stream_events)
    return -1;
  for (size_t i = 0; i < streams && !f.failed; i++) {
    const struct ctf_stream *s = ctf_trace_stream(r->trace, i);
    f.stream_index = i;
    char path[4200];
    ctf_index_path(s->path, path, sizeof path);
    struct ctf_index index;
    struct ctf_error error;
    enum ctf_status st = ctf_index_read(path, &index, &error);
    if (st == CTF_OK) {
      from_index(&f, s->path, s->subtrace, &index, s->file_size, false);
      ctf_index_free(&index);
      continue;
    }
    if (st != CTF_END)
      warn_index(&r->losses, error.message);
    from_packets(&f, r, i);
  }
  f.stream_index = SIZE_MAX;
  for (size_t i = 0; i < ctf_trace_subtrace_count(r->trace) && !f.failed; i++)
    gone_streams(&f, ctf_trace_subtrace(r->trace, i));
  struct trace_losses *l = &r->losses;
  for (size_t i = 0; i < l->count; i++) {
    const struct trace_lost_packets *p = &l->list[i];
    if (p->kind == TRACE_LOSS_NOT_IN_FILE)
      l->not_in_file += p->packets;
    else
      l->not_written += p->packets;
    l->bytes += p->bytes;
    l->content_bytes += p->content_bytes;
  }
  return f.failed ? -1 : 0;
}

void reader_losses_free(struct trace_reader *r) {
  free(r->losses.list);
  free(r->stream_events);
  for (size_t i = 0; i < r->loss_names.count; i++)
    free(r->loss_names.names[i]);
  free(r->loss_names.names);
  memset(&r->losses, 0, sizeof r->losses);
  memset(&r->loss_names, 0, sizeof r->loss_names);
}

const struct trace_losses *trace_reader_losses(const struct trace_reader *r) {
  return &r->losses;
}

/* The events the other streams must hold for their events per byte to stand for a stream
 * that was read none (emptied, gone). */
enum { ESTIMATE_BASIS_EVENTS = 1000 };

void trace_reader_estimate_losses(struct trace_reader *r) {
  struct trace_losses *l = &r->losses;
  size_t streams = ctf_trace_stream_count(r->trace);
  uint64_t events = 0, bytes = 0;
  for (size_t i = 0; i < streams; i++)
    if (r->stream_events[i]) {
      events += r->stream_events[i];
      bytes += ctf_trace_stream(r->trace, i)->file_size;
    }
  l->events_about = l->unestimated = 0;
  for (size_t i = 0; i < l->count; i++) {
    struct trace_lost_packets *p = &l->list[i];
    uint64_t e = 0, b = 0; /* the basis: this stream's, else the trace's */
    if (p->stream_index != SIZE_MAX && r->stream_events[p->stream_index]) {
      e = r->stream_events[p->stream_index];
      b = ctf_trace_stream(r->trace, p->stream_index)->file_size;
    } else if (events >= ESTIMATE_BASIS_EVENTS) {
      e = events;
      b = bytes;
    }
    p->has_events_about = e && b;
    p->events_about =
        p->has_events_about ? (uint64_t)((double)p->bytes * (double)e / (double)b + 0.5) : 0;
    l->events_about += p->events_about;
    l->unestimated += p->has_events_about ? 0 : p->packets;
  }
}
