/* daemon_end: see daemon_end.h. */
#include "daemon_end.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define POLL_INTERVAL_MS 1

static long long now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Whether /proc/PID/stat says a live process (not a zombie) of process group pgid. */
static bool live_member(const char *pid, pid_t pgid)
{
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%s/stat", pid);
  FILE *file = fopen(path, "re");
  if (file == NULL) {
    return false;
  }
  bool member = false;
  if (fgets(line, sizeof line, file) != NULL) {
    /* "PID (COMM) STATE PPID PGRP ...": COMM may hold spaces and parentheses. */
    const char *after_name = strrchr(line, ')');
    char state = 0;
    long ppid = 0, group = 0;
    if (after_name != NULL && sscanf(after_name + 1, " %c %ld %ld", &state, &ppid, &group) == 3) {
      member = group == (long)pgid && state != 'Z' && state != 'X';
    }
  }
  fclose(file);
  return member;
}

static bool group_left(pid_t pgid)
{
  DIR *proc = opendir("/proc");
  if (proc == NULL) {
    return true; /* cannot tell: the signal went out */
  }
  bool left = false;
  for (struct dirent *entry; !left && (entry = readdir(proc)) != NULL;) {
    if (isdigit((unsigned char)entry->d_name[0])) {
      left = live_member(entry->d_name, pgid);
    }
  }
  closedir(proc);
  return left;
}

bool daemon_end_group(pid_t daemon_pid, int timeout_ms)
{
  if (daemon_pid <= 1 || getpgid(daemon_pid) != daemon_pid || kill(-daemon_pid, SIGKILL) != 0) {
    return false;
  }
  long long deadline = now_ms() + timeout_ms;
  while (group_left(daemon_pid)) {
    if (now_ms() >= deadline) {
      return false;
    }
    struct timespec pause = {.tv_sec = 0, .tv_nsec = POLL_INTERVAL_MS * 1000000L};
    nanosleep(&pause, NULL);
  }
  return true;
}
