/* launch_env: builds the traced app's environment. */
#include "control_error.h"
#include "launch_env.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static const char preload_name[] = "LD_PRELOAD";
static const char register_timeout_name[] = "LTTNG_UST_REGISTER_TIMEOUT";


/* Length of the name part of "NAME=value" (the whole string when there is no '='). */
static size_t name_length(const char *entry)
{
  const char *equals = strchr(entry, '=');
  return equals != NULL ? (size_t)(equals - entry) : strlen(entry);
}

static bool has_name(const char *entry, const char *name, size_t len)
{
  return name_length(entry) == len && strncmp(entry, name, len) == 0;
}

static bool list_has_name(const char *const *entries, const char *name, size_t len)
{
  for (size_t i = 0; entries != NULL && entries[i] != NULL; i++) {
    if (has_name(entries[i], name, len)) {
      return true;
    }
  }
  return false;
}

/* ld.so splits LD_PRELOAD at colons and spaces, so a path holding either cannot be
 * preloaded; and a missing library is only a warning on the app's stderr, after which
 * the app runs untraced: both are refused here, before anything runs. */
static enum launch_status check_library(const char *path, const char *role,
                                        struct launch_error *error)
{
  if (path[0] == '\0' || strpbrk(path, ": \t\n") != NULL) {
    return launch_fail(error, LAUNCH_ERR_USAGE,
                "Cannot run app: %s=\"%s\" cannot be preloaded (LD_PRELOAD entries must "
                "be non-empty and hold no colon or white space)",
                role, path);
  }
  /* A bare name is searched by ld.so in the library path; only paths can be checked. */
  if (strchr(path, '/') != NULL && access(path, R_OK) != 0) {
    return launch_fail(error, LAUNCH_ERR_USAGE, "Cannot run app: %s=%s cannot be read (%s)", role,
                path, strerror(errno));
  }
  return LAUNCH_OK;
}

static char *join_preload(const struct launch_request *request, const char *fork_library)
{
  const char *user_preload = getenv(preload_name);
  size_t size = strlen(fork_library) + 1;
  for (size_t i = 0; request->preload_libraries != NULL && request->preload_libraries[i];
       i++) {
    size += strlen(request->preload_libraries[i]) + 1;
  }
  if (user_preload != NULL) {
    size += strlen(user_preload) + 1;
  }
  char *value = malloc(size);
  if (value == NULL) {
    return NULL;
  }
  value[0] = '\0';
  for (size_t i = 0; request->preload_libraries != NULL && request->preload_libraries[i];
       i++) {
    strcat(value, request->preload_libraries[i]);
    strcat(value, ":");
  }
  strcat(value, fork_library);
  /* The user's own preloads come last: ours must wrap the API before anything the user
   * injects calls it, and the user's list is kept exactly as written. */
  if (user_preload != NULL && user_preload[0] != '\0') {
    strcat(value, ":");
    strcat(value, user_preload);
  }
  return value;
}

static char *make_entry(const char *name, const char *value)
{
  size_t name_len = strlen(name), value_len = strlen(value);
  char *entry = malloc(name_len + 1 + value_len + 1);
  if (entry != NULL) {
    memcpy(entry, name, name_len);
    entry[name_len] = '=';
    memcpy(entry + name_len + 1, value, value_len + 1);
  }
  return entry;
}

static void free_entries(char **entries)
{
  if (entries != NULL) {
    for (size_t i = 0; entries[i] != NULL; i++) {
      free(entries[i]);
    }
    free(entries);
  }
}

/* Fills entries (zeroed, large enough) in order: the inherited environment less what is
 * replaced or removed, the extra entries, LD_PRELOAD, the register timeout unless the
 * user set it.
 * Returns false when out of memory. */
static bool fill_entries(char **entries, const struct launch_request *request,
                         const char *preload_value)
{
  const char *const *extra = request->extra_environment;
  size_t count = 0;
  bool timeout_given = false;
  size_t timeout_len = strlen(register_timeout_name);
  for (size_t i = 0; environ != NULL && environ[i] != NULL; i++) {
    const char *entry = environ[i];
    if (has_name(entry, preload_name, strlen(preload_name)) ||
        list_has_name(extra, entry, name_length(entry)) ||
        list_has_name(request->removed_environment, entry, name_length(entry))) {
      continue;
    }
    timeout_given = timeout_given || has_name(entry, register_timeout_name, timeout_len);
    if ((entries[count++] = strdup(entry)) == NULL) {
      return false;
    }
  }
  for (size_t i = 0; extra != NULL && extra[i] != NULL; i++) {
    timeout_given = timeout_given || has_name(extra[i], register_timeout_name, timeout_len);
    if ((entries[count++] = strdup(extra[i])) == NULL) {
      return false;
    }
  }
  if ((entries[count++] = make_entry(preload_name, preload_value)) == NULL) {
    return false;
  }
  if (!timeout_given) {
    char value[24];
    int timeout_ms = request->register_timeout_ms != 0 ? request->register_timeout_ms
                                                       : LAUNCH_DEFAULT_REGISTER_TIMEOUT_MS;
    snprintf(value, sizeof value, "%d", timeout_ms);
    if ((entries[count++] = make_entry(register_timeout_name, value)) == NULL) {
      return false;
    }
  }
  return true;
}

enum launch_status launch_env_build(const struct launch_request *request,
                                    const char *fork_library, struct launch_env *env,
                                    struct launch_error *error)
{
  error->message[0] = '\0';
  env->entries = NULL;
  env->preload_value = NULL;
  enum launch_status status = LAUNCH_OK;
  const char *const *extra = request->extra_environment;

  for (size_t i = 0; request->preload_libraries != NULL && request->preload_libraries[i];
       i++) {
    status = check_library(request->preload_libraries[i], "preload", error);
    if (status != LAUNCH_OK) {
      return status;
    }
  }
  status = check_library(fork_library, "ust_fork_library", error);
  if (status != LAUNCH_OK) {
    return status;
  }
  for (size_t i = 0; extra != NULL && extra[i] != NULL; i++) {
    if (strchr(extra[i], '=') == NULL || extra[i][0] == '=') {
      return launch_fail(error, LAUNCH_ERR_USAGE,
                  "Cannot run app: environment entry \"%s\" is not NAME=value", extra[i]);
    }
    if (has_name(extra[i], preload_name, strlen(preload_name))) {
      return launch_fail(error, LAUNCH_ERR_USAGE,
                  "Cannot run app: LD_PRELOAD is built by the launcher; pass libraries as "
                  "preload_libraries");
    }
  }

  size_t inherited = 0;
  while (environ != NULL && environ[inherited] != NULL) {
    inherited++;
  }
  size_t extra_count = 0;
  while (extra != NULL && extra[extra_count] != NULL) {
    extra_count++;
  }
  /* Inherited entries, extra entries, LD_PRELOAD, the register timeout, NULL. */
  char **entries = calloc(inherited + extra_count + 3, sizeof *entries);
  char *preload_value = join_preload(request, fork_library);
  if (entries == NULL || preload_value == NULL ||
      !fill_entries(entries, request, preload_value)) {
    free_entries(entries);
    free(preload_value);
    return launch_fail(error, LAUNCH_ERR_SYSTEM, "Cannot run app: out of memory");
  }
  env->entries = entries;
  env->preload_value = preload_value;
  return LAUNCH_OK;
}

void launch_env_free(struct launch_env *env)
{
  free_entries(env->entries);
  free(env->preload_value);
  env->entries = NULL;
  env->preload_value = NULL;
}
