/* session_test_driver: a minimal tracer built on session and launch, for the tests.
 *
 *   session_test_driver -o DIR [-e PATTERN]... [-p LIBRARY]... [--blocking]
 *                       [--subbuf-size BYTES] [--subbuf-count N] [--scope auto|app|all]
 *                       [--daemon-timeout MS] [--info FILE] -- COMMAND [ARG]...
 *
 * It does what the tracer command will do: begin the session, start the app held before
 * exec, track it, release it, wait, end the session. Its own messages go to stderr only
 * on failure, so a successful run's stdout and stderr are the app's alone; what the test
 * checks (session name, daemon, loss counts, exit description) goes to --info FILE.
 * It exits like a shell: the app's exit code, 128+signal, 127/126 when the app cannot
 * run; 70 when the session fails.
 */
#include "launch.h"
#include "session.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_SESSION_FAILED 70
#define EXIT_USAGE 64
#define MAX_LIST 16

static int usage(void)
{
  fprintf(stderr, "usage: session_test_driver -o DIR [-e PATTERN]... [-p LIBRARY]... "
                  "[--blocking] [--subbuf-size BYTES] [--subbuf-count N] "
                  "[--scope auto|app|all] [--daemon-timeout MS] [--info FILE] -- COMMAND "
                  "[ARG]...\n");
  return EXIT_USAGE;
}

int main(int argc, char **argv)
{
  const char *patterns[MAX_LIST + 1] = {0}, *preloads[MAX_LIST + 1] = {0};
  size_t pattern_count = 0, preload_count = 0;
  struct session_options options = {0};
  const char *info_path = NULL;
  int i = 1;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
    const char *arg = argv[i];
    const char *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(arg, "--blocking") == 0) {
      options.blocking = true;
      continue;
    }
    if (value == NULL) {
      return usage();
    }
    i++;
    if (strcmp(arg, "-o") == 0) {
      options.output_dir = value;
    } else if (strcmp(arg, "-e") == 0 && pattern_count < MAX_LIST) {
      patterns[pattern_count++] = value;
    } else if (strcmp(arg, "-p") == 0 && preload_count < MAX_LIST) {
      preloads[preload_count++] = value;
    } else if (strcmp(arg, "--subbuf-size") == 0) {
      options.subbuf_size = strtoull(value, NULL, 0);
    } else if (strcmp(arg, "--subbuf-count") == 0) {
      options.subbuf_count = strtoull(value, NULL, 0);
    } else if (strcmp(arg, "--scope") == 0) {
      options.scope = strcmp(value, "app") == 0   ? SESSION_SCOPE_APP_PROCESSES
                      : strcmp(value, "all") == 0 ? SESSION_SCOPE_ALL_PROCESSES
                                                  : SESSION_SCOPE_AUTO;
    } else if (strcmp(arg, "--daemon-timeout") == 0) {
      options.daemon_timeout_ms = atoi(value);
    } else if (strcmp(arg, "--info") == 0) {
      info_path = value;
    } else {
      return usage();
    }
  }
  if (i + 1 >= argc) {
    return usage();
  }
  if (pattern_count == 0) {
    patterns[pattern_count++] = "session_test:*";
  }
  options.event_patterns = patterns;

  struct session *session = NULL;
  struct session_error session_error;
  if (session_begin(&options, &session, &session_error) != SESSION_OK) {
    fprintf(stderr, "session_test_driver: %s\n", session_error.message);
    return EXIT_SESSION_FAILED;
  }
  /* What the checks need after the end, when the daemon and its home are gone. */
  char name[256], home[4096];
  snprintf(name, sizeof name, "%s", session_name(session));
  snprintf(home, sizeof home, "%s",
           session_lttng_home(session) != NULL ? session_lttng_home(session) : "");
  bool started_daemon = session_started_daemon(session);
  bool tracked_only = session_records_tracked_only(session);

  struct launch_request request = {
      .argv = (const char *const *)&argv[i + 1],
      .preload_libraries = preloads,
      .extra_environment = session_app_environment(session),
  };
  struct launch_process *process = NULL;
  struct launch_error launch_error;
  int exit_code = 0, wait_status = 0;
  char description[128] = "not run";
  enum launch_status launched = launch_start(&request, &process, &launch_error);
  if (launched == LAUNCH_OK) {
    if (session_track_process(session, launch_pid(process), &session_error) != SESSION_OK) {
      fprintf(stderr, "session_test_driver: %s\n", session_error.message);
      launch_free(process);
      session_free(session);
      return EXIT_SESSION_FAILED;
    }
    launched = launch_release(process, &launch_error);
  }
  if (launched == LAUNCH_OK) {
    launched = launch_wait(process, &wait_status, &launch_error);
  }
  if (launched == LAUNCH_OK) {
    exit_code = launch_exit_code(wait_status);
    launch_describe_status(wait_status, description, sizeof description);
  } else {
    fprintf(stderr, "session_test_driver: %s\n", launch_error.message);
    exit_code = launch_status_exit_code(launched);
  }

  struct session_end_report report, again;
  enum session_status ended = session_end(session, &report, &session_error);
  if (ended != SESSION_OK) {
    fprintf(stderr, "session_test_driver: %s\n", session_error.message);
    exit_code = EXIT_SESSION_FAILED;
  }
  /* Ending twice must be harmless and report the same. */
  if (session_end(session, &again, &session_error) != SESSION_OK ||
      memcmp(&report, &again, sizeof report) != 0) {
    fprintf(stderr, "session_test_driver: a second session_end differs from the first\n");
    exit_code = EXIT_SESSION_FAILED;
  }

  if (info_path != NULL) {
    FILE *info = fopen(info_path, "w");
    if (info == NULL) {
      perror("session_test_driver: info");
      exit_code = EXIT_SESSION_FAILED;
    } else {
      fprintf(info, "session=%s\n", name);
      fprintf(info, "lttng_home=%s\n", home);
      fprintf(info, "daemon_started=%d\n", started_daemon);
      fprintf(info, "tracked_only=%d\n", tracked_only);
      fprintf(info, "counts_valid=%d\n", report.counts_valid);
      fprintf(info, "discarded=%" PRIu64 "\n", report.discarded_events);
      fprintf(info, "lost_packets=%" PRIu64 "\n", report.lost_packets);
      fprintf(info, "daemon_stopped=%d\n", report.daemon_stopped);
      fprintf(info, "daemon_left_running=%d\n", report.daemon_left_running);
      fprintf(info, "app=%s\n", description);
      fprintf(info, "preload=%s\n", process != NULL ? launch_preload_value(process) : "");
      fprintf(info, "exit_code=%d\n", exit_code);
      fclose(info);
    }
  }
  launch_free(process);
  session_free(session);
  return exit_code;
}
