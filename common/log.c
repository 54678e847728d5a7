/* log: see log.h. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>

static const char *program_name = "tracer";
static enum log_level shown = LOG_INFO;

void log_setup(const char *program, enum log_level level) {
  program_name = program;
  shown = level;
}

enum log_level log_level(void) { return shown; }

bool log_enabled(enum log_level level) { return level <= shown; }

static void say(enum log_level level, const char *label, const char *fmt, va_list ap) {
  if (!log_enabled(level))
    return;
  fprintf(stderr, "%s: %s", program_name, label);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void log_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  say(LOG_ERROR, "error: ", fmt, ap);
  va_end(ap);
}

void log_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  say(LOG_WARN, "", fmt, ap);
  va_end(ap);
}

void log_info(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  say(LOG_INFO, "", fmt, ap);
  va_end(ap);
}

void log_debug(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  say(LOG_DEBUG, "debug: ", fmt, ap);
  va_end(ap);
}

void log_diag(const struct diag *d, const char *prefix) {
  char chain[4096];
  diag_join(d, chain, sizeof chain);
  if (prefix && chain[0])
    log_error("%s: %s", prefix, chain);
  else
    log_error("%s", prefix && !chain[0] ? prefix : chain);
}
