/* launch_status: what a wait status means, in a shell's exit code and in words. */
#include "launch.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

int launch_exit_code(int wait_status)
{
  if (WIFEXITED(wait_status)) {
    return WEXITSTATUS(wait_status);
  }
  if (WIFSIGNALED(wait_status)) {
    return 128 + WTERMSIG(wait_status);
  }
  /* launch_wait() only returns ended processes; a stopped one reads like a shell's
   * report of a stopped job. */
  if (WIFSTOPPED(wait_status)) {
    return 128 + WSTOPSIG(wait_status);
  }
  return 1;
}

static void signal_label(int signal_number, char *label, size_t size)
{
  const char *abbrev = sigabbrev_np(signal_number);
  if (abbrev != NULL) {
    snprintf(label, size, "SIG%s", abbrev);
  } else if (signal_number >= SIGRTMIN && signal_number <= SIGRTMAX) {
    snprintf(label, size, "SIGRTMIN+%d", signal_number - SIGRTMIN);
  } else {
    snprintf(label, size, "unknown");
  }
}

const char *launch_describe_status(int wait_status, char *buffer, size_t size)
{
  char label[32];
  if (WIFEXITED(wait_status)) {
    snprintf(buffer, size, "exited with status %d", WEXITSTATUS(wait_status));
  } else if (WIFSIGNALED(wait_status)) {
    signal_label(WTERMSIG(wait_status), label, sizeof label);
    snprintf(buffer, size, "killed by signal %d (%s)%s", WTERMSIG(wait_status), label,
             WCOREDUMP(wait_status) ? ", core dumped" : "");
  } else if (WIFSTOPPED(wait_status)) {
    signal_label(WSTOPSIG(wait_status), label, sizeof label);
    snprintf(buffer, size, "stopped by signal %d (%s)", WSTOPSIG(wait_status), label);
  } else {
    snprintf(buffer, size, "ended with unknown wait status 0x%x", (unsigned)wait_status);
  }
  return buffer;
}

int launch_status_exit_code(enum launch_status status)
{
  switch (status) {
  case LAUNCH_OK:
    return 0;
  case LAUNCH_ERR_NOT_FOUND:
    return 127;
  case LAUNCH_ERR_NOT_EXECUTABLE:
    return 126;
  case LAUNCH_ERR_USAGE:
  case LAUNCH_ERR_SYSTEM:
    break;
  }
  return 1;
}
