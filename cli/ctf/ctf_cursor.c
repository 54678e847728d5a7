/* ctf_cursor.c: one stream file, read packet by packet and event by event. Nothing is
 * ever read past the end of the file or of a packet's content: a truncated or corrupt
 * stream ends in an error that names the file, the packet and the byte offset, after
 * every complete event before the fault has been yielded.
 *
 * The events are decoded from a window of the packet read into a buffer of the cursor's
 * own (pread), not from the file mapped in memory: mapping a page of the file costs the
 * kernel at least what copying it does, and on the PVM guests CI runs on, for a trace
 * written a while before, 2.5 to 3 times as much (bench/RESULTS.md, issue 48); the
 * buffer, read again and again, stays mapped and in the caches. The file is still mapped, for the strings handed out
 * (ctf_value.string.chars points into the mapping, which lives as long as the cursor):
 * only the pages of strings a caller reads are ever touched there. */
#include "ctf_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
  PACKET_MAGIC = 0xc1fc1fc1,
  RELEASE_CHUNK = 8 << 20,   /* bytes read before pages are handed back to the kernel */
  CURSOR_PREFETCH_BYTES = 512, /* how far ahead of an event its stream is prefetched */
  WINDOW_BYTES = 256 << 10,  /* a packet is read this much at a time */
  WINDOW_ALIGN = 4096,       /* a window starts at a multiple of this in its packet */
  HEAD_BYTES = 4096,         /* read first for a packet's header and context */
  EVENT_MARGIN = 16 << 10,   /* an event starting closer to the window's end moves it */
};

/* Where the well-known fields sit in a scope, -1 when absent. */
struct header_slots {
  int magic, uuid, stream_id, stream_instance_id;
};

struct ctf_cursor {
  const struct ctf_stream *stream;
  const struct ctf_subtrace_private *subtrace;
  const uint8_t *map;            /* NULL for an empty file */
  int fd;                        /* the stream file, read with pread; -1: an empty file, or
                                    windows copied from the mapping (ctf_cursor_open) */
  uint64_t file_size;
  /* The window of the packet being read: its bytes [window_start, window_end) (from the
   * packet's start) in buffer, and `data`, where the packet's byte 0 would be, so that
   * data + (bit >> 3) is bit's byte for any bit of the window. */
  uint8_t *buffer;               /* owned */
  size_t buffer_size;
  uint64_t window_start, window_end;
  const uint8_t *data;
  uint64_t released;             /* bytes before this were handed back (see release) */
  uint64_t page_size;

  /* The packet being read. */
  bool in_packet;
  const struct ctf_stream_class_private *stream_class;
  uint64_t packet_offset;        /* bytes */
  uint64_t packet_index;
  uint64_t content_end;          /* bits from the packet start: readable content */
  bool packet_cut;               /* the file ends before the packet does */
  uint64_t position;             /* bits from the packet start */
  uint64_t clock;
  bool has_previous_discarded;
  uint64_t previous_discarded;
  uint64_t discarded_total;
  struct ctf_packet packet;
  struct header_slots header_slots;

  uint64_t *registers;
  struct ctf_value *header_values;
  struct ctf_value *packet_context_values;
  struct ctf_value *stream_context_values;
  struct ctf_value *event_context_values;
  struct ctf_event event;
  bool has_event;

  enum ctf_status failed;        /* CTF_OK until an error, then that error forever */
  char *failure_message;
};

static size_t field_count(const struct ctf_type *type) {
  return type ? type->u.structure.field_count : 0;
}

static int field_slot(const struct ctf_type *type, const char *raw_name) {
  for (size_t i = 0; i < field_count(type); i++)
    if (!strcmp(type->u.structure.fields[i].raw_name, raw_name))
      return (int)i;
  return -1;
}

enum ctf_status ctf_cursor_open(const struct ctf_trace *trace, size_t stream_index,
                                struct ctf_cursor **out, struct ctf_error *error) {
  *out = NULL;
  const struct ctf_stream *stream = ctf_trace_stream(trace, stream_index);
  if (!stream)
    return ctf_fail(error, CTF_ERR_USAGE, "Cannot open cursor: stream=%zu: no such stream",
                    stream_index);
  struct ctf_cursor *cursor = calloc(1, sizeof *cursor);
  if (!cursor)
    return ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot open cursor: out of memory");
  cursor->stream = stream;
  cursor->subtrace = (const struct ctf_subtrace_private *)stream->subtrace;
  const struct ctf_metadata *md = &cursor->subtrace->metadata;
  size_t packet_context = 0, stream_context = 0, event_context = 0;
  for (size_t i = 0; i < md->stream_class_count; i++) {
    const struct ctf_stream_class_private *sc = md->stream_classes[i];
    if (field_count(sc->pub.packet_context) > packet_context)
      packet_context = field_count(sc->pub.packet_context);
    if (field_count(sc->pub.event_context) > stream_context)
      stream_context = field_count(sc->pub.event_context);
    if (sc->event_context_capacity > event_context)
      event_context = sc->event_context_capacity;
  }
  cursor->registers = calloc(cursor->subtrace->register_count + 1, sizeof *cursor->registers);
  cursor->header_values = calloc(field_count(md->packet_header) + 1, sizeof(struct ctf_value));
  cursor->packet_context_values = calloc(packet_context + 1, sizeof(struct ctf_value));
  cursor->stream_context_values = calloc(stream_context + 1, sizeof(struct ctf_value));
  cursor->event_context_values = calloc(event_context + 1, sizeof(struct ctf_value));
  enum ctf_status status = CTF_OK;
  if (!cursor->registers || !cursor->header_values || !cursor->packet_context_values ||
      !cursor->stream_context_values || !cursor->event_context_values) {
    status = ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot open cursor: out of memory");
    goto done;
  }
  cursor->header_slots = (struct header_slots){
      field_slot(md->packet_header, "magic"), field_slot(md->packet_header, "uuid"),
      field_slot(md->packet_header, "stream_id"),
      field_slot(md->packet_header, "stream_instance_id")};

  cursor->fd = -1;
  int fd = open(stream->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    status = ctf_fail(error, CTF_ERR_IO, "Cannot open stream: file=%s: %s", stream->path,
                      strerror(errno));
    goto done;
  }
  struct stat info;
  if (fstat(fd, &info) != 0) {
    status = ctf_fail(error, CTF_ERR_IO, "Cannot stat stream: file=%s: %s", stream->path,
                      strerror(errno));
    close(fd);
    goto done;
  }
  cursor->file_size = (uint64_t)info.st_size;
  long page_size = sysconf(_SC_PAGESIZE);
  cursor->page_size = page_size > 0 ? (uint64_t)page_size : 4096;
  if (cursor->file_size > 0) {
    void *map = mmap(NULL, cursor->file_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
      status = ctf_fail(error, CTF_ERR_IO, "Cannot map stream: file=%s: %s", stream->path,
                        strerror(errno));
      close(fd);
      goto done;
    }
    /* Packets are read front to back: let the kernel read ahead. */
    madvise(map, cursor->file_size, MADV_SEQUENTIAL);
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    cursor->map = map;
    /* A trace of very many streams read at once would take every descriptor the
     * process may have: past half of them, a cursor copies its windows from the
     * mapping instead. */
    struct rlimit files;
    if (getrlimit(RLIMIT_NOFILE, &files) != 0 || (rlim_t)fd < files.rlim_cur / 2)
      cursor->fd = fd;
    else
      close(fd);
  } else {
    close(fd);
  }
done:
  if (status != CTF_OK) {
    ctf_cursor_close(cursor);
    return status;
  }
  *out = cursor;
  return CTF_OK;
}

void ctf_cursor_close(struct ctf_cursor *cursor) {
  if (!cursor)
    return;
  if (cursor->map)
    munmap((void *)cursor->map, cursor->file_size);
  if (cursor->fd >= 0)
    close(cursor->fd);
  free(cursor->buffer);
  free(cursor->registers);
  free(cursor->header_values);
  free(cursor->packet_context_values);
  free(cursor->stream_context_values);
  free(cursor->event_context_values);
  free(cursor->failure_message);
  free(cursor);
}

const struct ctf_packet *ctf_cursor_packet(const struct ctf_cursor *cursor) {
  return cursor->in_packet || cursor->has_event ? &cursor->packet : NULL;
}

uint64_t ctf_cursor_events_discarded(const struct ctf_cursor *cursor) {
  return cursor->discarded_total;
}

/* Pages already read count in the process's resident size until unmapped, so a long
 * trace would look as big in memory as on disk. Telling the kernel they are not needed
 * drops them from this process only: the mapping is private and never written, so a
 * later access (a string value kept by the caller) reads the file again. */
static void release(struct ctf_cursor *cursor) {
  uint64_t until = cursor->packet_offset / cursor->page_size * cursor->page_size;
  if (until < cursor->released + RELEASE_CHUNK)
    return;
  madvise((void *)(cursor->map + cursor->released), until - cursor->released, MADV_DONTNEED);
  cursor->released = until;
}

/* "Cannot read stream: file=..., packet=..., offset=...: DETAIL" into target. */
static void stream_message(struct ctf_cursor *cursor, struct ctf_error *target, uint64_t bit,
                           const char *suffix, const char *format, va_list args) {
  char detail[1024];
  vsnprintf(detail, sizeof detail, format, args);
  ctf_fail(target, CTF_ERR_DATA, "Cannot read stream: file=%s, packet=%llu, offset=%llu: %s%s",
           cursor->stream->path, (unsigned long long)cursor->packet_index,
           (unsigned long long)(cursor->packet_offset + bit / 8), detail, suffix);
}

/* Records the first error: later calls return it again. */
static enum ctf_status stream_fail(struct ctf_cursor *cursor, struct ctf_error *error,
                                   uint64_t bit, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

static enum ctf_status stream_fail(struct ctf_cursor *cursor, struct ctf_error *error,
                                   uint64_t bit, const char *format, ...) {
  struct ctf_error local;
  struct ctf_error *target = error ? error : &local;
  va_list args;
  va_start(args, format);
  stream_message(cursor, target, bit, "", format, args);
  va_end(args);
  cursor->failed = CTF_ERR_DATA;
  free(cursor->failure_message);
  cursor->failure_message = strdup(target->message);
  return CTF_ERR_DATA;
}

/* Reads bytes [from, from + want) of the packet being read (from taken down to a
 * multiple of WINDOW_ALIGN; no more than `limit` bytes of the packet) into the window. */
static enum ctf_status load_window(struct ctf_cursor *cursor, uint64_t from, uint64_t want,
                                   uint64_t limit, struct ctf_error *error) {
  uint64_t start = from / WINDOW_ALIGN * WINDOW_ALIGN;
  uint64_t end = from + want < limit ? from + want : limit;
  if (end < start)
    end = start;
  size_t bytes = (size_t)(end - start);
  if (bytes > cursor->buffer_size) {
    size_t size = bytes > WINDOW_BYTES ? bytes : WINDOW_BYTES;
    uint8_t *grown = realloc(cursor->buffer, size);
    if (!grown) {
      cursor->failed = CTF_ERR_NO_MEMORY;
      free(cursor->failure_message);
      cursor->failure_message = strdup("Cannot read stream: out of memory");
      return ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot read stream: file=%s: out of memory",
                      cursor->stream->path);
    }
    cursor->buffer = grown;
    cursor->buffer_size = size;
  }
  uint64_t at = cursor->packet_offset + start;
  if (cursor->fd < 0 && bytes)
    memcpy(cursor->buffer, cursor->map + at, bytes);
  for (size_t done = 0; cursor->fd >= 0 && done < bytes;) {
    ssize_t n = pread(cursor->fd, cursor->buffer + done, bytes - done, (off_t)(at + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return stream_fail(cursor, error, (start + done) * 8, "Cannot read the file: %s",
                         n < 0 ? strerror(errno) : "it is shorter than when it was opened");
    done += (size_t)n;
  }
  cursor->window_start = start;
  cursor->window_end = end;
  /* Where the packet's byte 0 would be: computed as an integer, it is never read there. */
  cursor->data = (const uint8_t *)((uintptr_t)cursor->buffer - (uintptr_t)start);
  return CTF_OK;
}

/* What to add to the address of a byte of the window to have the same byte in the
 * mapping (strings handed out point there: ctf_exec.persist). */
static uintptr_t persist_of(const struct ctf_cursor *cursor) {
  return (uintptr_t)(cursor->map + cursor->packet_offset) - (uintptr_t)cursor->data;
}

/* A damaged event inside a packet that the file holds whole: the error is reported once
 * and reading goes on with the next packet, whose position the packet header gave. A
 * damage the cursor cannot step over (a truncated file, a broken packet header) stays:
 * stream_fail(). */
static enum ctf_status event_fail(struct ctf_cursor *cursor, struct ctf_error *error,
                                  uint64_t bit, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

static enum ctf_status event_fail(struct ctf_cursor *cursor, struct ctf_error *error,
                                  uint64_t bit, const char *format, ...) {
  struct ctf_error local;
  struct ctf_error *target = error ? error : &local;
  va_list args;
  va_start(args, format);
  stream_message(cursor, target, bit,
                 cursor->packet_cut ? "" : " (the rest of this packet is skipped)", format, args);
  va_end(args);
  if (cursor->packet_cut) { /* nothing to step over to: the error stays */
    cursor->failed = CTF_ERR_DATA;
    free(cursor->failure_message);
    cursor->failure_message = strdup(target->message);
    return CTF_ERR_DATA;
  }
  cursor->in_packet = false;
  cursor->packet_offset += cursor->packet.size / 8;
  cursor->packet_index++;
  cursor->has_event = false;
  return CTF_ERR_DATA;
}

bool ctf_cursor_failed(const struct ctf_cursor *cursor) { return cursor->failed != CTF_OK; }

/* Why reading stopped: the file ends before the packet's content does. */
static const char *cut_reason(const struct ctf_cursor *cursor) {
  if (cursor->packet_cut && cursor->content_end < cursor->packet.content_size)
    return " (the file ends inside this packet: it is truncated)";
  return "";
}

static uint64_t unsigned_value(const struct ctf_value *values, int slot, bool *present) {
  *present = slot >= 0 && (values[slot].kind == CTF_VALUE_UNSIGNED ||
                           values[slot].kind == CTF_VALUE_SIGNED);
  return *present ? values[slot].u.u : 0;
}

/* The tracer's counter is cumulative. A narrow one (32-bit tracers) may wrap: a drop of
 * more than half its range is a wrap. A smaller drop is not a count: LTTng 2.13 was
 * seen writing 0 in one packet between 68692 and 92945; it adds nothing and the
 * previous value stays the reference, so the total still ends at the tracer's count. */
static void count_discarded(struct ctf_cursor *cursor, struct ctf_packet *packet,
                            uint32_t bits) {
  uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
  uint64_t current = packet->events_discarded & mask;
  uint64_t previous = cursor->has_previous_discarded ? cursor->previous_discarded : 0;
  uint64_t added = (current - previous) & mask;
  if (current < previous && (bits >= 64 || previous - current <= mask / 2)) {
    packet->events_discarded_new = 0;
    return;
  }
  packet->events_discarded_new = added;
  cursor->previous_discarded = current;
  cursor->has_previous_discarded = true;
  cursor->discarded_total += added;
}

static enum ctf_status open_packet(struct ctf_cursor *cursor, struct ctf_error *error) {
  const struct ctf_subtrace_private *sub = cursor->subtrace;
  uint64_t offset = cursor->packet_offset;
  uint64_t in_file = cursor->file_size - offset;
  uint64_t available = in_file * 8;
  /* The headers are read from a first window, made larger while they run past it. */
  uint64_t want = HEAD_BYTES;
again:;
  enum ctf_status loaded = load_window(cursor, 0, want, in_file, error);
  if (loaded != CTF_OK)
    return loaded;
  bool whole = cursor->window_end >= in_file;
  want *= 4;
  struct ctf_exec x = {.data = cursor->data, .end = cursor->window_end * 8,
                       .registers = cursor->registers, .clock = cursor->clock,
                       .persist = persist_of(cursor)};
  struct ctf_packet *packet = &cursor->packet;
  memset(packet, 0, sizeof *packet);
  packet->index = cursor->packet_index;
  packet->offset = offset;

  uint64_t stream_id = 0;
  if (sub->packet_header_plan) {
    x.values = cursor->header_values;
    if (ctf_exec_scope(sub->packet_header_plan, &x) != CTF_OK) {
      if (!whole)
        goto again;
      return stream_fail(cursor, error, x.position, "Cannot read packet header: %s (the file "
                         "ends at byte %llu)", x.failure, (unsigned long long)cursor->file_size);
    }
    const struct header_slots *slots = &cursor->header_slots;
    bool present;
    uint64_t magic = unsigned_value(x.values, slots->magic, &present);
    if (present && magic != PACKET_MAGIC)
      return stream_fail(cursor, error, 0, "bad packet magic 0x%llx (expected 0x%x)",
                         (unsigned long long)magic, PACKET_MAGIC);
    const struct ctf_value *uuid = slots->uuid >= 0 ? &x.values[slots->uuid] : NULL;
    if (uuid && sub->pub.has_uuid && uuid->kind == CTF_VALUE_ARRAY &&
        uuid->u.array.count == 16 && uuid->u.array.stride == 8 && uuid->u.array.bit == 0 &&
        memcmp(uuid->u.array.data, sub->pub.uuid, 16))
      return stream_fail(cursor, error, 0, "the packet's uuid is not the trace's");
    stream_id = unsigned_value(x.values, slots->stream_id, &present);
    packet->stream_instance_id =
        unsigned_value(x.values, slots->stream_instance_id, &packet->has_stream_instance_id);
  }
  const struct ctf_stream_class_private *sc = ctf_subtrace_stream_class(sub, stream_id);
  if (!sc)
    return stream_fail(cursor, error, 0, "no stream class has id=%llu",
                       (unsigned long long)stream_id);
  if (cursor->stream_class && sc != cursor->stream_class)
    return stream_fail(cursor, error, 0, "stream id changed from %llu to %llu",
                       (unsigned long long)cursor->stream_class->pub.id,
                       (unsigned long long)stream_id);
  cursor->stream_class = sc;
  packet->stream_class = &sc->pub;

  uint64_t packet_size = available, content_size = available;
  bool has_packet_size = false, has_content_size = false;
  if (sc->packet_context_plan) {
    x.values = cursor->packet_context_values;
    if (ctf_exec_scope(sc->packet_context_plan, &x) != CTF_OK) {
      if (!whole)
        goto again;
      return stream_fail(cursor, error, x.position, "Cannot read packet context: %s (the "
                         "file ends at byte %llu)", x.failure,
                         (unsigned long long)cursor->file_size);
    }
    const struct ctf_type *type = sc->pub.packet_context;
    const struct ctf_value *v = x.values;
    packet_size = unsigned_value(v, field_slot(type, "packet_size"), &has_packet_size);
    content_size = unsigned_value(v, field_slot(type, "content_size"), &has_content_size);
    bool present;
    packet->timestamp_begin = unsigned_value(v, field_slot(type, "timestamp_begin"), &present);
    packet->timestamp_end =
        unsigned_value(v, field_slot(type, "timestamp_end"), &packet->has_timestamps);
    packet->has_timestamps = packet->has_timestamps && present;
    packet->cpu_id = unsigned_value(v, field_slot(type, "cpu_id"), &packet->has_cpu_id);
    packet->sequence_number =
        unsigned_value(v, field_slot(type, "packet_seq_num"), &packet->has_sequence_number);
    int discarded_slot = field_slot(type, "events_discarded");
    packet->events_discarded =
        unsigned_value(v, discarded_slot, &packet->has_events_discarded);
    packet->context = v;
    if (packet->has_events_discarded) {
      const struct ctf_type *counter = type->u.structure.fields[discarded_slot].type;
      uint32_t bits = counter->kind == CTF_TYPE_INTEGER ? counter->u.integer.size : 64;
      count_discarded(cursor, packet, bits);
    }
  }
  if (!has_packet_size)
    packet_size = available;
  if (!has_content_size)
    content_size = packet_size;
  if (packet_size == 0 || packet_size % 8 || content_size > packet_size ||
      content_size < x.position)
    return stream_fail(cursor, error, 0,
                       "bad packet sizes (packet_size=%llu bits, content_size=%llu bits, "
                       "headers end at bit %llu)",
                       (unsigned long long)packet_size, (unsigned long long)content_size,
                       (unsigned long long)x.position);
  packet->size = packet_size;
  packet->content_size = content_size;
  cursor->packet_cut = packet_size > available;
  cursor->content_end = content_size < available ? content_size : available;
  cursor->position = x.position;
  cursor->clock = x.clock;
  cursor->in_packet = true;
  return CTF_OK;
}

static enum ctf_status repeat_failure(const struct ctf_cursor *cursor, struct ctf_error *error) {
  if (error) {
    error->status = cursor->failed;
    snprintf(error->message, sizeof error->message, "%s",
             cursor->failure_message ? cursor->failure_message : "Cannot read stream");
  }
  return cursor->failed;
}

enum ctf_status ctf_cursor_next_packet(struct ctf_cursor *cursor, const struct ctf_packet **out,
                                       struct ctf_error *error) {
  *out = NULL;
  if (cursor->failed != CTF_OK)
    return repeat_failure(cursor, error);
  if (cursor->in_packet) {
    if (cursor->packet_cut)
      return stream_fail(cursor, error, cursor->content_end,
                         "the file ends inside the packet (packet_size=%llu bytes, "
                         "file_size=%llu bytes): it is truncated",
                         (unsigned long long)(cursor->packet.size / 8),
                         (unsigned long long)cursor->file_size);
    cursor->in_packet = false;
    cursor->has_event = false;
    cursor->packet_offset += cursor->packet.size / 8;
    cursor->packet_index++;
    release(cursor);
  }
  if (cursor->packet_offset >= cursor->file_size)
    return CTF_END;
  enum ctf_status status = open_packet(cursor, error);
  if (status == CTF_OK)
    *out = &cursor->packet;
  return status;
}

enum ctf_status ctf_cursor_next(struct ctf_cursor *cursor, const struct ctf_event **out,
                                struct ctf_error *error) {
  *out = NULL;
  if (cursor->failed != CTF_OK)
    return repeat_failure(cursor, error);
  for (;;) {
    if (!cursor->in_packet) {
      if (cursor->packet_offset >= cursor->file_size)
        return CTF_END;
      enum ctf_status status = open_packet(cursor, error);
      if (status != CTF_OK)
        return status;
    }
    if (cursor->position < cursor->content_end)
      break;
    if (cursor->packet_cut)
      return stream_fail(cursor, error, cursor->content_end,
                         "the file ends inside the packet (packet_size=%llu bytes, "
                         "file_size=%llu bytes): it is truncated",
                         (unsigned long long)(cursor->packet.size / 8),
                         (unsigned long long)cursor->file_size);
    cursor->in_packet = false;
    cursor->packet_offset += cursor->packet.size / 8;
    cursor->packet_index++;
    release(cursor);
  }

  const struct ctf_stream_class_private *sc = cursor->stream_class;
  uint64_t start = cursor->position;
  /* The window holds the event, or moves to it (EVENT_MARGIN ahead, or more when an event
   * runs past its end: then decoded again). */
  uint64_t content_bytes = (cursor->content_end + 7) / 8, at = start >> 3;
  uint64_t want = WINDOW_BYTES;
  if (at < cursor->window_start || (cursor->window_end < content_bytes &&
                                    (at >= cursor->window_end ||
                                     cursor->window_end - at < EVENT_MARGIN))) {
    enum ctf_status loaded = load_window(cursor, at, want, content_bytes, error);
    if (loaded != CTF_OK)
      return loaded;
  }
  struct ctf_exec x;
  const struct ctf_event_class_private *ec;
  uint64_t payload;
  for (;;) {
    uint64_t end = cursor->window_end * 8;
    bool whole = end >= cursor->content_end;
    x = (struct ctf_exec){.data = cursor->data, .position = start,
                          .end = whole ? cursor->content_end : end,
                          .registers = cursor->registers, .clock = cursor->clock,
                          .persist = persist_of(cursor)};
    /* The events a few hundred bytes on, asked for now: in a read in time order the
     * streams take turns. (A prefetch past the buffer does nothing.) */
    __builtin_prefetch(x.data + (start >> 3) + CURSOR_PREFETCH_BYTES);
    const char *what = NULL; /* the part that did not fit, if any */
    ec = NULL;
    payload = x.position;
    if (sc->event_header_plan && ctf_exec_event_header(sc->event_header_plan, &x) != CTF_OK) {
      what = "header";
    } else if (!(ec = ctf_stream_class_event(sc, x.event_id))) {
      return event_fail(cursor, error, start, "Cannot read event: no event class has "
                                               "id=%llu in stream class %llu",
                         (unsigned long long)x.event_id, (unsigned long long)sc->pub.id);
    } else {
      if (sc->event_context_plan) {
        x.values = cursor->stream_context_values;
        if (ctf_exec_scope(sc->event_context_plan, &x) != CTF_OK)
          what = "context";
      }
      if (!what && ec->context_plan) {
        x.values = cursor->event_context_values;
        if (ctf_exec_scope(ec->context_plan, &x) != CTF_OK)
          what = "context";
      }
      x.values = NULL;
      payload = x.position;
      if (!what && ec->payload_plan) {
        payload = (x.position + ec->payload_plan->alignment - 1) &
                  ~(uint64_t)(ec->payload_plan->alignment - 1);
        if (ctf_exec_scope(ec->payload_plan, &x) != CTF_OK)
          what = "payload";
      }
    }
    if (!what)
      break;
    if (!whole) { /* it runs past the window: a larger one, from the event on */
      want = 2 * (cursor->window_end - at > want ? cursor->window_end - at : want);
      enum ctf_status loaded = load_window(cursor, at, want, content_bytes, error);
      if (loaded != CTF_OK)
        return loaded;
      continue;
    }
    if (what[0] == 'h')
      return event_fail(cursor, error, x.position, "Cannot read event header: %s%s",
                         x.failure, cut_reason(cursor));
    if (what[0] == 'c')
      return event_fail(cursor, error, x.position, "Cannot read event context: event=%s: "
                                                    "%s%s", ec->pub.name, x.failure,
                         cut_reason(cursor));
    return event_fail(cursor, error, x.position, "Cannot read event payload: event=%s: "
                                                  "%s%s", ec->pub.name, x.failure,
                       cut_reason(cursor));
  }
  if (x.position == start)   /* no header and nothing else: it would never advance */
    return event_fail(cursor, error, start, "Cannot read event: event=%s takes 0 bits",
                       ec->pub.name);
  cursor->position = x.position;
  cursor->clock = x.clock;
  struct ctf_event *event = &cursor->event;
  event->event_class = &ec->pub;
  event->stream = cursor->stream;
  event->packet = &cursor->packet;
  event->timestamp = x.clock;
  event->offset = cursor->packet_offset + start / 8;
  event->stream_context = cursor->stream_context_values;
  event->context = ec->context_plan ? cursor->event_context_values : NULL;
  event->internal.packet_data = x.data;
  event->internal.payload_bit = payload;
  event->internal.end_bit = x.end;
  event->internal.persist = x.persist;
  event->internal.registers = cursor->registers;
  cursor->has_event = true;
  *out = event;
  return CTF_OK;
}
