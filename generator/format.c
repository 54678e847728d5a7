/* format: see format.h. */
#include "format.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

extern char **environ;

/* One clang-format run: its input, output and errors in anonymous files (no pipes, so a
 * large file can neither block it nor us), and the process. */
struct run {
  int in, out, err;
  pid_t pid;
};

static bool is_c_source(const char *name) {
  size_t n = strlen(name);
  return n > 2 && name[n - 2] == '.' && (name[n - 1] == 'c' || name[n - 1] == 'h');
}

static int anonymous_file(const char *name) { return memfd_create(name, MFD_CLOEXEC); }

static int write_all(int fd, const char *data, size_t len) {
  while (len) {
    ssize_t n = write(fd, data, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    data += n;
    len -= (size_t)n;
  }
  return lseek(fd, 0, SEEK_SET) == 0 ? 0 : -1;
}

/* The whole of an anonymous file, from its start. NULL when it cannot be read. */
static char *read_all(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0 || lseek(fd, 0, SEEK_SET) != 0)
    return NULL;
  char *text = xmalloc((size_t)st.st_size + 1);
  size_t got = 0;
  while (got < (size_t)st.st_size) {
    ssize_t n = read(fd, text + got, (size_t)st.st_size - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      free(text);
      return NULL;
    }
    got += (size_t)n;
  }
  text[got] = '\0';
  return text;
}

static void run_close(struct run *r) {
  if (r->in >= 0)
    close(r->in);
  if (r->out >= 0)
    close(r->out);
  if (r->err >= 0)
    close(r->err);
  r->in = r->out = r->err = -1;
}

/* Starts clang-format on one file's text. Returns 0, or the errno of the failure. */
static int run_start(struct run *r, const char *program, const char *style_arg,
                     const struct format_file *f) {
  r->in = anonymous_file("apigen-in");
  r->out = anonymous_file("apigen-out");
  r->err = anonymous_file("apigen-err");
  if (r->in < 0 || r->out < 0 || r->err < 0 || write_all(r->in, f->text, strlen(f->text)))
    return errno ? errno : EIO;
  char *assume = xasprintf("--assume-filename=%s", f->name);
  char *argv[] = {(char *)program, (char *)style_arg, assume, NULL};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, r->in, 0);
  posix_spawn_file_actions_adddup2(&actions, r->out, 1);
  posix_spawn_file_actions_adddup2(&actions, r->err, 2);
  int rc = posix_spawnp(&r->pid, program, &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  free(assume);
  return rc;
}

/* Waits for one run; its formatted text (owned), or NULL with the cause in d. */
static char *run_finish(struct run *r, const char *program, const struct format_file *f,
                        struct diag *d) {
  int status = 0;
  while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
    ;
  char *text = NULL;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && (text = read_all(r->out)) && *text)
    return text;
  free(text);
  char *errors = read_all(r->err);
  if (errors)
    str_trim(errors);
  if (WIFSIGNALED(status))
    diag_error(d, "Cannot format generated code: file=%s: %s was killed by signal %d", f->name,
               program, WTERMSIG(status));
  else
    diag_error(d, "Cannot format generated code: file=%s: %s exited with status %d%s%s", f->name,
               program, WIFEXITED(status) ? WEXITSTATUS(status) : -1, errors && *errors ? ": " : "",
               errors ? errors : "");
  free(errors);
  return NULL;
}

char *format_style_of(const char *template_dir) {
  return xasprintf("%s/../.clang-format", template_dir);
}

int format_files(struct format_file *files, size_t count, const char *style_path, struct diag *d) {
  const char *program = getenv("CLANG_FORMAT");
  if (!program || !*program)
    program = "clang-format";
  if (access(style_path, R_OK) != 0)
    return diag_error(d, "Cannot format generated code: no style file: path=%s: %s", style_path,
                      strerror(errno));
  char *style_arg = xasprintf("--style=file:%s", style_path);
  struct run *runs = xcalloc(count, sizeof *runs);
  char **formatted = xcalloc(count, sizeof *formatted);
  int rc = 0;
  for (size_t i = 0; i < count; i++) {
    runs[i] = (struct run){-1, -1, -1, -1};
    if (!is_c_source(files[i].name) || !files[i].text[strspn(files[i].text, " \t\n")] || rc)
      continue; /* not C, or nothing to format */
    int e = run_start(&runs[i], program, style_arg, &files[i]);
    if (e == ENOENT)
      rc = diag_error(d,
                      "Cannot format generated code: %s not found (install the "
                      "clang-format package, as scripts/setup.sh does, or name the program "
                      "in CLANG_FORMAT)",
                      program);
    else if (e)
      rc = diag_error(d, "Cannot format generated code: cannot run %s: %s", program, strerror(e));
    if (e)
      runs[i].pid = -1;
  }
  for (size_t i = 0; i < count; i++) {
    if (runs[i].pid > 0 && !(formatted[i] = run_finish(&runs[i], program, &files[i], d)))
      rc = -1;
    run_close(&runs[i]);
  }
  for (size_t i = 0; i < count; i++) {
    if (formatted[i] && rc == 0) {
      free(files[i].text);
      files[i].text = formatted[i];
    } else {
      free(formatted[i]);
    }
  }
  free(formatted);
  free(runs);
  free(style_arg);
  return rc;
}
