/* check_backends: the backends built into this tracer, the interposer each preloads (and
 * whether the loader finds everything it needs), and which real library each would trace
 * on this node: the spec's library as the dynamic loader finds it with this environment
 * (LD_LIBRARY_PATH included), as the app's own dlopen() would; and the management library
 * of each backend tracer-sampler reads (--sample). */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends.h"
#include "check_backend_libraries.h"
#include "check_report.h"

/* dlopen() in a child process, so a library whose constructor misbehaves cannot harm the
 * check: the path it loaded from into path, or the loader's error into path. Returns 1
 * when found, 0 when not, -1 when the child died (path says how). */
static int locate_library(const char *soname, char *path, size_t size) {
  int fds[2];
  if (pipe(fds) != 0) {
    snprintf(path, size, "cannot look: %s", strerror(errno));
    return 0;
  }
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    char line[PATH_MAX + 2];
    void *handle = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
    struct link_map *map = NULL;
    if (handle && dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name[0])
      snprintf(line, sizeof line, "1%s", map->l_name);
    else
      snprintf(line, sizeof line, "0%s", handle ? "loaded, path unknown" : dlerror());
    ssize_t ignored = write(fds[1], line, strlen(line));
    (void)ignored;
    _exit(0);
  }
  close(fds[1]);
  char buf[PATH_MAX + 2] = "";
  size_t used = 0;
  ssize_t n;
  while (pid > 0 && used < sizeof buf - 1 &&
         (n = read(fds[0], buf + used, sizeof buf - 1 - used)) != 0) {
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      break;
    used += (size_t)n;
  }
  close(fds[0]);
  int status = 0;
  while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (pid < 0 || !WIFEXITED(status) || used == 0) {
    snprintf(path, size, "loading it %s",
             pid < 0                 ? "was not possible (fork failed)"
             : WIFSIGNALED(status) ? strsignal(WTERMSIG(status))
                                   : "failed");
    return -1;
  }
  snprintf(path, size, "%s", buf + 1);
  return buf[0] == '1';
}

static const char *spec_library(const char *backend) {
  for (size_t i = 0; check_backend_libraries[i].backend; i++)
    if (strcmp(check_backend_libraries[i].backend, backend) == 0)
      return check_backend_libraries[i].library;
  return NULL;
}

/* --sample: the management library of each sampled backend, as the sampler would load it. */
static void check_samplers(struct check_report *report) {
  for (size_t i = 0; check_sampled_libraries[i].backend; i++) {
    const char *name = check_sampled_libraries[i].backend;
    const char *soname = check_sampled_libraries[i].library;
    char topic[64], where[PATH_MAX + 64];
    snprintf(topic, sizeof topic, "sample %s", name);
    if (locate_library(soname, where, sizeof where) == 1)
      check_say(report, CHECK_OK, topic, "--sample loads %s = %s", soname, where);
    else
      check_say(report, CHECK_INFO, topic,
                "%s not found by the loader here (%s): --sample records no %s counters",
                soname, where, name);
  }
}

void check_backends(struct check_report *report, const struct check_request *request) {
  if (!tracer_backends[0]) {
    check_say(report, CHECK_FAIL, "backends", "none built into this tracer");
    return;
  }
  for (size_t i = 0; tracer_backends[i]; i++) {
    const char *name = tracer_backends[i]->name;
    char topic[64];
    snprintf(topic, sizeof topic, "backend %s", name);
    char *interposer = request->find_library(name);
    if (!interposer) {
      check_say(report, CHECK_FAIL, topic, "libtracer_%s.so is not beside the tracer", name);
      continue;
    }
    bool missing = false;
    free(check_dependency_path(interposer, "liblttng-ust.so.1", &missing));
    if (missing) {
      check_say(report, CHECK_FAIL, topic, "%s needs a library the loader does not find (ldd %s)",
                interposer, interposer);
      free(interposer);
      continue;
    }
    const char *soname = spec_library(name);
    char where[PATH_MAX + 64];
    if (!soname)
      check_say(report, CHECK_OK, topic, "interposer %s; the app names its library itself",
                interposer);
    else if (locate_library(soname, where, sizeof where) == 1)
      check_say(report, CHECK_OK, topic, "traces %s = %s (interposer %s)", soname, where,
                interposer);
    else
      check_say(report, CHECK_INFO, topic,
                "%s not found by the loader here (%s): only apps that bring their own are "
                "traced (interposer %s)",
                soname, where, interposer);
    free(interposer);
  }
  check_samplers(report);
}
