/* A message API whose communicators are integers. */
#ifndef API_H
#define API_H
typedef int api_comm;
typedef int api_window;
int api_send(const void *buf, int count, int dest, api_comm comm);
int api_put(const void *buf, int count, int target, api_window win);
#endif
