/* launch_env: the environment the traced app runs with (the rules are in launch.h).
 * Internal to the launch module. */
#ifndef TRACER_LAUNCH_ENV_H
#define TRACER_LAUNCH_ENV_H

#include "launch.h"

struct launch_env {
  char **entries;      /* owned, NULL-terminated "NAME=value" strings, each owned */
  char *preload_value; /* owned: the LD_PRELOAD value the app gets */
};

/* Builds the app's environment from the tracer's own (environ) and the request.
 * fork_library is the liblttng-ust-fork path to preload. */
enum launch_status launch_env_build(const struct launch_request *request,
                                    const char *fork_library, struct launch_env *env,
                                    struct launch_error *error);

void launch_env_free(struct launch_env *env);

#endif
