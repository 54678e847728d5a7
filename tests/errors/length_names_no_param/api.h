/* A small, valid API header for an error case. */
#ifndef API_H
#define API_H
int api_open(const char *name, int *handle);
int api_close(int handle);
#endif
