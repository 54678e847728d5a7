/* A small, valid API header for an error case. */
#ifndef API_H
#define API_H
#include <stddef.h>
#define API_ERROR (-1)
int api_open(const char *name, int *handle);
int api_close(int handle);
int api_flush(int handle);
size_t api_write(int handle, const void *data, size_t size);
#endif
