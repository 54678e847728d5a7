/* sampler_launch: starts tracer-sampler (cli/sampler/) beside the app, recorded by the
 * app's session, and stops it once the app has ended (docs/sampling.md).
 *
 * The sampler is a child of the tracer, not of the app: the app's threads make no extra
 * call. It is given the session's environment (its daemon) without the interposers,
 * tracked by the session before it runs, and asked to stop with SIGTERM, after which it
 * takes one last reading.
 */
#ifndef TRACER_SAMPLER_LAUNCH_H
#define TRACER_SAMPLER_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>

#include "session.h"

struct sampler_process {
  pid_t pid; /* 0: not running */
};

/* Starts program (the tracer-sampler executable) with --period period_ms. extra
 * (NAME=VALUE, NULL-terminated) is added to the environment and removed (names) taken
 * out of it. Returns 0, or -1 with the reason in why. */
int sampler_launch(struct session *session, const char *program, unsigned period_ms,
                   const char *const *extra, const char *const *removed,
                   struct sampler_process *out, char *why, size_t why_size);

/* Asks the sampler to stop and waits for it (at most a few seconds, then kills it).
 * Returns 0 when it ended on its own with status 0. */
int sampler_stop(struct sampler_process *p);

#endif
