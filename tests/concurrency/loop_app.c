/* loop_app: makes an exact number of clGetPlatformIDs calls, so that a tracer job's
 * tally can be checked against it.
 * usage: loop_app CALLS [PAUSE_US]: CALLS calls, PAUSE_US microseconds of sleep after
 * each (default 0). Exits 0, or 77 when no OpenCL platform answers, 2 on bad usage. */
#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: loop_app CALLS [PAUSE_US]\n");
    return 2;
  }
  long calls = strtol(argv[1], NULL, 10);
  long pause_us = argc == 3 ? strtol(argv[2], NULL, 10) : 0;
  struct timespec pause = {.tv_sec = pause_us / 1000000, .tv_nsec = (pause_us % 1000000) * 1000};
  for (long i = 0; i < calls; i++) {
    cl_uint platforms = 0;
    if (clGetPlatformIDs(0, NULL, &platforms) != CL_SUCCESS || platforms == 0) {
      fprintf(stderr, "loop_app: no OpenCL platform\n");
      return 77;
    }
    if (pause_us > 0) {
      nanosleep(&pause, NULL);
    }
  }
  return 0;
}
