/* session_flush: stop a session until its data is written, destroy it without waiting
 * (why: session_flush.h). */
#include "session_flush.h"

#include "lttng_ctl_library.h"

#include <errno.h>
#include <time.h>

static void sleep_ms(int ms)
{
  struct timespec pause = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
  while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
  }
}

int session_flush_stop(const char *name)
{
  int rc = lttng_stop_tracing_no_wait(name);
  if (rc < 0 && rc != -LTTNG_ERR_TRACE_ALREADY_STOPPED) {
    return rc;
  }
  /* The consumer usually has it all by the time the stop returns (the stop itself waits
   * for the buffers' flush): the first answer is mostly the last. */
  for (int pause_ms = 1;; pause_ms = pause_ms < SESSION_FLUSH_MAX_POLL_MS ? 2 * pause_ms
                                                                          : pause_ms) {
    int pending = lttng_data_pending(name);
    if (pending <= 0) {
      return pending < 0 ? pending : rc;
    }
    sleep_ms(pause_ms);
  }
}

int session_flush_destroy(const char *name)
{
  return lttng_destroy_session_no_wait(name);
}
