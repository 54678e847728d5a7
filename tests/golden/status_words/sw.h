/* Statuses that are no list of values, names a macro makes, a function the header
 * defines, and a buffer beside its length (apigen --init's rules, written by hand). */
#ifndef SW_H
#define SW_H
#include <stddef.h>
#define SW_ERROR_GENERIC (-1)
#define SW_ERROR_NOMEM (-2)
#define SW_GLUE2(a, b) a##b
#define SW_GLUE(a, b) SW_GLUE2(a, b)
#define SW_WIDTH 8
#define sw_match SW_GLUE(sw_match_, SW_WIDTH) /* callers write sw_match */

int sw_open(const char *path);                       /* negative: an error */
int sw_match_8(const char *pattern, size_t patternLength); /* a buffer, not a string */
size_t sw_compress(void *dst, size_t dstCapacity, const void *src, size_t srcSize);
unsigned sw_isError(size_t code);                    /* the library's test of a size_t */
int sw_ready(void);                                  /* 1 on success, 0 on error */
int sw_count(void);                                  /* 1.. : a count, 0 an error */
static inline int sw_twice(int x) { return 2 * x; }  /* no symbol: never wrapped */
#endif
