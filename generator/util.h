/* util: allocation that aborts on exhaustion, growable strings and pointer arrays.
 * apigen is a short-lived command-line tool: running out of memory is fatal. */
#ifndef APIGEN_UTIL_H
#define APIGEN_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap);

/* A growable, always NUL-terminated string. */
struct strbuf {
  char *data; /* owned */
  size_t len, cap;
};
void strbuf_init(struct strbuf *sb);
void strbuf_add(struct strbuf *sb, const char *s);
void strbuf_addn(struct strbuf *sb, const char *s, size_t n);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *strbuf_release(struct strbuf *sb); /* returns the owned string, resets sb */
void strbuf_free(struct strbuf *sb);

/* A growable array of pointers; the caller decides who owns the elements. */
struct ptrvec {
  void **items;
  size_t len, cap;
};
void ptrvec_push(struct ptrvec *v, void *item);
void ptrvec_free(struct ptrvec *v);

bool str_starts_with(const char *s, const char *prefix);
/* Trims spaces at both ends in place and returns s. */
char *str_trim(char *s);

/* Writes data to path through a temporary file in the same folder, renamed over path
 * when complete, so a crash never leaves a half-written file. Returns 0 or -1 (errno). */
int write_file_atomic(const char *path, const char *data, size_t len);
/* Reads a whole file; returns NULL (errno set) on failure. */
char *read_file(const char *path, size_t *len);



/* A set of strings (open addressing); keys are copied and owned by the set. */
struct strset {
  char **slots;
  size_t cap, len;
};
/* Adds key; returns true when it was not there before. */
bool strset_add(struct strset *s, const char *key);
bool strset_has(const struct strset *s, const char *key);
void strset_free(struct strset *s);
#endif
