/* A header that does not compile: the message points into it. */
#ifndef API_H
#define API_H
int api_open(const char *name, int *handle);
int api_close(int handle;
#endif
