/* tracer_notice: see tracer_notice.h. */
#include "tracer_notice.h"

#include <dlfcn.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer_runtime.h"
#include "tracer_tracepoints.h"

void tracer_notice(const char *backend, const char *fmt, ...) {
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  tracer_debug("notice (%s): %s", backend, text);
  lttng_ust_tracepoint(lttng_ust_tracer, notice, tracer_pid(), tracer_tid(), backend, text);
}

/* The objects a thread's calls came from lately, with the verdict on each: a collector
 * is called from a handful of places, and dladdr is too dear for every call. The
 * default TLS model: the runtime may arrive with a dlopen'd collector. */
enum { CALLER_OBJECTS = 4 };
static __thread struct caller_object {
  const struct tracer_runtime_callers *callers;
  struct tracer_code code;
  bool runtime;
  char name[64]; /* the file's base name, for the notice */
} recent[CALLER_OBJECTS];
static __thread unsigned next_slot;

static int record_runtime_calls = -1; /* TRACER_RUNTIME_CALLS, read once */

static const struct caller_object *object_of(const struct tracer_runtime_callers *callers,
                                             const void *caller) {
  for (unsigned i = 0; i < CALLER_OBJECTS; i++)
    if (recent[i].callers == callers && tracer_code_contains(&recent[i].code, caller))
      return &recent[i];
  struct caller_object *o = &recent[next_slot++ % CALLER_OBJECTS];
  memset(o, 0, sizeof *o);
  Dl_info info;
  if (!dladdr(caller, &info) || !info.dli_fname)
    return NULL;
  const char *base = strrchr(info.dli_fname, '/');
  base = base ? base + 1 : info.dli_fname;
  for (size_t i = 0; callers->patterns[i] && !o->runtime; i++)
    o->runtime = fnmatch(callers->patterns[i], base, 0) == 0;
  snprintf(o->name, sizeof o->name, "%s", base);
  tracer_code_of(caller, &o->code);
  o->callers = callers;
  return o;
}

bool tracer_caller_is_runtime(struct tracer_runtime_callers *callers, const void *caller) {
  if (!callers->patterns[0])
    return false;
  int all = __atomic_load_n(&record_runtime_calls, __ATOMIC_RELAXED);
  if (all < 0) {
    const char *v = getenv("TRACER_RUNTIME_CALLS");
    all = v && *v && strcmp(v, "0") != 0;
    __atomic_store_n(&record_runtime_calls, all, __ATOMIC_RELAXED);
  }
  if (all)
    return false;
  const struct caller_object *o = object_of(callers, caller);
  if (!o || !o->runtime)
    return false;
  if (!__atomic_exchange_n(&callers->noticed, 1, __ATOMIC_RELAXED))
    tracer_notice(callers->backend,
                  "%s calls %s for its own tools: those calls are not recorded "
                  "(tracer --runtime-calls records them)",
                  o->name, callers->api);
  return true;
}
