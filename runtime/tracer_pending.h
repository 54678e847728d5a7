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
 * backend's commands locked, from whatever thread drains.
 *
 * Command lists (the spec's trace.command_lists: Level Zero's): a command added on a
 * regular list is recorded there, and pending from each execution of the list, as a run
 * whose release is not the last (the list may run again); the list's reset or
 * destruction releases what it recorded for good. A command on an immediate list, or on
 * a queue that is no list, is pending at once.
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
  int32_t device; /* its ordinal (tracer_command_device) */
  char name[160];
  bool recorded; /* one run of a recorded list's command (the runtime's) */
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
  /* last: the command is done with; else one run of a recorded list's command was read,
   * and the command stays on its list. */
  void (*release)(struct tracer_pending *p, bool last);
  bool drain_at_exit;
};

/* The pending part of a command the hooks time: its call (the one just returned), kind,
 * bytes, queue, device and name (tracer_command_name). */
void tracer_pending_init(struct tracer_pending *p, const struct tracer_command *command);

/* Keeps a command (ops->size bytes at p) until it is read, or on its regular list.
 * Draining first when many are pending; a command that cannot be kept is released. */
void tracer_pending_add(const struct tracer_pending_ops *ops, const struct tracer_pending *p);

/* Reads the backend's pending commands that are done (with wait, waits for each) and
 * records them. Cheap when none is pending. */
void tracer_pending_drain(const char *backend, bool wait);

/* Records a command whose times are read. */
void tracer_pending_record(const char *backend, const struct tracer_pending *p, uint64_t start_raw,
                           uint64_t end_raw);

/* A command list made (a handle the driver gives again starts afresh), with the context
 * and device the hooks want to know of it. */
void tracer_list_created(const char *backend, uintptr_t list, uintptr_t context, uintptr_t device,
                         bool immediate);
/* The context and device of a list; false when list is none. */
bool tracer_list_of(const char *backend, uintptr_t list, uintptr_t *context, uintptr_t *device);
/* count lists (handles of size bytes) executed: their recorded commands are pending. */
void tracer_lists_executed(const char *backend, const void *lists, size_t size, int64_t count);
/* A list (or a queue) reset or destroyed: its commands are read if done, those that
 * never ran released unread, and what it recorded released for good. */
void tracer_list_reset(const char *backend, uintptr_t list, bool destroy);

#endif
