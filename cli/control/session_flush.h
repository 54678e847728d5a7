/* session_flush: the end of a session without LTTng's fixed waits. Internal to the
 * session module.
 *
 * lttng_stop_tracing() asks the consumer whether data is still pending every 200 ms
 * (liblttng-ctl's DEFAULT_DATA_AVAILABILITY_WAIT_TIME_US), and a destruction waits for
 * the session daemon's check that the last trace chunk is closed, which runs every
 * 500 ms (lttng-sessiond's DEFAULT_ROTATE_PENDING_TIMER). Neither wait adds anything to
 * the trace: once the session is stopped and no data is pending (data pending covers the
 * metadata stream too), every event and the metadata are in the trace's files, and the
 * destruction only closes them. So the stop here asks again after 1 ms, then doubling up
 * to SESSION_FLUSH_MAX_POLL_MS, and the destruction is requested without waiting for it.
 *
 * Conventions: the caller arms the watchdog (daemon_watchdog.h) around these calls;
 * return values are liblttng-ctl's (0 or a negative LTTNG_ERR_ code).
 */
#ifndef TRACER_SESSION_FLUSH_H
#define TRACER_SESSION_FLUSH_H

/* The longest pause between two questions about pending data. */
#define SESSION_FLUSH_MAX_POLL_MS 32

/* Stops the session and returns once the consumer has written every buffer out (or the
 * daemon refused: the error). A session already stopped is flushed all the same. */
int session_flush_stop(const char *name);

/* Asks the daemon to destroy the session (stopped and flushed by session_flush_stop())
 * and returns without waiting for the daemon to finish. */
int session_flush_destroy(const char *name);

#endif
