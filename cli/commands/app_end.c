/* app_end: the end of the app. The tracer waits for the processes the app started that
 * outlive its main process (--wait, cli/control/descendants.h), then ends as the app did
 * (commands.h), so that whatever waits for the tracer sees what it would have seen of the
 * app: a shell's "Segmentation fault" and 139, Python's returncode -11, an MPI launcher's
 * "exited on signal 11", which makes it end the job at once. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "descendants.h"
#include "log.h"

/* "pid 123 (worker), pid 456 (helper)": the processes named by their command. */
static void name_processes(const pid_t *pids, size_t shown, size_t running, char *out,
                           size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (size_t i = 0; i < shown && used < size; i++) {
    char path[64], comm[64] = "?";
    snprintf(path, sizeof path, "/proc/%ld/comm", (long)pids[i]);
    FILE *f = fopen(path, "re");
    if (f) {
      if (fgets(comm, sizeof comm, f))
        comm[strcspn(comm, "\n")] = '\0';
      fclose(f);
    }
    used += (size_t)snprintf(out + used, size - used, "%spid %ld (%s)", i ? ", " : "",
                             (long)pids[i], comm);
  }
  if (running > shown && used < size)
    snprintf(out + used, size - used, ", ...");
}

static void say_waiting(void *context, size_t running, const pid_t *pids, size_t shown) {
  (void)context;
  char names[512];
  name_processes(pids, shown, running, names, sizeof names);
  log_info("the app's main process ended; waiting for %zu more process%s of the app (%s): "
           "Ctrl-C stops waiting, --wait primary does not wait",
           running, running == 1 ? "" : "es", names);
}

long command_wait_app_processes(const struct tracer_options *o, pid_t except, bool job_ending) {
  pid_t shown[8];
  if (o->wait == WAIT_ALL && !job_ending) {
    int sig = 0;
    if (descendants_wait(except, 1000, say_waiting, NULL, &sig) == DESCENDANTS_NONE_LEFT)
      return 0;
    size_t running = descendants_running(except, shown, 8);
    char names[512];
    name_processes(shown, running < 8 ? running : 8, running, names, sizeof names);
    log_warn("stopped waiting for the app's processes (signal %d, %s): %zu still running%s%s; "
             "their calls from now on are not recorded",
             sig, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", running, running ? ": " : "", names);
    return (long)running;
  }
  size_t running = descendants_running(except, shown, 8);
  if (running) {
    char names[512];
    name_processes(shown, running < 8 ? running : 8, running, names, sizeof names);
    log_info("the app's main process ended with %zu process%s of the app still running (%s)%s: "
             "their calls from now on are not recorded",
             running, running == 1 ? "" : "es", names,
             job_ending ? ", as the job ends" : ", --wait primary");
  }
  return (long)running;
}

void command_end_as_app(int app_status, int exit_code) {
  fflush(NULL);
  if (app_status != -1 && WIFSIGNALED(app_status) && exit_code == 128 + WTERMSIG(app_status)) {
    int sig = WTERMSIG(app_status);
    /* A core file would be the tracer's, not the app's (which left its own, if any). */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    sigprocmask(SIG_UNBLOCK, &only, NULL);
    raise(sig);
  }
  exit(exit_code);
}
