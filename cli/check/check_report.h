/* check_report: the lines of `tracer --check` and the verdict they add up to. Internal to
 * the check module; each check_*.c adds its findings through check_say(). */
#ifndef TRACER_CHECK_REPORT_H
#define TRACER_CHECK_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "check.h"

enum check_level {
  CHECK_OK,   /* as a run needs it */
  CHECK_INFO, /* worth knowing, changes nothing */
  CHECK_WARN, /* a trace works, but maybe not as wanted */
  CHECK_FAIL, /* a trace would not work */
};

struct check_report {
  FILE *out;
  bool failed;
};

/* One finding: "  LEVEL  TOPIC  DETAIL". A CHECK_FAIL makes the verdict negative. */
void check_say(struct check_report *report, enum check_level level, const char *topic,
               const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The parts of the check, in the order of the report. */
void check_versions(struct check_report *report, const struct check_request *request);
void check_session_and_clock(struct check_report *report, const struct check_request *request,
                             const char *trace_dir);
void check_backends(struct check_report *report, const struct check_request *request);
void check_mpi(struct check_report *report);
void check_space(struct check_report *report, const char *trace_dir);

/* Runs argv (argv[0] a path) with its output and errors captured; returns them
 * (malloc'd, NUL-terminated, possibly empty), or NULL when it could not be run. */
char *check_command_output(const char *const argv[]);
/* Where the dynamic loader finds soname for library (through ldd, so nothing is loaded),
 * malloc'd, or NULL; *missing says whether any of its dependencies is not found. */
char *check_dependency_path(const char *library, const char *soname, bool *missing);
/* The first line of `program --version` (program a path), malloc'd, or NULL. */
char *check_version_line(const char *program);

#endif
