/* tracer_pending: device commands submitted and not read yet, per backend.
 *
 * A backend whose device times come from events it polls (Level Zero's kernel
 * timestamps, CUDA's events) hands each command it submitted to tracer_pending_add(),
 * in a struct of its own that starts with a struct tracer_pending (ops->size bytes,
 * copied). The commands are read, and each finished one recorded as a device_command
 * event with its times put on the trace clock:
 * - after the calls the spec says synchronize (trace.calls, meaning sync): the generated
 *   wrapper calls tracer_pending_drain();
 * - when TRACER_PENDING_DRAIN_AT are pending, at the next add (all of them, waiting,
 *   when TRACER_PENDING_MAX are);
 * - when the backend's hooks ask (an event query that succeeded, a context about to go);
 * - at exit, waiting for each, for a backend whose ops say drain_at_exit: from an atexit
 *   handler, which runs before any library's destructors (the driver's teardown).
 * Reading is the backend's (ops->read); what it holds for a command (its events) it gives
 * back in ops->release, once the command is read, lost or forgotten. Both run with the
 * backend's list locked, from whatever thread drains.
 */
#ifndef TRACER_PENDING_H
#define TRACER_PENDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracer_device.h"

enum { TRACER_PENDING_DRAIN_AT = 512, TRACER_PENDING_MAX = 4096 };

/* What a command's device_command event will say. */
struct tracer_pending {
  struct tracer_call_id call; /* the call that submitted it */
  enum tracer_command_kind kind;
  uint64_t bytes;
  uintptr_t queue;
  char name[160];
};

enum tracer_pending_state {
  TRACER_PENDING_RUNNING, /* not finished: kept */
  TRACER_PENDING_READ,    /* finished, times read: recorded, then released */
  TRACER_PENDING_LOST,    /* finished without times: released */
};

/* One drain reads the commands in order; `drain` counts the backend's drains, so that a
 * reader may keep what it read for one command (a device's clock) for the next ones of
 * the same drain. Times are CLOCK_MONOTONIC_RAW nanoseconds. */
struct tracer_pending_ops {
  const char *backend;
  size_t size; /* of the backend's struct, which starts with a struct tracer_pending */
  enum tracer_pending_state (*read)(struct tracer_pending *p, bool wait, unsigned drain,
                                    uint64_t *start_raw, uint64_t *end_raw);
  void (*release)(struct tracer_pending *p);
  bool drain_at_exit;
};

/* The pending part of a command the hooks time: its call (the one just returned), kind,
 * bytes, queue and name (tracer_command_name). */
void tracer_pending_init(struct tracer_pending *p, const struct tracer_command *command);

/* Keeps a command (ops->size bytes at p) until it is read. Draining first when many are
 * pending; a command that cannot be kept is released. */
void tracer_pending_add(const struct tracer_pending_ops *ops, const struct tracer_pending *p);

/* Reads the backend's pending commands that are done (with wait, waits for each) and
 * records them. Cheap when none is pending. */
void tracer_pending_drain(const char *backend, bool wait);

/* Releases, unread, the backend's pending commands of queue (every one for queue 0). */
void tracer_pending_forget(const char *backend, uintptr_t queue);

/* Records a command whose times the backend has read (OpenCL's completion callbacks). */
void tracer_pending_record(const char *backend, const struct tracer_pending *p, uint64_t start_raw,
                           uint64_t end_raw);

#endif
