/* A message API whose receives fill a status. */
#ifndef API_H
#define API_H
typedef int api_comm;
typedef struct api_status {
  int source, bytes;
} api_status;
int api_recv(void *buf, int count, int source, api_comm comm, api_status *status);
#endif
