/* fork_listener: see fork_listener.h. */
#include "fork_listener.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct fork_listener {
  struct session *session;
  int listen_fd;
  int stop_pipe[2];
  pthread_t thread;
  char dir[64];
  char path[96]; /* fits sockaddr_un.sun_path (108) */
  char env[160];
  unsigned added;
};

static void serve(struct fork_listener *l, int fd) {
  /* The child sends its pid as text and waits for one byte: after it, LTTng-UST may
   * register the child, which the tracker now lets through. */
  char buf[32];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  if (n > 0) {
    buf[n] = '\0';
    long pid = strtol(buf, NULL, 10);
    struct session_error error;
    if (pid > 0 && session_track_process(l->session, (pid_t)pid, &error) == SESSION_OK)
      l->added++;
  }
  char ack = 'k';
  ssize_t ignored = write(fd, &ack, 1);
  (void)ignored;
}

static void *listen_main(void *arg) {
  struct fork_listener *l = arg;
  struct pollfd fds[2] = {{l->listen_fd, POLLIN, 0}, {l->stop_pipe[0], POLLIN, 0}};
  for (;;) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    if (fds[1].revents)
      break;
    if (fds[0].revents & POLLIN) {
      int fd = accept4(l->listen_fd, NULL, NULL, SOCK_CLOEXEC);
      if (fd >= 0) {
        serve(l, fd);
        close(fd);
      }
    }
  }
  return NULL;
}

struct fork_listener *fork_listener_start(struct session *session, const char **env_entry) {
  struct fork_listener *l = calloc(1, sizeof *l);
  if (!l)
    return NULL;
  l->session = session;
  l->listen_fd = -1;
  l->stop_pipe[0] = l->stop_pipe[1] = -1;
  const char *tmp = getenv("TMPDIR");
  snprintf(l->dir, sizeof l->dir, "%s/tracer-XXXXXX",
           tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp");
  /* mkdtemp makes a 0700 folder no other user can enter, so the socket in it cannot be
   * taken over or reached by anyone else. */
  if (!mkdtemp(l->dir)) {
    free(l);
    return NULL;
  }
  snprintf(l->path, sizeof l->path, "%s/fork.sock", l->dir);
  snprintf(l->env, sizeof l->env, "TRACER_FORK_SOCKET=%s", l->path);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  memcpy(addr.sun_path, l->path, sizeof addr.sun_path - 1); /* l->path is shorter */
  l->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (l->listen_fd < 0 || bind(l->listen_fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
      listen(l->listen_fd, 64) != 0 || pipe2(l->stop_pipe, O_CLOEXEC) != 0 ||
      pthread_create(&l->thread, NULL, listen_main, l) != 0) {
    int e = errno;
    if (l->listen_fd >= 0)
      close(l->listen_fd);
    unlink(l->path);
    rmdir(l->dir);
    free(l);
    errno = e;
    return NULL;
  }
  *env_entry = l->env;
  return l;
}

unsigned fork_listener_stop(struct fork_listener *l) {
  if (!l)
    return 0;
  char stop = 's';
  ssize_t ignored = write(l->stop_pipe[1], &stop, 1);
  (void)ignored;
  pthread_join(l->thread, NULL);
  close(l->listen_fd);
  close(l->stop_pipe[0]);
  close(l->stop_pipe[1]);
  unlink(l->path);
  rmdir(l->dir);
  unsigned added = l->added;
  free(l);
  return added;
}
