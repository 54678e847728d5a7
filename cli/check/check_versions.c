/* check_versions: the LTTng parts a run uses (lttng-ust in the app, lttng-tools' session
 * daemon, liblttng-ctl in the tracer), babeltrace2, which reads traces with other tools,
 * libotf2, which --otf2 loads, and libjansson, which tracer diff loads for JSON results. Versions are those the programs report, or the build's where a library has no
 * way to say (lttng-ust). */
#include <stdlib.h>
#include <string.h>

#include "check_report.h"
#include "jansson_library.h"
#include "otf2_library.h"
#include "path_search.h"

#ifndef TRACER_CHECK_UST_VERSION
#define TRACER_CHECK_UST_VERSION "?"
#endif
#ifndef TRACER_CHECK_CTL_VERSION
#define TRACER_CHECK_CTL_VERSION "?"
#endif

/* The apps load lttng-ust through the tracer's runtime library: ldd says which one. */
static void check_ust(struct check_report *report, const struct check_request *request) {
  char *runtime = request->find_library("runtime");
  if (!runtime) {
    check_say(report, CHECK_FAIL, "lttng-ust", "libtracer_runtime.so is not beside the tracer");
    return;
  }
  bool missing = false;
  char *ust = check_dependency_path(runtime, "liblttng-ust.so.1", &missing);
  if (ust && !missing)
    check_say(report, CHECK_OK, "lttng-ust", "%s (built against %s)", ust,
              TRACER_CHECK_UST_VERSION);
  else if (ust)
    check_say(report, CHECK_FAIL, "lttng-ust",
              "%s found, but a library %s needs is not (ldd %s)", ust, runtime, runtime);
  else
    check_say(report, CHECK_FAIL, "lttng-ust",
              "liblttng-ust.so.1 not found (install liblttng-ust1, built against %s)",
              TRACER_CHECK_UST_VERSION);
  free(ust);
  free(runtime);
}

/* The daemon a run would start: LTTNG_SESSIOND_PATH, else lttng-sessiond in PATH. */
static void check_tools(struct check_report *report) {
  const char *configured = getenv("LTTNG_SESSIOND_PATH");
  const char *name = configured && *configured ? configured : "lttng-sessiond";
  char *path = NULL;
  int err = 0;
  if (path_search_executable(name, &path, &err) != PATH_SEARCH_FOUND) {
    /* Not fatal by itself: a daemon already running serves the job. */
    check_say(report, CHECK_WARN, "lttng-tools",
              "%s not found (%s): no session daemon can be started (install lttng-tools)",
              name, configured && *configured ? "LTTNG_SESSIOND_PATH" : "not in PATH");
    return;
  }
  char *version = check_version_line(path);
  check_say(report, CHECK_OK, "lttng-tools", "lttng-sessiond %s (%s); liblttng-ctl %s (built against)",
            version ? version : "(version unknown)", path, TRACER_CHECK_CTL_VERSION);
  free(version);
  free(path);
}

/* Optional: the tracer reads traces itself; babeltrace2 is the reference reader. */
static void check_babeltrace(struct check_report *report) {
  char *path = NULL;
  int err = 0;
  if (path_search_executable("babeltrace2", &path, &err) != PATH_SEARCH_FOUND) {
    check_say(report, CHECK_INFO, "babeltrace2",
              "not in PATH (optional: to read traces with other tools)");
    return;
  }
  char *line = check_version_line(path);
  /* "Babeltrace 2.0.4 "Amqui"": the version is the second word. */
  char version[64] = "";
  if (line && strncmp(line, "Babeltrace ", 11) == 0)
    snprintf(version, sizeof version, "%.*s", (int)strcspn(line + 11, " "), line + 11);
  check_say(report, CHECK_OK, "babeltrace2", "%s (%s)", version[0] ? version : "(version unknown)",
            path);
  free(line);
  free(path);
}

/* Optional: libotf2, which the tracer loads for --otf2 alone (otf2_library.h). */
static void check_otf2(struct check_report *report) {
  struct diag d;
  diag_init(&d);
  if (otf2_library_load(&d) == 0)
    check_say(report, CHECK_OK, "otf2", "%s (loaded for --otf2 only)", otf2_library_soname());
  else
    check_say(report, CHECK_INFO, "otf2", "--otf2 cannot be used: %s",
              d.count ? d.causes[0].message : "libotf2 cannot be loaded");
  diag_clear(&d);
}

/* Optional: libjansson, which tracer diff loads for JSON results alone
 * (jansson_library.h). */
static void check_jansson(struct check_report *report) {
  struct diag d;
  diag_init(&d);
  if (jansson_library_load(&d) == 0)
    check_say(report, CHECK_OK, "jansson", "%s (loaded for tracer diff of JSON results only)",
              jansson_library_soname());
  else
    check_say(report, CHECK_INFO, "jansson", "tracer diff cannot read JSON results: %s",
              d.count ? d.causes[0].message : "libjansson cannot be loaded");
  diag_clear(&d);
}

void check_versions(struct check_report *report, const struct check_request *request) {
  check_ust(report, request);
  check_tools(report);
  check_babeltrace(report);
  check_otf2(report);
  check_jansson(report);
}
