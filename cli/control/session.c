/* session: create, start and end the LTTng recording session of one tracer job. */
#include "control_error.h"
#include "session.h"

#include "daemon_namespace.h"
#include "daemon_watchdog.h"
#include "session_daemon.h"
#include "session_flush.h"
#include "session_output.h"
#include "sigpipe_guard.h"

#include "lttng_ctl_library.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#define NAME_ATTEMPTS 4
/* Set-up attempts when the daemon goes away half-way (see session_begin). */
#define SETUP_ATTEMPTS 3
#define SETUP_RETRY_PAUSE_MS 100

struct session {
  char name[LTTNG_NAME_MAX];
  char *output_dir;    /* owned, absolute */
  bool output_created; /* session_begin made the folder (removed again on failure) */
  struct session_daemon daemon;
  struct lttng_domain domain;
  struct lttng_handle *handle;                        /* owned */
  struct lttng_process_attr_tracker_handle *tracker; /* owned; NULL: all processes */
  char *app_environment[4]; /* owned entries, NULL-terminated */
  const char *app_environment_removed[2]; /* NULL-terminated */
  int daemon_timeout_ms;
  int last_lttng_error; /* the negative code of the last refused request, 0 if none */
  bool created, started, ended;
  struct session_end_report report; /* valid once ended */
  struct session_timing timing;
  /* The daemon that answered could not serve (session_daemon_trouble): this job runs
   * with one of its own. */
  bool own_daemon;
  char trouble[768];
};

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}


/* Arms the watchdog for requests to the daemon (daemon_watchdog.h): bound
 * daemon_timeout_ms x factor; consequence says what becomes of the app and its events. */
static int watch_requests(const struct session *session, const char *what, int factor,
                          const char *consequence)
{
  int timeout_ms = session->daemon_timeout_ms * factor;
  char pid_text[32] = "pid unknown";
  if (session->daemon.pid > 0) {
    snprintf(pid_text, sizeof pid_text, "pid %ld", (long)session->daemon.pid);
  }
  return daemon_watchdog_arm(timeout_ms,
                             "Cannot %s: session=%s: the session daemon (lttng-sessiond, %s) "
                             "did not answer within %d ms; %s",
                             what, session->name, pid_text, timeout_ms, consequence);
}

void session_set_hang_handler(session_hang_handler handler)
{
  daemon_watchdog_set_handler(handler);
}

static bool is_power_of_two(uint64_t value)
{
  return value != 0 && (value & (value - 1)) == 0;
}

static enum session_status check_options(const struct session_options *options,
                                         struct session_error *error)
{
  if (options == NULL || options->output_dir == NULL || options->output_dir[0] == '\0') {
    return session_fail(error, SESSION_ERR_USAGE, "Cannot create session: no output folder given");
  }
  if (options->event_patterns == NULL || options->event_patterns[0] == NULL) {
    return session_fail(error, SESSION_ERR_USAGE, "Cannot create session: no event pattern given");
  }
  for (size_t i = 0; options->event_patterns[i] != NULL; i++) {
    size_t len = strlen(options->event_patterns[i]);
    if (len == 0 || len >= LTTNG_SYMBOL_NAME_LEN) {
      return session_fail(error, SESSION_ERR_USAGE,
                  "Cannot create session: pattern=\"%.64s\", an event pattern must have 1 "
                  "to %d characters",
                  options->event_patterns[i], LTTNG_SYMBOL_NAME_LEN - 1);
    }
  }
  long page_size = sysconf(_SC_PAGESIZE);
  uint64_t size = options->subbuf_size;
  if (size != 0 && (!is_power_of_two(size) || (page_size > 0 && size < (uint64_t)page_size))) {
    return session_fail(error, SESSION_ERR_USAGE,
                "Cannot create session: subbuf_size=%llu, must be a power of 2 of at least "
                "the page size (%ld)",
                (unsigned long long)size, page_size);
  }
  uint64_t count = options->subbuf_count;
  if (count != 0 && (!is_power_of_two(count) || count < 2)) {
    return session_fail(error, SESSION_ERR_USAGE,
                "Cannot create session: subbuf_count=%llu, must be a power of 2 of at least 2",
                (unsigned long long)count);
  }
  if (options->scope != SESSION_SCOPE_AUTO && options->scope != SESSION_SCOPE_APP_PROCESSES &&
      options->scope != SESSION_SCOPE_ALL_PROCESSES) {
    return session_fail(error, SESSION_ERR_USAGE, "Cannot create session: scope=%d is unknown",
                (int)options->scope);
  }
  if (options->daemon_timeout_ms < 0) {
    return session_fail(error, SESSION_ERR_USAGE,
                "Cannot create session: daemon_timeout_ms=%d, must not be negative",
                options->daemon_timeout_ms);
  }
  return SESSION_OK;
}

/* "tracer-<host>-<pid>-<random>": the host and pid tell a person whose session it is
 * when listing a shared daemon; the random part keeps names unique across pid reuse and
 * containers that share a daemon but not a pid namespace. */
static void make_name(char *name, size_t size)
{
  static const char alphabet[] = "abcdefghijkmnpqrstuvwxyz23456789";
  char host[65] = "";
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') {
    snprintf(host, sizeof host, "host");
  }
  /* Session names become file names in some outputs: keep them to a safe alphabet. */
  for (char *c = host; *c != '\0'; c++) {
    bool safe = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                (*c >= '0' && *c <= '9') || *c == '-' || *c == '_';
    if (!safe) {
      *c = '_';
    }
  }
  unsigned char random_bytes[6];
  if (getrandom(random_bytes, sizeof random_bytes, GRND_NONBLOCK) != sizeof random_bytes) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    unsigned long long mix = (unsigned long long)ts.tv_nsec * 2654435761ull ^
                             (unsigned long long)getpid();
    for (size_t i = 0; i < sizeof random_bytes; i++) {
      random_bytes[i] = (unsigned char)(mix >> (8 * i));
    }
  }
  char suffix[sizeof random_bytes + 1];
  for (size_t i = 0; i < sizeof random_bytes; i++) {
    suffix[i] = alphabet[random_bytes[i] % (sizeof alphabet - 1)];
  }
  suffix[sizeof random_bytes] = '\0';
  snprintf(name, size, "tracer-%s-%ld-%s", host, (long)getpid(), suffix);
}

static enum session_status create_session(struct session *session, struct session_error *error)
{
  enum lttng_error_code rc = LTTNG_ERR_EXIST_SESS;
  for (int attempt = 0; attempt < NAME_ATTEMPTS && rc == LTTNG_ERR_EXIST_SESS; attempt++) {
    make_name(session->name, sizeof session->name);
    struct lttng_session_descriptor *descriptor =
        lttng_session_descriptor_local_create(session->name, session->output_dir);
    if (descriptor == NULL) {
      return session_fail(error, SESSION_ERR_SYSTEM,
                  "Cannot create session: name=%s, output=%s, invalid session descriptor",
                  session->name, session->output_dir);
    }
    rc = lttng_create_session_ext(descriptor);
    lttng_session_descriptor_destroy(descriptor);
  }
  if (rc != LTTNG_OK) {
    session->last_lttng_error = -(int)rc;
    return session_fail(error, SESSION_ERR_LTTNG, "Cannot create session: name=%s, output=%s: %s",
                session->name, session->output_dir, lttng_strerror(-(int)rc));
  }
  session->created = true;
  return SESSION_OK;
}

/* One channel of the session: its name, its ring buffers, and whether an app waits for
 * room in them (blocking) instead of discarding the event. */
struct channel_shape {
  const char *name;
  uint64_t subbuf_size;
  uint64_t subbuf_count;
  bool blocking;
  uint64_t switch_timer_us; /* 0: sub-buffers are written out when full or flushed */
};

static enum session_status add_channel(struct session *session, const struct channel_shape *shape,
                                       struct session_error *error)
{
  struct lttng_channel *channel = lttng_channel_create(&session->domain);
  if (channel == NULL) {
    return session_fail(error, SESSION_ERR_SYSTEM,
                        "Cannot create channel: session=%s, out of memory", session->name);
  }
  snprintf(channel->name, sizeof channel->name, "%s", shape->name);
  channel->attr.overwrite = 0; /* discard new events when full: never lose old ones */
  channel->attr.subbuf_size = shape->subbuf_size;
  channel->attr.num_subbuf = shape->subbuf_count;
  channel->attr.output = LTTNG_EVENT_MMAP; /* the only output UST supports */
  channel->attr.switch_timer_interval = shape->switch_timer_us;
  channel->attr.read_timer_interval = 0;
  int rc = 0;
  if (shape->blocking) {
    /* -1: an app waits as long as it takes for space in the buffer. */
    rc = lttng_channel_set_blocking_timeout(channel, -1);
  }
  if (rc == 0) {
    rc = lttng_enable_channel(session->handle, channel);
  }
  lttng_channel_destroy(channel);
  if (rc < 0) {
    session->last_lttng_error = rc;
    return session_fail(error, SESSION_ERR_LTTNG,
                        "Cannot create channel: session=%s, channel=%s, subbuf_size=%llu, "
                        "subbuf_count=%llu, blocking=%s: %s",
                        session->name, shape->name, (unsigned long long)shape->subbuf_size,
                        (unsigned long long)shape->subbuf_count, shape->blocking ? "yes" : "no",
                        lttng_strerror(rc));
  }
  return SESSION_OK;
}

/* The session's three channels: the metadata's, the events', the counted entries'
 * (session.h). The metadata's: LTTng's default (2 sub-buffers of 4 KiB) moves the metadata
 * of every preloaded backend's events (about 370 KiB) to disk in some 90 turns of the
 * consumer, and the consumer's command thread sleeps 200 ms at a time while it waits
 * for that (lttng-consumerd's DEFAULT_METADATA_AVAILABILITY_WAIT_TIME), holding up the
 * stop that comes after an app's exit.
 * The events' channels are written out every second even when not full (the switch
 * timer), so a job killed outright (a batch time limit's SIGKILL to the tracer too)
 * leaves on disk all but its last second. The metadata's has no switch timer: the
 * consumer writes each push of metadata out at once, and in lttng-consumerd 2.13 that
 * timer deadlocks a shared daemon. Its timer thread, asking the session daemon for
 * metadata, waits for the metadata thread; that thread waits for the consumer's global
 * lock; the thread holding it, removing another session's channel, waits for the timer
 * thread. Every job on the daemon then hangs (CI's concurrency_staggered_root: 19 of
 * 24 jobs timed out; docs/session-daemon.md). */
static enum session_status enable_channels(struct session *session,
                                           const struct session_options *options,
                                           struct session_error *error)
{
  uint64_t size = options->subbuf_size != 0 ? options->subbuf_size : SESSION_DEFAULT_SUBBUF_SIZE;
  const struct channel_shape shapes[] = {
      {"metadata", SESSION_METADATA_SUBBUF_SIZE, SESSION_METADATA_SUBBUF_COUNT, false, 0},
      {SESSION_CHANNEL_NAME, size,
       options->subbuf_count != 0 ? options->subbuf_count : session_default_subbuf_count(size),
       options->blocking, SESSION_SWITCH_TIMER_US},
      {SESSION_COUNTS_CHANNEL_NAME, SESSION_COUNTS_SUBBUF_SIZE, SESSION_COUNTS_SUBBUF_COUNT, false,
       SESSION_SWITCH_TIMER_US},
  };
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    enum session_status status = add_channel(session, &shapes[i], error);
    if (status != SESSION_OK) {
      return status;
    }
  }
  return SESSION_OK;
}

static enum session_status add_contexts(struct session *session, struct session_error *error)
{
  static const struct {
    enum lttng_event_context_type type;
    const char *name;
  } contexts[] = {{LTTNG_EVENT_CONTEXT_VPID, "vpid"}, {LTTNG_EVENT_CONTEXT_VTID, "vtid"}};
  for (size_t i = 0; i < sizeof contexts / sizeof contexts[0]; i++) {
    struct lttng_event_context context;
    memset(&context, 0, sizeof context);
    context.ctx = contexts[i].type;
    int rc = lttng_add_context(session->handle, &context, NULL, SESSION_CHANNEL_NAME);
    if (rc < 0) {
      session->last_lttng_error = rc;
      return session_fail(error, SESSION_ERR_LTTNG,
                  "Cannot add context: session=%s, channel=%s, context=%s: %s",
                  session->name, SESSION_CHANNEL_NAME, contexts[i].name, lttng_strerror(rc));
    }
  }
  return SESSION_OK;
}

/* An empty include set records nothing until session_track_process() adds the app. */
static enum session_status restrict_to_tracked(struct session *session,
                                               struct session_error *error)
{
  enum lttng_error_code rc = lttng_session_get_tracker_handle(
      session->name, LTTNG_DOMAIN_UST, LTTNG_PROCESS_ATTR_VIRTUAL_PROCESS_ID,
      &session->tracker);
  if (rc != LTTNG_OK) {
    session->last_lttng_error = -(int)rc;
    return session_fail(error, SESSION_ERR_LTTNG,
                "Cannot restrict session to the app: session=%s, tracker=vpid: %s",
                session->name, lttng_strerror(-(int)rc));
  }
  enum lttng_process_attr_tracker_handle_status status =
      lttng_process_attr_tracker_handle_set_tracking_policy(session->tracker,
                                                            LTTNG_TRACKING_POLICY_INCLUDE_SET);
  if (status != LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK) {
    return session_fail(error, SESSION_ERR_LTTNG,
                "Cannot restrict session to the app: session=%s, tracker=vpid, "
                "policy=include-set: tracker status %d",
                session->name, (int)status);
  }
  return SESSION_OK;
}

/* "PATTERN!A,B": PATTERN without events A and B (full names, globs allowed). Returns the exclusion count; fills
 * event->name and names (LTTNG_SYMBOL_NAME_LEN bytes each, at most max). */
static int split_exclusions(const char *spec, struct lttng_event *event, char *names, int max)
{
  const char *bang = strchr(spec, '!');
  snprintf(event->name, sizeof event->name, "%.*s", bang ? (int)(bang - spec) : (int)strlen(spec),
           spec);
  int count = 0;
  for (const char *item = bang ? bang + 1 : NULL; item && *item && count < max;) {
    const char *comma = strchr(item, ',');
    int len = comma ? (int)(comma - item) : (int)strlen(item);
    snprintf(names + (size_t)count * LTTNG_SYMBOL_NAME_LEN, LTTNG_SYMBOL_NAME_LEN, "%.*s", len,
             item);
    count++;
    item = comma ? comma + 1 : NULL;
  }
  return count;
}

static enum session_status enable_events(struct session *session,
                                         const char *const *patterns,
                                         struct session_error *error)
{
  enum { MAX_EXCLUSIONS = 8 };
  for (size_t i = 0; patterns[i] != NULL; i++) {
    struct lttng_event event;
    char exclusions[MAX_EXCLUSIONS][LTTNG_SYMBOL_NAME_LEN];
    memset(&event, 0, sizeof event);
    event.type = LTTNG_EVENT_TRACEPOINT;
    event.loglevel_type = LTTNG_EVENT_LOGLEVEL_ALL;
    event.loglevel = -1;
    char *exclusion_names[MAX_EXCLUSIONS];
    int excluded = split_exclusions(patterns[i], &event, &exclusions[0][0], MAX_EXCLUSIONS);
    for (int k = 0; k < excluded; k++)
      exclusion_names[k] = exclusions[k];
    const char *channel = strcmp(event.name, SESSION_COUNTED_EVENT) == 0
                              ? SESSION_COUNTS_CHANNEL_NAME
                              : SESSION_CHANNEL_NAME;
    int rc = lttng_enable_event_with_exclusions(session->handle, &event, channel,
                                                NULL, excluded,
                                                excluded ? exclusion_names : NULL);
    /* A pattern given twice is already enabled: that is what was asked. */
    if (rc < 0 && rc != -LTTNG_ERR_UST_EVENT_ENABLED) {
      session->last_lttng_error = rc;
      return session_fail(error, SESSION_ERR_LTTNG,
                  "Cannot enable event: session=%s, channel=%s, pattern=%s: %s", session->name,
                  channel, patterns[i], lttng_strerror(rc));
    }
  }
  return SESSION_OK;
}

uint64_t session_default_subbuf_count(uint64_t subbuf_size)
{
  int cpus = get_nprocs_conf();
  uint64_t per_cpu = SESSION_BUFFER_BUDGET / (uint64_t)(cpus > 0 ? cpus : 1);
  uint64_t count = SESSION_MIN_DEFAULT_SUBBUF_COUNT;
  while (count < SESSION_MAX_DEFAULT_SUBBUF_COUNT && 2 * count * subbuf_size <= per_cpu) {
    count *= 2;
  }
  return count;
}

/* Adds "name=value" to the app's environment entries. */
static enum session_status add_app_entry(struct session *session, size_t *count,
                                         const char *name, const char *value,
                                         struct session_error *error)
{
  char *entry = NULL;
  if (asprintf(&entry, "%s=%s", name, value) < 0) {
    return session_fail(error, SESSION_ERR_SYSTEM, "Cannot create session: out of memory");
  }
  session->app_environment[(*count)++] = entry;
  session->app_environment[*count] = NULL;
  return SESSION_OK;
}

static enum session_status make_app_environment(struct session *session,
                                                const struct session_options *options,
                                                struct session_error *error)
{
  size_t count = 0;
  enum session_status status = SESSION_OK;
  if (session->daemon.private_home != NULL) {
    status = add_app_entry(session, &count, "LTTNG_HOME", session->daemon.private_home, error);
  }
  if (status == SESSION_OK && options->blocking) {
    /* lttng-ust ignores a channel's blocking timeout unless the app allows it. */
    status = add_app_entry(session, &count, "LTTNG_UST_ALLOW_BLOCKING", "1", error);
  }
  if (status != SESSION_OK) {
    return status;
  }
  /* Events are stamped in the app, the clock is described by the daemon: the app loads
   * the daemon's clock plugin, or none. */
  char *plugin = session_daemon_clock_plugin(&session->daemon);
  if (plugin != NULL) {
    status = add_app_entry(session, &count, "LTTNG_UST_CLOCK_PLUGIN", plugin, error);
    free(plugin);
  } else {
    session->app_environment_removed[0] = "LTTNG_UST_CLOCK_PLUGIN";
  }
  return status;
}

/* Sessions of tracers on this host that died without ending them (a batch time limit
 * kills the whole job step, tracer included) still hold buffers and keep recording. Their
 * names say which tracer made them: tracer-HOST-PID-XXXX. Destroying one flushes what it
 * holds into its trace folder, so the trace of the killed job is complete on disk. */
bool session_tracer_alive(pid_t pid)
{
  if (kill(pid, 0) != 0 && errno == ESRCH) {
    return false;
  }
  char path[64], stat[256] = "";
  snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    return true; /* cannot tell */
  }
  size_t n = fread(stat, 1, sizeof stat - 1, f);
  fclose(f);
  stat[n] = '\0';
  /* "PID (COMM) STATE ...": COMM may hold spaces and parentheses, STATE follows the last ')'. */
  const char *close = strrchr(stat, ')');
  return !(close && close[1] == ' ' && close[2] == 'Z');
}

bool session_daemon_alive(void)
{
  struct diag d;
  diag_init(&d);
  bool loaded = lttng_ctl_library_load(&d) == 0;
  diag_clear(&d);
  return loaded && lttng_session_daemon_alive() == 1;
}

void session_reap_stale(void)
{
  struct diag d;
  diag_init(&d);
  bool loaded = lttng_ctl_library_load(&d) == 0;
  diag_clear(&d);
  if (!loaded) {
    return; /* no daemon can be reached: no session to reap */
  }
  sigpipe_guard_install();
  int timeout_ms = SESSION_DEFAULT_DAEMON_TIMEOUT_MS * SESSION_FLUSH_TIMEOUT_FACTOR;
  int watch = daemon_watchdog_arm(
      timeout_ms,
      "Cannot destroy the sessions of killed tracers: the session daemon (lttng-sessiond, "
      "pid %ld) did not answer within %d ms; no app was started",
      (long)session_daemon_reached_pid(), timeout_ms);
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  char prefix[300];
  int prefix_len = snprintf(prefix, sizeof prefix, "tracer-%s-", host);
  struct lttng_session *sessions = NULL;
  int count = lttng_list_sessions(&sessions);
  for (int i = 0; i < count; i++) {
    const char *name = sessions[i].name;
    if (strncmp(name, prefix, (size_t)prefix_len) != 0) {
      continue;
    }
    char *end;
    long pid = strtol(name + prefix_len, &end, 10);
    if (pid <= 0 || *end != '-' || session_tracer_alive((pid_t)pid)) {
      continue; /* its tracer still runs (or we cannot tell) */
    }
    /* The stop writes out what its buffers hold; then its trace is complete. */
    (void)session_flush_stop(name);
    (void)session_flush_destroy(name);
  }
  free(sessions);
  daemon_watchdog_disarm(watch);
}

static enum session_status establish_session(struct session *session,
                                             const struct session_options *options,
                                             struct session_error *error);

/* Whether the daemon that answers (not one this job started) lives in another mount
 * namespace, where its trace would be out of the tracer's sight: session->trouble then
 * says so, for session_daemon_trouble(). */
static bool daemon_in_another_namespace(struct session *session)
{
  char *run_dir = session_daemon_reached_run_dir();
  char where[400];
  bool elsewhere = run_dir != NULL && daemon_namespace_elsewhere(run_dir, where, sizeof where);
  free(run_dir);
  if (elsewhere) {
    snprintf(session->trouble, sizeof session->trouble,
             "%s; this job runs with a session daemon of its own. Fix: start the shared "
             "daemon in the namespace its jobs run in (lttng-sessiond --daemonize%s)",
             where, geteuid() == 0 ? " --no-kernel" : "");
  }
  return elsewhere;
}

/* Everything from finding the daemon to starting the session. */
static enum session_status establish(struct session *session,
                                     const struct session_options *options,
                                     struct session_error *error)
{
  uint64_t start = now_ns();
  enum session_status status =
      session_daemon_ensure(&session->daemon, session->daemon_timeout_ms, options->clock_plugin,
                            session->own_daemon,
                            error);
  if (status == SESSION_OK && !session->own_daemon && !session->daemon.started &&
      daemon_in_another_namespace(session)) {
    session->own_daemon = true; /* the trace must be written where the tracer reads it */
    status = session_daemon_ensure(&session->daemon, session->daemon_timeout_ms,
                                   options->clock_plugin, true, error);
  }
  uint64_t found = now_ns();
  session->timing.daemon_ns += found - start;
  if (status != SESSION_OK) {
    return status;
  }
  session_reap_stale();
  uint64_t reaped = now_ns();
  session->timing.reap_ns += reaped - found;
  int watch = watch_requests(session, "set up the session", SESSION_REQUEST_TIMEOUT_FACTOR,
                             "the app was not started");
  status = establish_session(session, options, error);
  daemon_watchdog_disarm(watch);
  session->timing.setup_ns += now_ns() - reaped;
  return status;
}

/* From creating the session to starting it, on the daemon establish() found. */
static enum session_status establish_session(struct session *session,
                                             const struct session_options *options,
                                             struct session_error *error)
{
  enum session_status status = create_session(session, error);
  if (status != SESSION_OK) {
    return status;
  }
  session->handle = lttng_create_handle(session->name, &session->domain);
  if (session->handle == NULL) {
    return session_fail(error, SESSION_ERR_SYSTEM, "Cannot create session: name=%s, out of memory",
                session->name);
  }
  status = enable_channels(session, options, error);
  if (status != SESSION_OK) {
    return status;
  }
  status = options->no_id_contexts ? SESSION_OK : add_contexts(session, error);
  if (status != SESSION_OK) {
    return status;
  }
  bool daemon_private = session->daemon.private_home != NULL;
  bool tracked_only = options->scope == SESSION_SCOPE_APP_PROCESSES ||
                      (options->scope == SESSION_SCOPE_AUTO && !daemon_private);
  if (tracked_only) {
    status = restrict_to_tracked(session, error);
    if (status != SESSION_OK) {
      return status;
    }
  }
  status = enable_events(session, options->event_patterns, error);
  if (status != SESSION_OK) {
    return status;
  }
  status = make_app_environment(session, options, error);
  if (status != SESSION_OK) {
    return status;
  }
  int rc = lttng_start_tracing(session->name);
  if (rc < 0) {
    session->last_lttng_error = rc;
    return session_fail(error, SESSION_ERR_LTTNG, "Cannot start tracing: session=%s: %s",
                session->name, lttng_strerror(rc));
  }
  session->started = true;
  return SESSION_OK;
}

/* Whether the daemon that answered cannot serve any job (its consumer daemon is gone:
 * "No UST consumer detected", or it answers "Fatal error" while running on): fills
 * session->trouble with the cause and the fix. A daemon that vanished is not this case:
 * the set-up starts over and finds or starts one. */
static bool cannot_serve_cause(struct session *session)
{
  int rc = session->last_lttng_error;
  bool no_consumer = rc == -LTTNG_ERR_NO_USTCONSUMERD || rc == -LTTNG_ERR_NO_CONSUMER ||
                     rc == -LTTNG_ERR_UST_CONSUMER64_FAIL;
  bool fatal = rc == -LTTNG_ERR_FATAL && session_daemon_still_running(&session->daemon);
  if (!no_consumer && !fatal) {
    return false;
  }
  session_daemon_describe_trouble(session->daemon.pid, rc, no_consumer, session->trouble,
                                  sizeof session->trouble);
  return true;
}

const char *session_daemon_trouble(const struct session *session)
{
  return session->own_daemon ? session->trouble : NULL;
}

static void free_app_environment(struct session *session)
{
  for (size_t i = 0; session->app_environment[i] != NULL; i++) {
    free(session->app_environment[i]);
    session->app_environment[i] = NULL;
  }
}

static enum session_status teardown(struct session *session,
                                    struct session_end_report *report,
                                    struct session_error *error);

/* liblttng-ctl, loaded at the first session (lttng_ctl_library.h). */
static enum session_status load_lttng_ctl(struct session_error *error)
{
  struct diag d;
  diag_init(&d);
  enum session_status status = SESSION_OK;
  if (lttng_ctl_library_load(&d) != 0) {
    char text[sizeof error->message];
    status = session_fail(error, SESSION_ERR_DAEMON, "%s", diag_join(&d, text, sizeof text));
  }
  diag_clear(&d);
  return status;
}

enum session_status session_begin(const struct session_options *options,
                                  struct session **session_out, struct session_error *error)
{
  error->message[0] = '\0';
  *session_out = NULL;
  sigpipe_guard_install();
  enum session_status status = check_options(options, error);
  if (status != SESSION_OK) {
    return status;
  }
  status = load_lttng_ctl(error);
  if (status != SESSION_OK) {
    return status;
  }
  struct session *session = calloc(1, sizeof *session);
  if (session == NULL) {
    return session_fail(error, SESSION_ERR_SYSTEM, "Cannot create session: out of memory");
  }
  session->daemon_timeout_ms = options->daemon_timeout_ms != 0
                                   ? options->daemon_timeout_ms
                                   : SESSION_DEFAULT_DAEMON_TIMEOUT_MS;
  session->domain.type = LTTNG_DOMAIN_UST;
  /* Per-UID buffers outlive the app: events of an app that crashed are still flushed,
   * and the loss counters are still there to read when the session ends. */
  session->domain.buf_type = LTTNG_BUFFER_PER_UID;

  status = session_output_prepare(options->output_dir, &session->output_dir,
                                  &session->output_created, error);
  if (status != SESSION_OK) {
    free(session);
    return status;
  }
  /* A daemon shared with other jobs can disappear half-way through the set-up: the job
   * that started it stops it when it sees no session left, and ours is not created yet.
   * The set-up then starts over, and finds or starts a daemon again. */
  for (int attempt = 1;; attempt++) {
    session->last_lttng_error = 0;
    status = establish(session, options, error);
    if (status == SESSION_OK) {
      break;
    }
    bool daemon_vanished = session->last_lttng_error == -LTTNG_ERR_NO_SESSIOND ||
                           session->last_lttng_error == -LTTNG_ERR_FATAL;
    bool cannot_serve = !session->own_daemon && !session->daemon.started &&
                        cannot_serve_cause(session);
    struct session_error ignored;
    teardown(session, NULL, &ignored);
    free_app_environment(session);
    if (cannot_serve) {
      session->own_daemon = true; /* the next attempt starts a daemon of the job's own */
      continue;
    }
    if (!daemon_vanished || attempt >= SETUP_ATTEMPTS) {
      if (session->output_created) {
        rmdir(session->output_dir); /* only if still empty */
      }
      free(session->output_dir);
      free(session);
      return status;
    }
    struct timespec pause = {.tv_sec = 0, .tv_nsec = SETUP_RETRY_PAUSE_MS * 1000000L};
    nanosleep(&pause, NULL);
  }
  *session_out = session;
  return SESSION_OK;
}

const char *const *session_app_environment(const struct session *session)
{
  return (const char *const *)session->app_environment;
}

const char *const *session_app_environment_removed(const struct session *session)
{
  return session->app_environment_removed;
}

enum session_status session_track_process(struct session *session, pid_t pid,
                                          struct session_error *error)
{
  error->message[0] = '\0';
  if (session->tracker == NULL) {
    return SESSION_OK;
  }
  if (session->ended) {
    return session_fail(error, SESSION_ERR_USAGE, "Cannot track process: session=%s, pid=%ld, ended",
                session->name, (long)pid);
  }
  int watch = watch_requests(session, "track the app's process", SESSION_REQUEST_TIMEOUT_FACTOR,
                             "the app is not traced (an app held for its start is not "
                             "started)");
  enum lttng_process_attr_tracker_handle_status status =
      lttng_process_attr_virtual_process_id_tracker_handle_add_pid(session->tracker, pid);
  daemon_watchdog_disarm(watch);
  if (status != LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK &&
      status != LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_EXISTS) {
    return session_fail(error, SESSION_ERR_LTTNG,
                "Cannot track process: session=%s, vpid=%ld: tracker status %d",
                session->name, (long)pid, (int)status);
  }
  return SESSION_OK;
}

/* Sums the loss counters of the session's event channels, the events' and the counted
 * entries'. Per-UID buffers keep them after the apps are gone, and after the stop they
 * are final. */
static enum session_status read_loss(struct session *session, struct session_end_report *report,
                                     struct session_error *error)
{
  struct lttng_channel *channels = NULL;
  int count = lttng_list_channels(session->handle, &channels);
  if (count < 0) {
    return session_fail(error, SESSION_ERR_LTTNG, "Cannot read loss counts: session=%s: %s",
                        session->name, lttng_strerror(count));
  }
  bool found = false;
  uint64_t discarded_sum = 0, lost_sum = 0;
  enum session_status status = SESSION_OK;
  for (int i = 0; i < count && status == SESSION_OK; i++) {
    if (strcmp(channels[i].name, SESSION_CHANNEL_NAME) != 0 &&
        strcmp(channels[i].name, SESSION_COUNTS_CHANNEL_NAME) != 0) {
      continue;
    }
    uint64_t discarded = 0, lost = 0;
    int rc = lttng_channel_get_discarded_event_count(&channels[i], &discarded);
    if (rc == 0) {
      rc = lttng_channel_get_lost_packet_count(&channels[i], &lost);
    }
    if (rc < 0) {
      status = session_fail(error, SESSION_ERR_LTTNG,
                            "Cannot read loss counts: session=%s, channel=%s: %s", session->name,
                            channels[i].name, lttng_strerror(rc));
      break;
    }
    /* lttng-tools' consumer adds 2^63 when packets from several writers report their
     * cumulative counts out of order: such a value is no count. */
    discarded_sum += discarded >= (UINT64_C(1) << 63) ? 0 : discarded;
    lost_sum += lost;
    found = found || strcmp(channels[i].name, SESSION_CHANNEL_NAME) == 0;
  }
  free(channels);
  if (status == SESSION_OK && !found) {
    status = session_fail(error, SESSION_ERR_LTTNG,
                          "Cannot read loss counts: session=%s, channel=%s, not found",
                          session->name, SESSION_CHANNEL_NAME);
  }
  if (status == SESSION_OK) {
    report->discarded_events = discarded_sum;
    report->lost_packets = lost_sum;
    report->counts_valid = true;
  }
  return status;
}

/* The destruction is not waited for (session_flush.h): the trace is complete once the
 * stop returned. */
static enum session_status destroy_session(struct session *session,
                                           struct session_error *error)
{
  int rc = session_flush_destroy(session->name);
  if (rc < 0) {
    return session_fail(error, SESSION_ERR_LTTNG, "Cannot destroy session: session=%s: %s",
                        session->name, lttng_strerror(rc));
  }
  return SESSION_OK;
}

/* When stopping failed because the daemon that served the job is gone (killed or
 * crashed: its socket refuses, or a daemon started since knows no such session), fills
 * *error with what that means for the trace and returns SESSION_ERR_DAEMON; else
 * SESSION_OK. */
static enum session_status daemon_lost(struct session *session, int rc,
                                       struct session_error *error)
{
  bool unreachable = rc == -LTTNG_ERR_NO_SESSIOND || rc == -LTTNG_ERR_FATAL;
  bool running = session_daemon_still_running(&session->daemon);
  bool pid_known = session->daemon.pid > 0;
  bool forgotten = rc == -LTTNG_ERR_SESS_NOT_FOUND;
  if (!unreachable && !forgotten && (running || !pid_known)) {
    return SESSION_OK;
  }
  char pid_text[32] = "pid unknown";
  if (pid_known) {
    snprintf(pid_text, sizeof pid_text, "pid %ld", (long)session->daemon.pid);
  }
  return session_fail(error, SESSION_ERR_DAEMON,
                      "Cannot stop tracing: session=%s: the session daemon (lttng-sessiond, "
                      "%s) %s during the run: the events still in its buffers are lost; %s "
                      "holds at most what its consumer wrote before",
                      session->name, pid_text,
                      running ? "no longer knows the session (someone destroyed it)"
                              : "ended (killed or crashed)",
                      session->output_dir);
}

/* Undoes what establish() did, every step tried even when one fails; the first failure
 * is returned. Leaves the session reusable for another establish(). */
static enum session_status teardown(struct session *session,
                                    struct session_end_report *report,
                                    struct session_error *error)
{
  error->message[0] = '\0';
  enum session_status first = SESSION_OK;
  struct session_error step_error;
  struct session_end_report result = {0};

  result.daemon_pid = session->daemon.pid;
  /* Stopped with every buffer written out and its counts read: the daemon holds nothing
   * of the trace any more. */
  bool flushed = false;
  if (session->started) {
    char consequence[PATH_MAX + 128];
    snprintf(consequence, sizeof consequence,
             "the events still in its buffers were not written: %s holds only what was "
             "written before",
             session->output_dir);
    int watch = watch_requests(session, "stop tracing", SESSION_FLUSH_TIMEOUT_FACTOR,
                               consequence);
    /* Returns once the consumer has written every buffer out. */
    uint64_t start = now_ns();
    int rc = session_flush_stop(session->name);
    session->timing.stop_ns += now_ns() - start;
    daemon_watchdog_disarm(watch);
    flushed = rc >= 0 || rc == -LTTNG_ERR_TRACE_ALREADY_STOPPED;
    if (!flushed) {
      first = daemon_lost(session, rc, error);
      result.daemon_lost = first != SESSION_OK;
      if (!result.daemon_lost) {
        first = session_fail(error, SESSION_ERR_LTTNG, "Cannot stop tracing: session=%s: %s",
                             session->name, lttng_strerror(rc));
      }
    }
    session->started = false;
  }
  if (session->created && !result.daemon_lost) {
    char consequence[PATH_MAX + 128];
    snprintf(consequence, sizeof consequence,
             "the trace in %s was written out, but the session is left in the daemon",
             session->output_dir);
    int watch = watch_requests(session, "destroy the session", SESSION_FLUSH_TIMEOUT_FACTOR,
                               consequence);
    uint64_t start = now_ns();
    if (read_loss(session, &result, &step_error) != SESSION_OK) {
      flushed = false;
      if (first == SESSION_OK) {
        *error = step_error;
        first = SESSION_ERR_LTTNG;
      }
    }
    uint64_t counted = now_ns();
    session->timing.counts_ns += counted - start;
    /* A private daemon that this job started ends next, and its sessions with it: a
     * destruction first would only delay its exit until the daemon's check of the last
     * trace chunk (daemon_end.h). */
    bool daemon_ends_next = session->daemon.started && session->daemon.private_home != NULL;
    if (!daemon_ends_next && destroy_session(session, &step_error) != SESSION_OK &&
        first == SESSION_OK) {
      *error = step_error;
      first = SESSION_ERR_LTTNG;
    }
    session->timing.destroy_ns += now_ns() - counted;
    daemon_watchdog_disarm(watch);
  }
  session->created = false;
  if (session->tracker != NULL) {
    lttng_process_attr_tracker_handle_destroy(session->tracker);
    session->tracker = NULL;
  }
  if (session->handle != NULL) {
    lttng_destroy_handle(session->handle);
    session->handle = NULL;
  }
  uint64_t release_start = now_ns();
  enum session_status daemon_status =
      session_daemon_release(&session->daemon, session->daemon_timeout_ms, flushed,
                             &result.daemon_stopped, &result.daemon_left_running, &step_error);
  session->timing.release_ns += now_ns() - release_start;
  if (daemon_status != SESSION_OK && first == SESSION_OK) {
    *error = step_error;
    first = daemon_status;
  }
  if (report != NULL) {
    *report = result;
  }
  return first;
}

enum session_status session_end(struct session *session, struct session_end_report *report,
                                struct session_error *error)
{
  error->message[0] = '\0';
  if (!session->ended) {
    enum session_status status = teardown(session, &session->report, error);
    session->ended = true;
    if (report != NULL) {
      *report = session->report;
    }
    return status;
  }
  if (report != NULL) {
    *report = session->report;
  }
  return SESSION_OK;
}

void session_free(struct session *session)
{
  if (session == NULL) {
    return;
  }
  if (!session->ended) {
    struct session_error ignored;
    session_end(session, NULL, &ignored);
  }
  free_app_environment(session);
  free(session->output_dir);
  free(session);
}

const struct session_timing *session_timing(const struct session *session)
{
  return &session->timing;
}

const char *session_name(const struct session *session)
{
  return session->name;
}

const char *session_output_dir(const struct session *session)
{
  return session->output_dir;
}

bool session_output_created(const struct session *session)
{
  return session->output_created;
}

const char *session_lttng_home(const struct session *session)
{
  return session->daemon.private_home;
}

bool session_started_daemon(const struct session *session)
{
  return session->daemon.started;
}

bool session_records_tracked_only(const struct session *session)
{
  return session->tracker != NULL;
}
