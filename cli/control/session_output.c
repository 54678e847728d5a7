/* session_output: check or create the trace output folder. */
#include "control_error.h"
#include "session_output.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* Finds the first entry other than . and ..: 1 (its name in name), 0 when the folder is
 * empty, -1 on error (errno set). */
static int first_entry(const char *path, char *name, size_t size)
{
  DIR *dir = opendir(path);
  if (dir == NULL) {
    return -1;
  }
  int found = 0;
  struct dirent *entry;
  errno = 0;
  while ((entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) {
      snprintf(name, size, "%s", entry->d_name);
      found = 1;
      break;
    }
  }
  int saved = errno;
  closedir(dir);
  if (found == 0 && saved != 0) {
    errno = saved;
    return -1;
  }
  return found;
}

/* mkdir -p for the parents of path (mode 0777 less the umask, like mkdir -p); the last
 * component is left to the caller, which makes it private. */
static int make_parents(const char *path)
{
  char *copy = strdup(path);
  if (copy == NULL) {
    return -1;
  }
  int rc = 0;
  for (char *slash = strchr(copy + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
    *slash = '\0';
    if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
      rc = -1;
      break;
    }
    *slash = '/';
  }
  free(copy);
  return rc;
}

enum session_status session_output_prepare(const char *path, char **absolute_out,
                                           bool *created_out, struct session_error *error)
{
  *absolute_out = NULL;
  *created_out = false;
  struct stat st;
  if (stat(path, &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      return session_fail(error, SESSION_ERR_OUTPUT,
                  "Cannot use output folder: path=%s, it exists and is not a folder", path);
    }
    char entry[256];
    int found = first_entry(path, entry, sizeof entry);
    if (found < 0) {
      return session_fail(error, SESSION_ERR_OUTPUT, "Cannot use output folder: path=%s: %s", path,
                  strerror(errno));
    }
    if (found > 0) {
      return session_fail(error, SESSION_ERR_OUTPUT,
                  "Cannot use output folder: path=%s, it is not empty (it holds %s); a new "
                  "trace would mix with what is there: choose a new folder or remove it",
                  path, entry);
    }
    /* The consumer daemon writes as this user (even a root daemon does): it must be
     * able to, or the trace would silently be missing. */
    if (access(path, W_OK | X_OK) != 0) {
      return session_fail(error, SESSION_ERR_OUTPUT, "Cannot use output folder: path=%s: %s", path,
                  strerror(errno));
    }
  } else if (errno == ENOENT) {
    if (make_parents(path) != 0 || mkdir(path, 0700) != 0) {
      return session_fail(error, SESSION_ERR_OUTPUT, "Cannot create output folder: path=%s: %s",
                  path, strerror(errno));
    }
    *created_out = true;
  } else {
    return session_fail(error, SESSION_ERR_OUTPUT, "Cannot use output folder: path=%s: %s", path,
                strerror(errno));
  }

  char *absolute = realpath(path, NULL);
  if (absolute == NULL) {
    int saved = errno;
    if (*created_out) {
      rmdir(path);
      *created_out = false;
    }
    return session_fail(error, SESSION_ERR_OUTPUT, "Cannot use output folder: path=%s: %s", path,
                strerror(saved));
  }
  *absolute_out = absolute;
  return SESSION_OK;
}
