/* run_record: see run_record.h. */
#include "run_record.h"

#include <inttypes.h>
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

static void copy_value(char *dst, size_t size, const char *src) {
  snprintf(dst, size, "%s", src);
  dst[strcspn(dst, "\n")] = '\0';
}

void run_record_read(const char *trace_dir, struct run_record *r) {
  memset(r, 0, sizeof *r);
  char path[4096];
  snprintf(path, sizeof path, "%s/" RUN_RECORD_FILE, trace_dir);
  FILE *f = fopen(path, "r");
  if (!f)
    return;
  char line[2048];
  while (fgets(line, sizeof line, f)) {
    char *sep = strstr(line, ": ");
    if (!sep)
      continue;
    *sep = '\0';
    const char *value = sep + 2;
    if (strcmp(line, "command") == 0)
      copy_value(r->command, sizeof r->command, value);
    else if (strcmp(line, "status") == 0)
      copy_value(r->status, sizeof r->status, value);
    else if (strcmp(line, "exit_code") == 0)
      r->exit_code = atoi(value);
    else if (strcmp(line, "discarded_events") == 0)
      r->discarded_events = strtoull(value, NULL, 10);
    else if (strcmp(line, "lost_packets") == 0)
      r->lost_packets = strtoull(value, NULL, 10);
    else if (strcmp(line, "wall_ns") == 0)
      r->wall_ns = strtoull(value, NULL, 10);
    else if (strcmp(line, "event_ps") == 0)
      r->event_ps = strtoull(value, NULL, 10);
    else if (strcmp(line, "byte_ps") == 0)
      r->byte_ps = strtoull(value, NULL, 10);
    else if (strcmp(line, "call_ps") == 0)
      r->call_ps = strtoull(value, NULL, 10);
    else if (strcmp(line, "daemon_home") == 0)
      copy_value(r->daemon_home, sizeof r->daemon_home, value);
    else if (strcmp(line, "daemon_host") == 0)
      copy_value(r->daemon_host, sizeof r->daemon_host, value);
    else if (strcmp(line, "partial") == 0)
      r->partial_reason = strncmp(value, "max-size", 8) == 0    ? RUN_PARTIAL_MAX_SIZE
                          : strncmp(value, "disk-full", 9) == 0 ? RUN_PARTIAL_DISK_FULL
                                                                : RUN_PARTIAL_NONE;
    else if (strcmp(line, "partial_at_ns") == 0)
      r->partial_at_ns = strtoull(value, NULL, 10);
    else if (strcmp(line, "kept_bytes") == 0)
      r->kept_bytes = strtoull(value, NULL, 10);
    else if (strcmp(line, "partial_counting") == 0)
      r->partial_counting = atoi(value) != 0;
    else if (strcmp(line, "job_ranks") == 0)
      r->job_ranks = strtol(value, NULL, 10);
    else if (strcmp(line, "clock_read_least") == 0)
      r->clock_read_least = strtoull(value, NULL, 10);
    else if (strcmp(line, "tracer_pid") == 0)
      r->tracer_pid = strtol(value, NULL, 10);
    else if (strcmp(line, "app_pid") == 0)
      r->app_pid = strtol(value, NULL, 10);
    else if (strcmp(line, "ended_at_ns") == 0)
      r->ended_at_ns = strtoull(value, NULL, 10);
    else if (strcmp(line, "processes_left") == 0)
      r->processes_left = strtol(value, NULL, 10);
    else if (strcmp(line, "runtime_calls") == 0)
      r->runtime_calls = atoi(value) != 0;
  }
  fclose(f);
  r->present = r->status[0] != '\0';
  r->clean = r->present && strcmp(r->status, "exited with status 0") == 0;
}
