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

struct trace_scan {
  bool metadata; /* a non-empty metadata file */
  bool events;   /* a non-empty event stream beside one */
};

/* Walks a consumer's folders: streams sit beside their metadata file; index/ folders
 * hold only offsets. */
static void scan_folder(const char *path, int depth, struct trace_scan *scan)
{
  DIR *dir = depth < 8 ? opendir(path) : NULL;
  if (dir == NULL) {
    return;
  }
  bool metadata_here = false, streams_here = false;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0 ||
        strcmp(entry->d_name, "index") == 0) {
      continue;
    }
    char child[PATH_MAX];
    struct stat st;
    if (snprintf(child, sizeof child, "%s/%s", path, entry->d_name) >= (int)sizeof child ||
        lstat(child, &st) != 0) {
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      scan_folder(child, depth + 1, scan);
    } else if (S_ISREG(st.st_mode) && st.st_size > 0) {
      if (strcmp(entry->d_name, "metadata") == 0) {
        metadata_here = true;
      } else {
        streams_here = true;
      }
    }
  }
  closedir(dir);
  scan->metadata |= metadata_here;
  scan->events |= metadata_here && streams_here;
}

enum session_trace_content session_trace_content(const char *output_dir)
{
  struct trace_scan scan = {false, false};
  char ust[PATH_MAX];
  snprintf(ust, sizeof ust, "%s/ust", output_dir);
  scan_folder(ust, 0, &scan);
  if (!scan.metadata) {
    return SESSION_TRACE_NO_METADATA;
  }
  return scan.events ? SESSION_TRACE_COMPLETE : SESSION_TRACE_NO_EVENTS;
}
