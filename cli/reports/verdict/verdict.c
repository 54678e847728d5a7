/* verdict: see verdict.h. */
#include "verdict.h"

#include <string.h>

#include "backends.h"
#include "gaps.h"
#include "run_record.h"
#include "tally.h"
#include "units.h"

/* Thresholds of the rules (verdict.h), as shares of the wall time. */
#define DEVICE_BOUND 0.5
#define CALLS_BOUND 0.25

static uint64_t host_ns(const struct tally_backend *b) {
  uint64_t ns = 0;
  for (uint32_t f = 0; f < b->function_count; f++)
    ns += b->host[f].total;
  return ns;
}

/* A backend whose calls move messages (the spec's trace.messages): MPI, NCCL. */
static bool communicates(const struct tally_backend *b) {
  for (uint32_t f = 0; f < b->desc->function_count; f++)
    if (b->desc->functions[f].message.kind != TRACER_MESSAGE_NONE)
      return true;
  return false;
}

static uint64_t wall_of(const struct run_record *run, const struct gap_report *gaps) {
  if (run && run->wall_ns)
    return run->wall_ns;
  return gaps && gaps->run_end > gaps->run_start ? gaps->run_end - gaps->run_start : 0;
}

static void device_name(const struct gap_device *d, char *out, size_t size) {
  snprintf(out, size, "%s on %s", d->label, d->host);
}

void verdict_make(const struct tally *t, const struct run_record *run,
                  const struct gap_report *gaps, struct verdict *v) {
  static char what[160];
  memset(v, 0, sizeof *v);
  v->wall_ns = wall_of(run, gaps);
  if (!v->wall_ns) {
    v->bound = VERDICT_UNKNOWN;
    return;
  }
  double wall = (double)v->wall_ns;
  double calls = 0, comm = 0, device = 0;
  const struct tally_backend *calls_b = NULL, *comm_b = NULL;
  const struct gap_device *device_d = NULL;
  for (size_t i = 0; i < t->backend_count; i++) {
    const struct tally_backend *b = &t->backends[i];
    double share = (double)host_ns(b) / wall;
    if (communicates(b) && share > comm)
      comm = share, comm_b = b;
    else if (!communicates(b) && share > calls)
      calls = share, calls_b = b;
  }
  for (size_t i = 0; gaps && i < gaps->device_count; i++) {
    double share = (double)gaps->devices[i].busy / wall;
    if (share > device)
      device = share, device_d = &gaps->devices[i];
  }
  if (device_d && device >= DEVICE_BOUND && device >= calls && device >= comm) {
    v->bound = device_d->copies > device_d->kernels ? VERDICT_TRANSFERS : VERDICT_DEVICE;
    device_name(device_d, what, sizeof what);
    v->share = device;
  } else if (comm_b && comm >= CALLS_BOUND && comm >= calls) {
    v->bound = VERDICT_COMMUNICATION;
    backends_title(comm_b->desc, what, sizeof what);
    v->share = comm;
  } else if (calls_b && calls >= CALLS_BOUND) {
    v->bound = VERDICT_HOST_API;
    backends_title(calls_b->desc, what, sizeof what);
    v->share = calls;
  } else {
    v->bound = VERDICT_NONE;
    v->share = calls > comm ? calls : comm;
    if (device > v->share)
      v->share = device;
  }
  v->what = what;
}

void verdict_print_text(const struct tally *t, const struct run_record *run,
                        const struct gap_report *gaps, FILE *out) {
  struct verdict v;
  verdict_make(t, run, gaps, &v);
  if (v.bound == VERDICT_UNKNOWN)
    return; /* no wall time: the tables say it all */
  char wall[32];
  units_time(v.wall_ns, wall, sizeof wall);
  /* Where the time went: each backend with host calls, each device, by share. */
  fprintf(out, "Where the %s went:", wall);
  const char *sep = " ";
  for (size_t i = 0; i < t->backend_count; i++) {
    uint64_t ns = host_ns(&t->backends[i]);
    if (!ns)
      continue;
    char label[64];
    backends_title(t->backends[i].desc, label, sizeof label);
    fprintf(out, "%s%s host calls %.1f%%", sep, label, 100.0 * (double)ns / (double)v.wall_ns);
    sep = ", ";
  }
  for (size_t i = 0; gaps && i < gaps->device_count; i++) {
    const struct gap_device *d = &gaps->devices[i];
    char name[160];
    device_name(d, name, sizeof name);
    double busy = 100.0 * (double)d->busy / (double)v.wall_ns;
    fprintf(out, "%s%s busy %.1f%% (kernels %.1f%%, copies %.1f%%), idle %.1f%%", sep, name,
            busy, 100.0 * (double)d->kernels / (double)v.wall_ns,
            100.0 * (double)d->copies / (double)v.wall_ns, busy < 100 ? 100 - busy : 0.0);
    sep = ", ";
  }
  if (*sep == ' ')
    fputs(" no traced call or device work took measurable time", out);
  fputs(".\n", out);
  switch (v.bound) {
  case VERDICT_DEVICE:
    fprintf(out, "Verdict: device-bound: the %s is busy %.1f%% of the run.\n\n", v.what,
            100 * v.share);
    break;
  case VERDICT_TRANSFERS:
    fprintf(out, "Verdict: transfer-bound: the %s is busy %.1f%% of the run, copies more than "
                 "kernels.\n\n",
            v.what, 100 * v.share);
    break;
  case VERDICT_COMMUNICATION:
    fprintf(out, "Verdict: communication-bound: %s calls take %.1f%% of the run.\n\n", v.what,
            100 * v.share);
    break;
  case VERDICT_HOST_API:
    fprintf(out, "Verdict: host-API-bound: %s calls take %.1f%% of the run.\n\n", v.what,
            100 * v.share);
    break;
  default:
    fprintf(out, "Verdict: none of the traced APIs bounds the run: %.1f%% at most in one of "
                 "them; the rest is the app's own work.\n\n",
            100 * v.share);
    break;
  }
}
