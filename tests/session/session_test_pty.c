/* session_test_pty: runs a command as the foreground job of a fresh pseudo-terminal and
 * types Ctrl-C into it, so the kernel sends SIGINT to the whole foreground process group
 * (si_code SI_KERNEL), as it does for a user at a terminal.
 *
 *   session_test_pty READY_FILE -- COMMAND [ARG]...
 *
 * Once READY_FILE exists (the traced app is counting signals), it types Ctrl-C, waits,
 * then sends SIGTERM to the command (the tracer), which forwards it so the app writes its
 * counts and exits. Exits with the command's exit code; everything the command writes
 * to the terminal is copied to stdout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* Copies whatever the terminal has for us for up to ms milliseconds: the command must
 * never block on a full terminal. */
static void drain(int master, int ms)
{
  struct pollfd poller = {.fd = master, .events = POLLIN};
  char buffer[4096];
  while (poll(&poller, 1, ms) > 0) {
    ssize_t got = read(master, buffer, sizeof buffer);
    if (got <= 0) {
      break;
    }
    fwrite(buffer, 1, (size_t)got, stdout);
    ms = 0;
  }
  fflush(stdout);
}

int main(int argc, char **argv)
{
  if (argc < 4 || strcmp(argv[2], "--") != 0) {
    fprintf(stderr, "usage: session_test_pty READY_FILE -- COMMAND [ARG]...\n");
    return 64;
  }
  const char *ready = argv[1];
  int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
    perror("session_test_pty: posix_openpt");
    return 70;
  }
  const char *slave_name = ptsname(master);
  if (slave_name == NULL) {
    perror("session_test_pty: ptsname");
    return 70;
  }

  pid_t child = fork();
  if (child < 0) {
    perror("session_test_pty: fork");
    return 70;
  }
  if (child == 0) {
    /* A new session whose controlling terminal is the pty: the command is its
     * foreground process group, as a job started from an interactive shell. */
    setsid();
    int slave = open(slave_name, O_RDWR);
    if (slave < 0 || ioctl(slave, TIOCSCTTY, 0) != 0) {
      _exit(71);
    }
    dup2(slave, STDIN_FILENO);
    dup2(slave, STDOUT_FILENO);
    dup2(slave, STDERR_FILENO);
    if (slave > STDERR_FILENO) {
      close(slave);
    }
    execvp(argv[3], &argv[3]);
    _exit(127);
  }

  struct stat st;
  int waited_ms = 0;
  while (stat(ready, &st) != 0 && waited_ms < 20000) {
    drain(master, 10);
    waited_ms += 10;
  }
  if (waited_ms >= 20000) {
    fprintf(stderr, "session_test_pty: %s never appeared\n", ready);
    kill(child, SIGKILL);
  } else {
    char interrupt = 3; /* Ctrl-C: VINTR of a fresh terminal, with ISIG on */
    if (write(master, &interrupt, 1) != 1) {
      perror("session_test_pty: write");
    }
    drain(master, 300);
    kill(child, SIGTERM);
  }

  int status = 0;
  while (waitpid(child, &status, WNOHANG) == 0) {
    drain(master, 10);
  }
  drain(master, 0);
  if (WIFEXITED(status)) {
    return WEXITSTATUS(status);
  }
  return 128 + WTERMSIG(status);
}
