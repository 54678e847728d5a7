/* tracer_exec: the runtime's side of exec. The runtime defines the exec functions (and
 * posix_spawn) of the C library, to do two things before the real one:
 *
 * - write the calling thread's minimal-mode batches and counted entries, which the new
 *   image would otherwise lose (the process's other threads end with the exec: theirs
 *   are lost, docs/reliability.md);
 * - say, as a notice in the report, when the new program's environment leaves the tracer's
 *   libraries out of LD_PRELOAD (an app that re-execs itself with an LD_PRELOAD of its
 *   own): that program runs untraced, and without the notice nothing would say so.
 *
 * The execl family gathers its arguments and goes through execv, execvp and execve. */
#include <dlfcn.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tracer_notice.h"
#include "tracer_runtime.h"

extern char **environ;

/* The C library's own definition of name (dlvsym: the runtime's dlsym is interposed). */
static void *real(const char *name, const char *version) {
  void *fn = dlvsym(RTLD_NEXT, name, version);
  return fn ? fn : dlsym(RTLD_NEXT, name);
}

/* The runtime's own file name: what LD_PRELOAD holds while a process is traced. */
static const char *runtime_file(void) {
  static const char *name;
  if (!name) {
    Dl_info info;
    name = dladdr((const void *)runtime_file, &info) && info.dli_fname ? info.dli_fname : "";
    const char *base = strrchr(name, '/');
    name = base ? base + 1 : name;
  }
  return name;
}

static bool preloads_runtime(char *const envp[]) {
  const char *file = runtime_file();
  if (!*file)
    return true; /* cannot tell */
  for (size_t i = 0; envp && envp[i]; i++)
    if (strncmp(envp[i], "LD_PRELOAD=", 11) == 0)
      return strstr(envp[i] + 11, file) != NULL;
  return false;
}

static void before_exec(const char *program, char *const envp[]) {
  struct tracer_thread_calls *t = tracer_thread_calls;
  if (t) {
    tracer_counted_write_all(t);
    tracer_batch_write_all(t);
  }
  if (!preloads_runtime(envp))
    tracer_notice("tracer",
                  "process %ld ran %s with an LD_PRELOAD of its own that leaves the tracer's "
                  "libraries out: that program was not traced",
                  (long)tracer_pid(), program ? program : "a program");
}

typedef int execve_fn(const char *, char *const[], char *const[]);
typedef int execv_fn(const char *, char *const[]);
typedef int fexecve_fn(int, char *const[], char *const[]);
typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *,
                     const posix_spawnattr_t *, char *const[], char *const[]);

int execve(const char *path, char *const argv[], char *const envp[]) {
  before_exec(path, envp);
  return ((execve_fn *)real("execve", "GLIBC_2.2.5"))(path, argv, envp);
}

int execv(const char *path, char *const argv[]) {
  before_exec(path, environ);
  return ((execv_fn *)real("execv", "GLIBC_2.2.5"))(path, argv);
}

int execvp(const char *file, char *const argv[]) {
  before_exec(file, environ);
  return ((execv_fn *)real("execvp", "GLIBC_2.2.5"))(file, argv);
}

int execvpe(const char *file, char *const argv[], char *const envp[]) {
  before_exec(file, envp);
  return ((execve_fn *)real("execvpe", "GLIBC_2.11"))(file, argv, envp);
}

int fexecve(int fd, char *const argv[], char *const envp[]) {
  before_exec(NULL, envp);
  return ((fexecve_fn *)real("fexecve", "GLIBC_2.2.5"))(fd, argv, envp);
}

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  if (!preloads_runtime(envp))
    before_exec(path, envp);
  return ((spawn_fn *)real("posix_spawn", "GLIBC_2.15"))(pid, path, actions, attr, argv, envp);
}

int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                 const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  if (!preloads_runtime(envp))
    before_exec(file, envp);
  return ((spawn_fn *)real("posix_spawnp", "GLIBC_2.15"))(pid, file, actions, attr, argv, envp);
}

/* How many arguments an execl-style list holds, arg included, up to its NULL. */
static size_t count_args(const char *arg, va_list ap) {
  size_t n = 1;
  while (arg && va_arg(ap, const char *))
    n++;
  return arg ? n : 0;
}

/* argv[0..n] from an execl-style list of n arguments (counted by count_args), then NULL. */
static void fill_args(char **argv, size_t n, const char *arg, va_list *ap) {
  argv[0] = (char *)arg;
  for (size_t i = 1; i <= n; i++)
    argv[i] = i < n ? va_arg(*ap, char *) : NULL;
}

int execl(const char *path, const char *arg, ...) {
  va_list ap;
  va_start(ap, arg);
  size_t n = count_args(arg, ap);
  va_end(ap);
  char *argv[n + 1];
  va_start(ap, arg);
  fill_args(argv, n, arg, &ap);
  va_end(ap);
  return execv(path, argv);
}

int execlp(const char *file, const char *arg, ...) {
  va_list ap;
  va_start(ap, arg);
  size_t n = count_args(arg, ap);
  va_end(ap);
  char *argv[n + 1];
  va_start(ap, arg);
  fill_args(argv, n, arg, &ap);
  va_end(ap);
  return execvp(file, argv);
}

int execle(const char *path, const char *arg, ...) {
  va_list ap;
  va_start(ap, arg);
  size_t n = count_args(arg, ap);
  va_end(ap);
  char *argv[n + 1];
  va_start(ap, arg);
  fill_args(argv, n, arg, &ap);
  if (n > 0)
    (void)va_arg(ap, char *); /* the NULL that ends the list (arg when it is empty) */
  char *const *envp = va_arg(ap, char *const *);
  va_end(ap);
  return execve(path, argv, envp);
}
