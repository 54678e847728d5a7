/* pb: a minimal protobuf wire-format encoder, writing straight into a growable byte buffer.
 *
 * Why not protobuf-c: it encodes from a tree of C structs that the caller fills (and
 * usually allocates) per message, then walks twice (size, pack). A timeline writes
 * hundreds of millions of small, fixed-shape messages; writing the wire format directly
 * costs one pass, no allocation per event, and about 100 lines (varints, fixed64,
 * length-delimited fields and nested messages). Field numbers are the caller's
 * (timeline_proto.h, from Perfetto's public trace proto).
 *
 * Nested messages: pb_begin() reserves one length byte and pb_end() fills it in,
 * moving the message forward when its length needs more bytes, so lengths are minimal.
 * Out of memory is sticky: every later call does nothing and pb->failed stays true.
 */
#ifndef TRACER_PB_H
#define TRACER_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct pb {
  uint8_t *data; /* owned */
  size_t len, cap;
  bool failed;   /* an allocation failed: the buffer's content is incomplete */
};

void pb_free(struct pb *pb);
static inline void pb_reset(struct pb *pb) { pb->len = 0; }

/* Room for `more` bytes: false when out of memory (then pb->failed). */
bool pb_grow(struct pb *pb, size_t more);
static inline bool pb_reserve(struct pb *pb, size_t more) {
  return (pb->len + more <= pb->cap && !pb->failed) || pb_grow(pb, more);
}

/* The hot path of every field, inline. */
static inline void pb_put_varint(struct pb *pb, uint64_t v) {
  uint8_t *p = pb->data + pb->len;
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  pb->len = (size_t)(p - pb->data);
}

static inline void pb_varint(struct pb *pb, uint32_t field, uint64_t value) {
  if (!pb_reserve(pb, 20))
    return;
  pb_put_varint(pb, (uint64_t)field << 3); /* wire type 0: varint */
  pb_put_varint(pb, value);
}
/* int64 fields (two's complement) */
static inline void pb_sint(struct pb *pb, uint32_t field, int64_t value) {
  pb_varint(pb, field, (uint64_t)value);
}
void pb_fixed64(struct pb *pb, uint32_t field, uint64_t value);
void pb_double(struct pb *pb, uint32_t field, double value);
static inline void pb_bytes(struct pb *pb, uint32_t field, const void *data, size_t len) {
  if (!pb_reserve(pb, 20 + len))
    return;
  pb_put_varint(pb, (uint64_t)field << 3 | 2); /* wire type 2: length-delimited */
  pb_put_varint(pb, len);
  if (len)
    memcpy(pb->data + pb->len, data, len);
  pb->len += len;
}
static inline void pb_string(struct pb *pb, uint32_t field, const char *s) {
  pb_bytes(pb, field, s ? s : "", s ? strlen(s) : 0);
}

/* A nested message (or length-delimited field): returns its mark for pb_end(). */
static inline size_t pb_begin(struct pb *pb, uint32_t field) {
  if (!pb_reserve(pb, 11))
    return 0;
  pb_put_varint(pb, (uint64_t)field << 3 | 2); /* wire type 2: length-delimited */
  pb->data[pb->len++] = 0; /* the length, filled in by pb_end() */
  return pb->len;
}
/* pb_end() of a message of 128 bytes or more (its length takes more than the byte kept). */
void pb_end_long(struct pb *pb, size_t mark);
static inline void pb_end(struct pb *pb, size_t mark) {
  if (pb->failed || mark == 0)
    return;
  size_t body = pb->len - mark;
  if (body < 0x80)
    pb->data[mark - 1] = (uint8_t)body;
  else
    pb_end_long(pb, mark);
}

/* Appends raw bytes (an already encoded message). */
void pb_raw(struct pb *pb, const void *data, size_t len);

#endif
