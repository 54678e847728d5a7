/* path_search: command lookup through PATH, with a shell's exit-code distinctions. */
#include "path_search.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Classifies one candidate file. A missing file (or a missing folder on its way) is
 * "not found"; anything else that stops it from running is "not executable", which is
 * how shells choose between 127 and 126. *is_file says whether the candidate is a file
 * that could be seen (not a folder, not behind a folder we may not search). */
static enum path_search_result check_candidate(const char *path, int *errno_out,
                                               bool *is_file)
{
  struct stat st;
  *is_file = false;
  if (stat(path, &st) != 0) {
    *errno_out = errno;
    return (errno == ENOENT || errno == ENOTDIR) ? PATH_SEARCH_NOT_FOUND
                                                 : PATH_SEARCH_NOT_EXECUTABLE;
  }
  if (S_ISDIR(st.st_mode)) {
    *errno_out = EISDIR;
    return PATH_SEARCH_NOT_EXECUTABLE;
  }
  *is_file = true;
  if (access(path, X_OK) != 0) {
    *errno_out = errno;
    return PATH_SEARCH_NOT_EXECUTABLE;
  }
  return PATH_SEARCH_FOUND;
}

/* The system's default search path, used when PATH is unset (as execvp and shells do). */
static char *default_search_path(void)
{
  size_t size = confstr(_CS_PATH, NULL, 0);
  if (size == 0) {
    return strdup("/bin:/usr/bin");
  }
  char *path = malloc(size);
  if (path != NULL) {
    confstr(_CS_PATH, path, size);
  }
  return path;
}

enum path_search_result path_search_executable(const char *name, char **path_out,
                                               int *errno_out)
{
  *path_out = NULL;
  *errno_out = 0;
  if (name == NULL || name[0] == '\0') {
    *errno_out = ENOENT;
    return PATH_SEARCH_NOT_FOUND;
  }

  if (strchr(name, '/') != NULL) {
    bool is_file;
    enum path_search_result result = check_candidate(name, errno_out, &is_file);
    if (result != PATH_SEARCH_FOUND) {
      return result;
    }
    *path_out = strdup(name);
    return *path_out != NULL ? PATH_SEARCH_FOUND : PATH_SEARCH_NO_MEMORY;
  }

  const char *env_path = getenv("PATH");
  char *search = env_path != NULL ? strdup(env_path) : default_search_path();
  if (search == NULL) {
    return PATH_SEARCH_NO_MEMORY;
  }

  enum path_search_result result = PATH_SEARCH_NOT_FOUND;
  size_t name_len = strlen(name);
  char *cursor = search;
  bool more = true;
  while (more) {
    char *end = strchr(cursor, ':');
    more = end != NULL;
    if (more) {
      *end = '\0';
    }
    /* An empty PATH entry means the current folder, as in POSIX sh. */
    const char *folder = cursor[0] != '\0' ? cursor : ".";
    size_t folder_len = strlen(folder);
    char *candidate = malloc(folder_len + 1 + name_len + 1);
    if (candidate == NULL) {
      result = PATH_SEARCH_NO_MEMORY;
      break;
    }
    memcpy(candidate, folder, folder_len);
    candidate[folder_len] = '/';
    memcpy(candidate + folder_len + 1, name, name_len + 1);

    int candidate_errno = 0;
    bool is_file = false;
    enum path_search_result verdict =
        check_candidate(candidate, &candidate_errno, &is_file);
    if (verdict == PATH_SEARCH_FOUND) {
      *path_out = candidate;
      *errno_out = 0;
      result = PATH_SEARCH_FOUND;
      break;
    }
    /* Shells skip PATH entries they cannot search and folders that happen to carry the
     * command's name (bash and dash both exit 127 then), but remember a file they may
     * not execute, to exit 126 if nothing better turns up. */
    if (verdict == PATH_SEARCH_NOT_EXECUTABLE && is_file && result == PATH_SEARCH_NOT_FOUND) {
      result = PATH_SEARCH_NOT_EXECUTABLE;
      *errno_out = candidate_errno;
    }
    free(candidate);
    if (more) {
      cursor = end + 1;
    }
  }
  if (result == PATH_SEARCH_NOT_FOUND) {
    *errno_out = ENOENT;
  }
  free(search);
  return result;
}
