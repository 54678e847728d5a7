/* util: small helpers used by every apigen module. */
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void out_of_memory(void) {
  fputs("apigen: error: Cannot allocate memory\n", stderr);
  abort();
}

void *xmalloc(size_t size) {
  void *p = malloc(size ? size : 1);
  if (!p)
    out_of_memory();
  return p;
}

void *xcalloc(size_t count, size_t size) {
  void *p = calloc(count ? count : 1, size ? size : 1);
  if (!p)
    out_of_memory();
  return p;
}

void *xrealloc(void *ptr, size_t size) {
  void *p = realloc(ptr, size ? size : 1);
  if (!p)
    out_of_memory();
  return p;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xstrndup(const char *s, size_t n) {
  char *p = xmalloc(n + 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *xvasprintf(const char *fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  int n = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  if (n < 0)
    out_of_memory();
  char *p = xmalloc((size_t)n + 1);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  return p;
}

char *xasprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *p = xvasprintf(fmt, ap);
  va_end(ap);
  return p;
}

void strbuf_init(struct strbuf *sb) {
  sb->cap = 64;
  sb->len = 0;
  sb->data = xmalloc(sb->cap);
  sb->data[0] = '\0';
}

void strbuf_addn(struct strbuf *sb, const char *s, size_t n) {
  if (!sb->data)
    strbuf_init(sb);
  if (sb->len + n + 1 > sb->cap) {
    while (sb->len + n + 1 > sb->cap)
      sb->cap *= 2;
    sb->data = xrealloc(sb->data, sb->cap);
  }
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

void strbuf_add(struct strbuf *sb, const char *s) { strbuf_addn(sb, s, strlen(s)); }

void strbuf_addf(struct strbuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *p = xvasprintf(fmt, ap);
  va_end(ap);
  strbuf_add(sb, p);
  free(p);
}

char *strbuf_release(struct strbuf *sb) {
  if (!sb->data)
    strbuf_init(sb);
  char *p = sb->data;
  sb->data = NULL;
  sb->len = sb->cap = 0;
  return p;
}

void strbuf_free(struct strbuf *sb) {
  free(sb->data);
  sb->data = NULL;
  sb->len = sb->cap = 0;
}

void ptrvec_push(struct ptrvec *v, void *item) {
  if (v->len == v->cap) {
    v->cap = v->cap ? v->cap * 2 : 16;
    v->items = xrealloc(v->items, v->cap * sizeof *v->items);
  }
  v->items[v->len++] = item;
}

void ptrvec_free(struct ptrvec *v) {
  free(v->items);
  v->items = NULL;
  v->len = v->cap = 0;
}

bool str_starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

char *str_trim(char *s) {
  char *start = s;
  while (*start == ' ' || *start == '\t' || *start == '\n' || *start == '\r')
    start++;
  size_t len = strlen(start);
  while (len > 0 && (start[len - 1] == ' ' || start[len - 1] == '\t' ||
                     start[len - 1] == '\n' || start[len - 1] == '\r'))
    len--;
  memmove(s, start, len);
  s[len] = '\0';
  return s;
}

int write_file_atomic(const char *path, const char *data, size_t len) {
  char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) {
    int e = errno;
    free(tmp);
    errno = e;
    return -1;
  }
  size_t written = fwrite(data, 1, len, f);
  int failed = written != len;
  if (fclose(f) != 0)
    failed = 1;
  if (failed || rename(tmp, path) != 0) {
    int e = errno ? errno : EIO;
    unlink(tmp);
    free(tmp);
    errno = e;
    return -1;
  }
  free(tmp);
  return 0;
}

char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  struct strbuf sb;
  strbuf_init(&sb);
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    strbuf_addn(&sb, buf, n);
  int err = ferror(f);
  fclose(f);
  if (err) {
    strbuf_free(&sb);
    errno = EIO;
    return NULL;
  }
  if (len)
    *len = sb.len;
  return strbuf_release(&sb);
}

static size_t strset_hash(const char *key) {
  size_t h = 1469598103934665603ull; /* FNV-1a */
  for (const unsigned char *p = (const unsigned char *)key; *p; p++)
    h = (h ^ *p) * 1099511628211ull;
  return h;
}

static size_t strset_slot(char **slots, size_t cap, const char *key) {
  size_t i = strset_hash(key) & (cap - 1);
  while (slots[i] && strcmp(slots[i], key) != 0)
    i = (i + 1) & (cap - 1);
  return i;
}

bool strset_has(const struct strset *s, const char *key) {
  if (!s->cap)
    return false;
  return s->slots[strset_slot(s->slots, s->cap, key)] != NULL;
}

bool strset_add(struct strset *s, const char *key) {
  if ((s->len + 1) * 2 > s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    char **slots = xcalloc(cap, sizeof *slots);
    for (size_t i = 0; i < s->cap; i++)
      if (s->slots[i])
        slots[strset_slot(slots, cap, s->slots[i])] = s->slots[i];
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
  }
  size_t i = strset_slot(s->slots, s->cap, key);
  if (s->slots[i])
    return false;
  s->slots[i] = xstrdup(key);
  s->len++;
  return true;
}

void strset_free(struct strset *s) {
  for (size_t i = 0; i < s->cap; i++)
    free(s->slots[i]);
  free(s->slots);
  memset(s, 0, sizeof *s);
}
