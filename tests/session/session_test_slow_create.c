/* A fault-injection shim for the tracer side (LD_PRELOAD into the driver): it delays
 * lttng_create_session_ext() by SESSION_TEST_CREATE_DELAY_MS, so that a test can make
 * another job stop the shared daemon between this job finding it and creating its
 * session. */
#define _GNU_SOURCE
#include <lttng/lttng.h>

#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

enum lttng_error_code lttng_create_session_ext(struct lttng_session_descriptor *descriptor)
{
  const char *delay = getenv("SESSION_TEST_CREATE_DELAY_MS");
  if (delay != NULL) {
    long ms = atol(delay);
    struct timespec pause = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&pause, NULL);
    /* Only the first attempt is slowed down: the retry must go through. */
    unsetenv("SESSION_TEST_CREATE_DELAY_MS");
  }
  enum lttng_error_code (*real)(struct lttng_session_descriptor *) =
      (enum lttng_error_code(*)(struct lttng_session_descriptor *))dlsym(
          RTLD_NEXT, "lttng_create_session_ext");
  return real != NULL ? real(descriptor) : LTTNG_ERR_UNK;
}
