/* pb: see pb.h. */
#include "pb.h"

#include <stdlib.h>
#include <string.h>

enum { WIRE_FIXED64 = 1 };

void pb_free(struct pb *pb) {
  free(pb->data);
  memset(pb, 0, sizeof *pb);
}

bool pb_grow(struct pb *pb, size_t more) {
  if (pb->failed)
    return false;
  if (pb->len + more <= pb->cap)
    return true;
  size_t cap = pb->cap ? pb->cap : 4096;
  while (cap < pb->len + more)
    cap *= 2;
  uint8_t *grown = realloc(pb->data, cap);
  if (!grown) {
    pb->failed = true;
    return false;
  }
  pb->data = grown;
  pb->cap = cap;
  return true;
}

static size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

void pb_fixed64(struct pb *pb, uint32_t field, uint64_t value) {
  if (!pb_reserve(pb, 18))
    return;
  pb_put_varint(pb, (uint64_t)field << 3 | WIRE_FIXED64);
  for (int i = 0; i < 8; i++)
    pb->data[pb->len++] = (uint8_t)(value >> (8 * i));
}

void pb_double(struct pb *pb, uint32_t field, double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  pb_fixed64(pb, field, bits);
}

void pb_end_long(struct pb *pb, size_t mark) {
  size_t body = pb->len - mark;
  size_t size = varint_size(body);
  if (size > 1) {
    if (!pb_reserve(pb, size - 1))
      return;
    memmove(pb->data + mark + size - 1, pb->data + mark, body);
  }
  size_t end = pb->len + size - 1;
  pb->len = mark - 1;
  pb_put_varint(pb, body);
  pb->len = end;
}

void pb_raw(struct pb *pb, const void *data, size_t len) {
  if (!pb_reserve(pb, len))
    return;
  memcpy(pb->data + pb->len, data, len);
  pb->len += len;
}
