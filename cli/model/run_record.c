/* run_record: see run_record.h. */
#include "run_record.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int run_record_write(const char *trace_dir, const struct run_record *r) {
  char path[4096];
  snprintf(path, sizeof path, "%s/" RUN_RECORD_FILE, trace_dir);
  FILE *f = fopen(path, "w");
  if (!f)
    return -1;
  fprintf(f,
          "command: %s\nstatus: %s\nexit_code: %d\ndiscarded_events: %" PRIu64
          "\nlost_packets: %" PRIu64 "\nwall_ns: %" PRIu64 "\nevent_ps: %" PRIu64
          "\nbyte_ps: %" PRIu64 "\ncall_ps: %" PRIu64 "\n",
          r->command, r->status, r->exit_code, r->discarded_events, r->lost_packets,
          r->wall_ns, r->event_ps, r->byte_ps, r->call_ps);
  if (r->partial_reason != RUN_PARTIAL_NONE)
    fprintf(f, "partial: %s\npartial_at_ns: %" PRIu64 "\nkept_bytes: %" PRIu64
               "\npartial_counting: %d\n",
            run_partial_name(r->partial_reason), r->partial_at_ns, r->kept_bytes,
            r->partial_counting ? 1 : 0);
  if (r->job_ranks > 0)
    fprintf(f, "job_ranks: %ld\n", r->job_ranks);
  if (r->clock_read_least)
    fprintf(f, "clock_read_least: %" PRIu64 "\n", r->clock_read_least);
  if (r->ended_at_ns)
    fprintf(f, "ended_at_ns: %" PRIu64 "\n", r->ended_at_ns);
  if (r->processes_left)
    fprintf(f, "processes_left: %ld\n", r->processes_left);
  if (r->runtime_calls)
    fprintf(f, "runtime_calls: 1\n");
  if (r->daemon_home[0])
    fprintf(f, "daemon_home: %s\n", r->daemon_home);
  if (r->tracer_pid)
    fprintf(f, "daemon_host: %s\ntracer_pid: %ld\n", r->daemon_host, r->tracer_pid);
  if (r->app_pid)
    fprintf(f, "app_pid: %ld\n", r->app_pid);
  return fclose(f);
}

const char *run_partial_name(enum run_partial reason) {
  return reason == RUN_PARTIAL_MAX_SIZE    ? "max-size"
         : reason == RUN_PARTIAL_DISK_FULL ? "disk-full"
                                           : "";
}

/* ---- Reading, with checks ----------------------------------------------------------
 * The record is a small text file anyone can edit or damage: every line is checked (a
 * known key, once, a value of its kind and in its range), and a bad one is left out and
 * said (FILE:LINE: cause), the field staying unknown, so that the report goes by what the
 * trace itself says. Bounds are far beyond any real run and short of the nonsense a
 * damaged number gives (2^64-1 from "-1", a 7e9 % share from a wall time of 1 ns is caught
 * against the trace by the analysis, analysis.c). */

enum value_kind { TEXT, COUNT, INT, PARTIAL, FLAG };

#define YEAR_NS 31557600000000000ull
static const struct key {
  const char *name;
  enum value_kind kind;
  long long least;
  unsigned long long most;
} keys[] = {
    {"command", TEXT, 0, 0},
    {"status", TEXT, 0, 0},
    {"exit_code", INT, -1, 255},
    {"discarded_events", COUNT, 0, (1ull << 63) - 1},
    {"lost_packets", COUNT, 0, (1ull << 63) - 1},
    {"wall_ns", COUNT, 0, 10 * YEAR_NS},
    {"event_ps", COUNT, 0, 1000000000ull}, /* 1 ms an event: beyond any machine */
    {"byte_ps", COUNT, 0, 1000000000ull},
    {"call_ps", COUNT, 0, 1000000000ull},
    {"partial", PARTIAL, 0, 0},
    {"partial_at_ns", COUNT, 0, 10 * YEAR_NS},
    {"kept_bytes", COUNT, 0, (1ull << 63) - 1},
    {"partial_counting", FLAG, 0, 1},
    {"job_ranks", INT, 0, 1 << 24},
    {"clock_read_least", COUNT, 0, 1000000ull}, /* clock ticks: 0.3 ms at 3 GHz */
    {"daemon_home", TEXT, 0, 0},
    {"daemon_host", TEXT, 0, 0},
    {"tracer_pid", INT, 1, 1 << 22},
    {"app_pid", INT, 1, 1 << 22},
    {"ended_at_ns", COUNT, 0, (1ull << 63) - 1}, /* wall-clock ns since the epoch */
    {"processes_left", INT, 0, 1 << 22},
    {"runtime_calls", FLAG, 0, 1},
};
enum { KEY_COUNT = sizeof keys / sizeof keys[0] };

static size_t key_of(const char *name) {
  size_t k = 0;
  while (k < KEY_COUNT && strcmp(keys[k].name, name) != 0)
    k++;
  return k;
}

/* The value of a number key, or a cause into why. */
static bool parse_number(const struct key *k, const char *value, long long *s,
                         unsigned long long *u, char *why, size_t size) {
  char *end = NULL;
  errno = 0;
  if (k->kind == INT) {
    *s = strtoll(value, &end, 10);
  } else {
    if (*value == '-' || *value == '+') {
      snprintf(why, size, "'%s' is not a count", value);
      return false;
    }
    *u = strtoull(value, &end, 10);
  }
  if (end == value || *end || errno == ERANGE || (*value < '0' && *value != '-') ||
      *value > '9') {
    snprintf(why, size, "'%s' is not a%s number", value, k->kind == INT ? "n integer" : " whole");
    return false;
  }
  if (k->kind == INT ? *s < k->least || *s > (long long)k->most : *u > k->most) {
    snprintf(why, size, "%s is out of its range (%lld to %llu)", value,
             k->kind == INT ? k->least : 0, k->most);
    return false;
  }
  return true;
}

/* A text value: printable, and of a length its field holds. */
static bool text_ok(const char *value, size_t room, char *why, size_t size) {
  if (strlen(value) >= room) {
    snprintf(why, size, "longer than %zu bytes", room - 1);
    return false;
  }
  for (const unsigned char *c = (const unsigned char *)value; *c; c++)
    if (*c < 0x20 || *c == 0x7f) {
      snprintf(why, size, "a control character (0x%02x) at byte %zu", *c,
               (size_t)(c - (const unsigned char *)value));
      return false;
    }
  return true;
}

/* Stores a checked value; false (why said) when it does not fit its field. */
static bool store(struct run_record *r, const struct key *k, const char *value, char *why,
                  size_t size) {
  long long s = 0;
  unsigned long long u = 0;
  const char *name = k->name;
  if (k->kind == TEXT) {
    char *dst = !strcmp(name, "command")       ? r->command
                : !strcmp(name, "status")      ? r->status
                : !strcmp(name, "daemon_home") ? r->daemon_home
                                               : r->daemon_host;
    size_t room = !strcmp(name, "command")       ? sizeof r->command
                  : !strcmp(name, "status")      ? sizeof r->status
                  : !strcmp(name, "daemon_home") ? sizeof r->daemon_home
                                                 : sizeof r->daemon_host;
    if (!text_ok(value, room, why, size))
      return false;
    snprintf(dst, room, "%s", value);
    return true;
  }
  if (k->kind == PARTIAL) {
    r->partial_reason = !strcmp(value, "max-size")    ? RUN_PARTIAL_MAX_SIZE
                        : !strcmp(value, "disk-full") ? RUN_PARTIAL_DISK_FULL
                                                      : RUN_PARTIAL_NONE;
    if (r->partial_reason == RUN_PARTIAL_NONE)
      snprintf(why, size, "'%s' is neither max-size nor disk-full", value);
    return r->partial_reason != RUN_PARTIAL_NONE;
  }
  if (!parse_number(k, value, &s, &u, why, size))
    return false;
  if (!strcmp(name, "exit_code")) r->exit_code = (int)s;
  else if (!strcmp(name, "discarded_events")) r->discarded_events = u;
  else if (!strcmp(name, "lost_packets")) r->lost_packets = u;
  else if (!strcmp(name, "wall_ns")) r->wall_ns = u;
  else if (!strcmp(name, "event_ps")) r->event_ps = u;
  else if (!strcmp(name, "byte_ps")) r->byte_ps = u;
  else if (!strcmp(name, "call_ps")) r->call_ps = u;
  else if (!strcmp(name, "partial_at_ns")) r->partial_at_ns = u;
  else if (!strcmp(name, "kept_bytes")) r->kept_bytes = u;
  else if (!strcmp(name, "partial_counting")) r->partial_counting = u != 0;
  else if (!strcmp(name, "job_ranks")) r->job_ranks = (long)s;
  else if (!strcmp(name, "clock_read_least")) r->clock_read_least = u;
  else if (!strcmp(name, "tracer_pid")) r->tracer_pid = (long)s;
  else if (!strcmp(name, "app_pid")) r->app_pid = (long)s;
  else if (!strcmp(name, "ended_at_ns")) r->ended_at_ns = u;
  else if (!strcmp(name, "processes_left")) r->processes_left = (long)s;
  else if (!strcmp(name, "runtime_calls")) r->runtime_calls = u != 0;
  return true;
}

/* The exit code a status line gives (-1: the end was not seen), or INT_MIN when it is
 * none of the forms the tracer writes (launch_describe_status). */
static int status_code(const char *status) {
  int n = 0, used = 0;
  if (sscanf(status, "exited with status %d%n", &n, &used) == 1 && !status[used])
    return n;
  if (sscanf(status, "killed by signal %d (%*[^)])%n", &n, &used) == 1 &&
      (!status[used] || !strcmp(status + used, ", core dumped")))
    return 128 + n;
  if (sscanf(status, "stopped by signal %d (%*[^)])%n", &n, &used) == 1 && !status[used])
    return 128 + n;
  if (!strncmp(status, "end was not seen", 16))
    return -1;
  if (!strncmp(status, "ended with unknown wait status", 30))
    return 0; /* any code: not checked */
  return INT_MIN;
}

static void bad(struct diag *d, const char *path, unsigned line, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
static void bad(struct diag *d, const char *path, unsigned line, const char *format, ...) {
  if (!d)
    return;
  char message[768];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  diag_error(d, "%s:%u: %s", path, line, message);
}

int run_record_load(const char *trace_dir, struct run_record *r, struct diag *problems) {
  memset(r, 0, sizeof *r);
  char path[4096];
  snprintf(path, sizeof path, "%s/" RUN_RECORD_FILE, trace_dir);
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  unsigned line_of[KEY_COUNT] = {0};
  int bad_lines = 0;
  char line[2048];
  unsigned number = 0;
  while (fgets(line, sizeof line, f)) {
    number++;
    size_t len = strlen(line);
    bool whole = len && line[len - 1] == '\n';
    if (!whole && !feof(f)) { /* longer than any line the tracer writes */
      bad(problems, path, number, "Cannot use the line: longer than %zu bytes", sizeof line - 2);
      bad_lines++;
      int c;
      while ((c = fgetc(f)) != EOF && c != '\n')
        ;
      continue;
    }
    if (whole)
      line[--len] = '\0';
    char *sep = strstr(line, ": ");
    if (!sep) {
      bad(problems, path, number, "Cannot use the line: not `key: value`");
      bad_lines++;
      continue;
    }
    *sep = '\0';
    const char *value = sep + 2;
    size_t k = key_of(line);
    char why[256] = "";
    if (k == KEY_COUNT)
      snprintf(why, sizeof why, "no such key");
    else if (line_of[k])
      snprintf(why, sizeof why, "given already on line %u", line_of[k]);
    else if (store(r, &keys[k], value, why, sizeof why))
      line_of[k] = number;
    if (why[0]) {
      bad(problems, path, number, "Cannot use %s: %s", line, why);
      bad_lines++;
    }
  }
  fclose(f);
  /* What the lines say of each other: how the app ended, in two lines that must agree;
   * one of them alone gives the other. */
  size_t exit_key = key_of("exit_code"), status_key = key_of("status");
  size_t at_key = key_of("partial_at_ns"), wall_key = key_of("wall_ns");
  int code = line_of[status_key] ? status_code(r->status) : INT_MIN;
  if (line_of[status_key] && line_of[exit_key]) {
    if (code == INT_MIN || (code != r->exit_code && strncmp(r->status, "ended with", 10))) {
      bad(problems, path, line_of[exit_key], "Cannot use exit_code %d with status '%s' (line "
                                             "%u): they disagree; how the app ended is unknown",
          r->exit_code, r->status, line_of[status_key]);
      r->status[0] = '\0';
      bad_lines++;
    }
  } else if (line_of[status_key]) {
    if (code == INT_MIN) {
      bad(problems, path, line_of[status_key], "Cannot use status '%s': not how the tracer "
                                               "says an app ended, and no exit_code line",
          r->status);
      r->status[0] = '\0';
      bad_lines++;
    }
    r->exit_code = code == INT_MIN ? 0 : code;
  } else if (line_of[exit_key]) {
    if (r->exit_code < 0)
      snprintf(r->status, sizeof r->status, "end was not seen (the tracer was stopped before it)");
    else
      snprintf(r->status, sizeof r->status, "ended with exit code %d", r->exit_code);
  }
  if (line_of[at_key] && line_of[wall_key] && r->partial_at_ns > r->wall_ns) {
    bad(problems, path, line_of[at_key], "Cannot use partial_at_ns %llu: after the app's end "
                                         "(wall_ns %llu, line %u)",
        (unsigned long long)r->partial_at_ns, (unsigned long long)r->wall_ns,
        line_of[wall_key]);
    r->partial_at_ns = 0;
    bad_lines++;
  }
  if (!r->status[0])
    r->exit_code = 0;
  snprintf(r->path, sizeof r->path, "%s", path);
  r->wall_ns_line = line_of[wall_key];
  r->present = r->status[0] != '\0';
  r->clean = r->present && strcmp(r->status, "exited with status 0") == 0;
  return bad_lines;
}

void run_record_read(const char *trace_dir, struct run_record *r) {
  run_record_load(trace_dir, r, NULL);
}
