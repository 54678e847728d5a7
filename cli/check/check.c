/* check: `tracer --check`, the report and its verdict (check.h). */
#include "check.h"

#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "check_report.h"

static const char *const level_names[] = {
    [CHECK_OK] = "ok", [CHECK_INFO] = "info", [CHECK_WARN] = "warn", [CHECK_FAIL] = "FAIL"};

void check_say(struct check_report *report, enum check_level level, const char *topic,
               const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(report->out, "  %-5s %-15s ", level_names[level], topic);
  vfprintf(report->out, fmt, ap);
  fputc('\n', report->out);
  va_end(ap);
  if (level == CHECK_FAIL)
    report->failed = true;
}

enum check_exit check_run(const struct check_request *request, FILE *out) {
  struct check_report report = {.out = out};
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  fprintf(out, "tracer %s on %s, user id %ld\n", request->version, host, (long)geteuid());
  /* --trace-output names the run's own folder, which must be new or empty: the check
   * works beside it. */
  char parent[PATH_MAX];
  const char *trace_dir = request->trace_home;
  if (request->trace_output) {
    snprintf(parent, sizeof parent, "%s", request->trace_output);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent)
      *slash = '\0';
    else
      snprintf(parent, sizeof parent, "%s", slash ? "/" : ".");
    trace_dir = parent;
  }
  check_versions(&report, request);
  check_session_and_clock(&report, request, trace_dir);
  check_backends(&report, request);
  check_mpi(&report);
  check_space(&report, trace_dir);
  fprintf(out, report.failed ? "A trace would not work here: see the FAIL lines.\n"
                             : "A trace would work here.\n");
  fflush(out);
  return report.failed ? CHECK_TRACE_WOULD_FAIL : CHECK_TRACE_WOULD_WORK;
}
