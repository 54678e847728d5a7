/* text_line: one line of `tracer -t` being written, in memory. Appending a piece is a
 * copy: -t writes millions of lines, and writing them through stdio (a memory stream per
 * line, fputs and fwrite for every piece) was two thirds of its time. Numbers are
 * written by hand; floats, rare, through snprintf.
 *
 * A line owns its bytes; text_line_put* never fail: a line that cannot grow is marked
 * (failed) and keeps what it had. */
#ifndef TRACER_TEXT_LINE_H
#define TRACER_TEXT_LINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct text_line {
  char *data; /* owned; not NUL-terminated */
  size_t used, size;
  bool failed;
};

static inline bool text_line_room(struct text_line *l, size_t n) {
  if (l->used + n <= l->size)
    return true;
  size_t size = l->size ? l->size : 256;
  while (size < l->used + n)
    size *= 2;
  char *grown = realloc(l->data, size);
  if (!grown) {
    l->failed = true;
    return false;
  }
  l->data = grown;
  l->size = size;
  return true;
}

static inline void text_line_put(struct text_line *l, const char *s, size_t n) {
  if (text_line_room(l, n)) {
    memcpy(l->data + l->used, s, n);
    l->used += n;
  }
}

static inline void text_line_puts(struct text_line *l, const char *s) {
  text_line_put(l, s, strlen(s));
}

static inline void text_line_putc(struct text_line *l, char c) {
  if (text_line_room(l, 1))
    l->data[l->used++] = c;
}

static inline void text_line_u64(struct text_line *l, uint64_t v) {
  char digits[24], *p = digits + sizeof digits;
  do
    *--p = (char)('0' + v % 10);
  while ((v /= 10) > 0);
  text_line_put(l, p, (size_t)(digits + sizeof digits - p));
}

static inline void text_line_i64(struct text_line *l, int64_t v) {
  if (v < 0) {
    text_line_putc(l, '-');
    text_line_u64(l, -(uint64_t)v);
  } else {
    text_line_u64(l, (uint64_t)v);
  }
}

/* 0x and the lowercase hex digits, as printf's "0x%" PRIx64. */
static inline void text_line_hex(struct text_line *l, uint64_t v) {
  char digits[24], *p = digits + sizeof digits;
  do
    *--p = "0123456789abcdef"[v & 15];
  while ((v >>= 4) > 0);
  *--p = 'x';
  *--p = '0';
  text_line_put(l, p, (size_t)(digits + sizeof digits - p));
}

/* As printf's "%g". */
static inline void text_line_double(struct text_line *l, double v) {
  char text[64];
  int n = snprintf(text, sizeof text, "%g", v);
  if (n > 0)
    text_line_put(l, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
}

#endif
