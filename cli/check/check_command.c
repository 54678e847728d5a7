/* check_command: runs a helper program (lttng-sessiond --version, ldd) and captures what
 * it prints, for the check's report. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_report.h"
#include "path_search.h"

extern char **environ;

char *check_command_output(const char *const argv[]) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return NULL;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &actions, NULL, (char *const *)argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return NULL;
  }
  size_t used = 0, size = 4096;
  char *text = malloc(size);
  ssize_t n = 0;
  while (text && (n = read(fds[0], text + used, size - used - 1)) != 0) {
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      break;
    used += (size_t)n;
    if (size - used < 512) {
      char *bigger = realloc(text, size * 2);
      if (!bigger) {
        free(text);
        text = NULL;
        break;
      }
      text = bigger;
      size *= 2;
    }
  }
  close(fds[0]);
  while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
    ;
  if (text)
    text[used] = '\0';
  return text;
}

/* The path ldd gives for soname among the dependencies of library ("NAME => PATH
 * (ADDRESS)"), malloc'd; NULL when absent. *missing is set when some dependency of the
 * library is "not found". */
char *check_dependency_path(const char *library, const char *soname, bool *missing) {
  *missing = false;
  char *ldd = NULL;
  int err;
  /* Where glibc installs it, when PATH does not say (a job's PATH may be bare). */
  if (path_search_executable("ldd", &ldd, &err) != PATH_SEARCH_FOUND &&
      path_search_executable("/usr/bin/ldd", &ldd, &err) != PATH_SEARCH_FOUND &&
      path_search_executable("/bin/ldd", &ldd, &err) != PATH_SEARCH_FOUND)
    return NULL;
  const char *argv[] = {ldd, library, NULL};
  char *text = check_command_output(argv);
  free(ldd);
  char *found = NULL;
  for (char *line = text, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    else
      next = line + strlen(line);
    if (strstr(line, "not found"))
      *missing = true;
    const char *arrow = strstr(line, " => ");
    while (*line == '\t' || *line == ' ')
      line++;
    if (!found && arrow && strncmp(line, soname, strlen(soname)) == 0 &&
        line + strlen(soname) == arrow) {
      const char *start = arrow + 4;
      size_t len = strcspn(start, " (");
      if (len > 0 && start[0] == '/')
        found = strndup(start, len);
    }
  }
  free(text);
  return found;
}

/* The first line of `PROGRAM --version`, malloc'd; NULL when it could not be run. */
char *check_version_line(const char *program) {
  const char *argv[] = {program, "--version", NULL};
  char *text = check_command_output(argv);
  if (!text)
    return NULL;
  char *line = text;
  while (*line == '\n')
    line++;
  line[strcspn(line, "\n")] = '\0';
  char *copy = *line ? strdup(line) : NULL;
  free(text);
  return copy;
}
