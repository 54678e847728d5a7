/* A small device API: copies, launches, allocations and command lists. */
#ifndef DV_H
#define DV_H
#include <stddef.h>
enum dv_kind { DV_H2D = 1, DV_D2H = 2 };
int dv_copy(void *dst, const void *src, size_t n, int kind);
int dv_launch(void *queue, void *kernel);
int dv_alloc(void **p, size_t n);
int dv_free(void *p);
int dv_list_create(void **list);
int dv_kernel_create(const char *name, void **kernel);
#endif
