/* A small messaging API with a test call that sets a flag. */
#ifndef API_H
#define API_H
int api_test(int request, int *flag);
int api_wait(int request);
#endif
