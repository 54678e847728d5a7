/* sigpipe_guard: SIGPIPE ignored in the tracer, restored in its apps. */
#include "sigpipe_guard.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>

static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static struct sigaction original_action;
static volatile bool installed;

static void install(void)
{
  struct sigaction ignore;
  memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  if (sigaction(SIGPIPE, &ignore, &original_action) == 0) {
    installed = true;
  }
}

void sigpipe_guard_install(void)
{
  pthread_once(&install_once, install);
}

void sigpipe_guard_restore_in_child(void)
{
  if (installed) {
    /* A handler of the tracer's own would be reset by exec anyway: default then. */
    struct sigaction action;
    memset(&action, 0, sizeof action);
    bool was_ignored = !(original_action.sa_flags & SA_SIGINFO) &&
                       original_action.sa_handler == SIG_IGN;
    action.sa_handler = was_ignored ? SIG_IGN : SIG_DFL;
    sigemptyset(&action.sa_mask);
    sigaction(SIGPIPE, &action, NULL);
  }
}
