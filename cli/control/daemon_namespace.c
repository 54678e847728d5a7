/* daemon_namespace: see daemon_namespace.h. */
#include "daemon_namespace.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* lttng-sessiond's socket for its clients (liblttng-ctl), in its run folder. */
#define CLIENT_SOCKET "/client-lttng-sessiond"

/* The pid of the process listening on the socket at path, as this pid namespace numbers
 * it: 0 when it cannot see it (another pid namespace), -1 when nothing answers. */
static pid_t listener_pid(const char *path) {
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof address.sun_path)
    return -1;
  memcpy(address.sun_path, path, strlen(path) + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  pid_t pid = -1;
  struct ucred peer;
  socklen_t length = sizeof peer;
  /* The daemon reads a command from each client; one that sends none and leaves is
   * forgotten (liblttng-ctl's own checks connect the same way). */
  if (connect(fd, (const struct sockaddr *)&address, sizeof address) == 0 &&
      getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) == 0)
    pid = peer.pid;
  close(fd);
  return pid;
}

/* The mount namespace of pid ("self" when pid is 0), as the inode of /proc/PID/ns/mnt;
 * 0 when unreadable. */
static ino_t mount_namespace(pid_t pid) {
  char path[64];
  if (pid)
    snprintf(path, sizeof path, "/proc/%ld/ns/mnt", (long)pid);
  else
    snprintf(path, sizeof path, "/proc/self/ns/mnt");
  struct stat st;
  return stat(path, &st) == 0 ? st.st_ino : 0;
}

bool daemon_namespace_elsewhere(const char *run_dir, char *text, size_t size) {
  char socket_path[4096];
  snprintf(socket_path, sizeof socket_path, "%s" CLIENT_SOCKET, run_dir);
  pid_t pid = listener_pid(socket_path);
  if (pid < 0)
    return false;
  if (pid == 0) {
    snprintf(text, size,
             "the session daemon that answers on %s runs in a pid namespace the tracer cannot "
             "see (a container's): the trace it writes would be in its files, not here",
             socket_path);
    return true;
  }
  ino_t theirs = mount_namespace(pid), ours = mount_namespace(0);
  if (!theirs || !ours || theirs == ours)
    return false;
  snprintf(text, size,
           "the session daemon (lttng-sessiond, pid %ld) runs in another mount namespace (a "
           "container, a private /tmp: /proc/%ld/ns/mnt is not the tracer's): the trace it "
           "writes would be in its files, not here",
           (long)pid, (long)pid);
  return true;
}
