/* lttng_floor: what LTTng itself needs for one traced run of an app, each step timed, for
 * bench/fixed_cost.sh. It does what `lttng create`, `enable-channel`, `enable-event`,
 * `start`, `stop` and `destroy` do, through the same liblttng-ctl calls and with LTTng's
 * own waits (lttng_stop_tracing() polls for pending data every 200 ms,
 * lttng_destroy_session() waits for the destruction to complete), with the channels and
 * event patterns a tracer run uses, and runs the app in between with the environment a
 * tracer run gives it. As a tracer run on a shared daemon does, the session records only
 * the app's process (LTTng's vpid tracker, the app added before it runs).
 *
 * usage: lttng_floor [--no-wait-destroy] [--env NAME=VALUE]... OUTPUT SUBBUF_SIZE
 *                    SUBBUF_COUNT PATTERN... -- APP [ARGS...]
 * PATTERN is "NAME" or "NAME!EXCLUDED,EXCLUDED" as `tracer -v` prints them. Prints one
 * line: "floor (ms): create=... channels=... events=... start=... app=... stop=...
 * destroy=..." and exits 0, or 1 with a message when a step fails. */
#include <lttng/lttng.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ENV 32
#define MAX_EXCLUSIONS 8

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void die(const char *step, int rc) {
  fprintf(stderr, "lttng_floor: %s: %s\n", step, lttng_strerror(rc < 0 ? rc : -rc));
  exit(1);
}

static int enable_channel(struct lttng_handle *handle, struct lttng_domain *domain,
                          const char *name, uint64_t size, uint64_t count, unsigned timer) {
  struct lttng_channel *channel = lttng_channel_create(domain);
  snprintf(channel->name, sizeof channel->name, "%s", name);
  channel->attr.overwrite = 0;
  channel->attr.subbuf_size = size;
  channel->attr.num_subbuf = count;
  channel->attr.switch_timer_interval = timer;
  channel->attr.output = LTTNG_EVENT_MMAP;
  int rc = lttng_enable_channel(handle, channel);
  lttng_channel_destroy(channel);
  return rc;
}

static int enable_pattern(struct lttng_handle *handle, const char *pattern) {
  struct lttng_event event;
  memset(&event, 0, sizeof event);
  event.type = LTTNG_EVENT_TRACEPOINT;
  event.loglevel_type = LTTNG_EVENT_LOGLEVEL_ALL;
  event.loglevel = -1;
  const char *bang = strchr(pattern, '!');
  snprintf(event.name, sizeof event.name, "%.*s",
           bang ? (int)(bang - pattern) : (int)strlen(pattern), pattern);
  static char names[MAX_EXCLUSIONS][LTTNG_SYMBOL_NAME_LEN];
  char *exclusions[MAX_EXCLUSIONS];
  int count = 0;
  for (const char *item = bang ? bang + 1 : NULL; item && *item && count < MAX_EXCLUSIONS;) {
    const char *comma = strchr(item, ',');
    int len = comma ? (int)(comma - item) : (int)strlen(item);
    snprintf(names[count], sizeof names[count], "%.*s", len, item);
    exclusions[count] = names[count];
    count++;
    item = comma ? comma + 1 : NULL;
  }
  return lttng_enable_event_with_exclusions(handle, &event, "tracer", NULL, count,
                                            count ? exclusions : NULL);
}

int main(int argc, char **argv) {
  const char *env[MAX_ENV];
  int env_count = 0, i = 1;
  bool wait_destroy = true;
  for (; i < argc && strncmp(argv[i], "--", 2) == 0 && argv[i][2]; i++) {
    if (strcmp(argv[i], "--no-wait-destroy") == 0)
      wait_destroy = false;
    else if (strcmp(argv[i], "--env") == 0 && i + 1 < argc && env_count < MAX_ENV)
      env[env_count++] = argv[++i];
    else
      break;
  }
  if (argc - i < 5) {
    fprintf(stderr, "usage: lttng_floor [--no-wait-destroy] [--env NAME=VALUE]... OUTPUT "
                    "SUBBUF_SIZE SUBBUF_COUNT PATTERN... -- APP [ARGS...]\n");
    return 2;
  }
  const char *output = argv[i];
  uint64_t size = strtoull(argv[i + 1], NULL, 0), count = strtoull(argv[i + 2], NULL, 0);
  int first_pattern = i + 3, app = first_pattern;
  while (app < argc && strcmp(argv[app], "--") != 0)
    app++;
  if (app + 1 >= argc) {
    fprintf(stderr, "lttng_floor: no app after --\n");
    return 2;
  }
  char name[64];
  snprintf(name, sizeof name, "floor-%ld", (long)getpid());

  double t0 = now_ms();
  struct lttng_session_descriptor *descriptor =
      lttng_session_descriptor_local_create(name, output);
  enum lttng_error_code code = lttng_create_session_ext(descriptor);
  lttng_session_descriptor_destroy(descriptor);
  if (code != LTTNG_OK)
    die("create", -(int)code);
  struct lttng_domain domain = {.type = LTTNG_DOMAIN_UST, .buf_type = LTTNG_BUFFER_PER_UID};
  struct lttng_handle *handle = lttng_create_handle(name, &domain);
  double t1 = now_ms();
  /* The tracer's channels: its metadata channel and its one data channel. */
  int rc = enable_channel(handle, &domain, "metadata", 512 * 1024, 2, 0);
  if (rc < 0)
    die("enable-channel metadata", rc);
  rc = enable_channel(handle, &domain, "tracer", size, count, 1000000);
  if (rc < 0)
    die("enable-channel tracer", rc);
  double t2 = now_ms();
  for (int p = first_pattern; p < app; p++)
    if ((rc = enable_pattern(handle, argv[p])) < 0 && rc != -LTTNG_ERR_UST_EVENT_ENABLED)
      die(argv[p], rc);
  /* Recording only the app (below), as the tracer does on a shared daemon. */
  struct lttng_process_attr_tracker_handle *tracker = NULL;
  code = lttng_session_get_tracker_handle(name, LTTNG_DOMAIN_UST,
                                          LTTNG_PROCESS_ATTR_VIRTUAL_PROCESS_ID, &tracker);
  if (code != LTTNG_OK ||
      lttng_process_attr_tracker_handle_set_tracking_policy(
          tracker, LTTNG_TRACKING_POLICY_INCLUDE_SET) != LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK)
    die("track", -LTTNG_ERR_UNK);
  double t3 = now_ms();
  if ((rc = lttng_start_tracing(name)) < 0)
    die("start", rc);
  double t4 = now_ms();
  int go[2];
  if (pipe(go) != 0)
    die("pipe", -LTTNG_ERR_UNK);
  pid_t pid = fork();
  if (pid == 0) {
    char byte;
    close(go[1]);
    if (read(go[0], &byte, 1) != 1)
      _exit(126);
    for (int e = 0; e < env_count; e++)
      putenv((char *)env[e]);
    execvp(argv[app + 1], argv + app + 1);
    _exit(127);
  }
  close(go[0]);
  if (lttng_process_attr_virtual_process_id_tracker_handle_add_pid(tracker, pid) !=
      LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK)
    die("track the app", -LTTNG_ERR_UNK);
  if (write(go[1], "g", 1) != 1)
    die("release the app", -LTTNG_ERR_UNK);
  close(go[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  double t5 = now_ms();
  if ((rc = lttng_stop_tracing(name)) < 0)
    die("stop", rc);
  double t6 = now_ms();
  rc = wait_destroy ? lttng_destroy_session(name) : lttng_destroy_session_no_wait(name);
  if (rc < 0)
    die("destroy", rc);
  double t7 = now_ms();
  lttng_process_attr_tracker_handle_destroy(tracker);
  lttng_destroy_handle(handle);
  printf("floor (ms): create=%.1f channels=%.1f events=%.1f start=%.1f app=%.1f stop=%.1f "
         "destroy=%.1f\n",
         t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t7 - t6);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
