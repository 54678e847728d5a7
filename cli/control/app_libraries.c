/* app_libraries: see app_libraries.h. */
#include "app_libraries.h"

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elf_needed.h"
#include "path_search.h"

extern char **environ;

char *app_libraries(const char *app) {
  char *path = NULL;
  int err = 0;
  if (path_search_executable(app, &path, &err) != PATH_SEARCH_FOUND)
    return NULL;
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    free(path);
    return NULL;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", 0, 0);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  char *argv[] = {"ldd", path, NULL};
  pid_t pid;
  int rc = posix_spawnp(&pid, "ldd", &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  FILE *in = rc == 0 ? fdopen(pipe_fds[0], "r") : NULL;
  if (!in)
    close(pipe_fds[0]);
  size_t cap = 256, len = 0;
  char *list = malloc(cap);
  char line[4096];
  /* Lines look like "\tlibmpich.so.12 => /lib/.../libmpich.so.12 (0x...)". */
  while (in && list && fgets(line, sizeof line, in)) {
    char *name = line + strspn(line, " \t");
    size_t n = strcspn(name, " \t\n");
    if (n == 0 || !strstr(name, "=>"))
      continue;
    if (len + n + 2 > cap) {
      char *grown = realloc(list, cap = 2 * (len + n + 2));
      if (!grown) {
        free(list);
        list = NULL;
        break;
      }
      list = grown;
    }
    memcpy(list + len, name, n);
    len += n;
    list[len++] = '\n';
  }
  if (in)
    fclose(in);
  int status = 0;
  if (rc == 0)
    waitpid(pid, &status, 0);
  free(path);
  if (!list || rc != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    free(list);
    return NULL;
  }
  list[len] = '\0';
  return list;
}

bool app_libraries_has(const char *list, const char *soname) {
  size_t n = strlen(soname);
  for (const char *p = list; p && *p;) {
    const char *end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && strncmp(p, soname, n) == 0)
      return true;
    p = end ? end + 1 : p + len;
  }
  return false;
}

char *app_libraries_for(const char *app, const char *const *wanted) {
  char *path = NULL;
  int err = 0;
  char *direct = NULL;
  if (path_search_executable(app, &path, &err) == PATH_SEARCH_FOUND)
    direct = elf_needed(path);
  free(path);
  bool settled = direct && elf_needed_runtime_only(direct);
  for (size_t i = 0; direct && !settled && wanted && wanted[i]; i++)
    settled = app_libraries_has(direct, wanted[i]);
  if (settled)
    return direct;
  free(direct);
  return app_libraries(app);
}
