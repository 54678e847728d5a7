/* verdict: see verdict.h. */
#include "verdict.h"

#include <string.h>

#include "backends.h"
#include "gaps.h"
#include "run_record.h"
#include "tally.h"
#include "trace_window.h"
#include "units.h"

/* Thresholds of the rules (verdict.h), as shares of the run after start-up. */
#define DEVICE_BOUND 0.5
#define CALLS_BOUND 0.25

/* A backend whose calls move messages (the spec's trace.messages): MPI, NCCL. */
static bool communicates(const struct tracer_backend_desc *desc) {
  for (uint32_t f = 0; f < desc->function_count; f++)
    if (desc->functions[f].message.kind != TRACER_MESSAGE_NONE)
      return true;
  return false;
}

static struct verdict_backend *backend_of(struct verdict_inputs *in,
                                          const struct tracer_backend_desc *desc) {
  for (size_t i = 0; i < in->backend_count; i++)
    if (in->backends[i].desc == desc)
      return &in->backends[i];
  if (in->backend_count == VERDICT_BACKENDS)
    return NULL;
  struct verdict_backend *b = &in->backends[in->backend_count++];
  *b = (struct verdict_backend){desc, 0, communicates(desc)};
  return b;
}

void verdict_add_call(struct verdict_inputs *in, const struct tracer_backend_desc *desc,
                      uint32_t f, uint64_t ns) {
  switch (f < desc->function_count ? desc->functions[f].role : TRACER_ROLE_NONE) {
  case TRACER_ROLE_SETUP: in->startup_ns += ns; break;
  case TRACER_ROLE_WAITS_DEVICE: in->wait_device_ns += ns; break;
  case TRACER_ROLE_WAITS_PEER: in->wait_peer_ns += ns; break;
  default: {
    struct verdict_backend *b = backend_of(in, desc);
    if (b)
      b->work_ns += ns;
  }
  }
}

void verdict_merge(struct verdict_inputs *into, const struct verdict_inputs *from) {
  into->startup_ns += from->startup_ns;
  into->wait_device_ns += from->wait_device_ns;
  into->wait_peer_ns += from->wait_peer_ns;
  for (size_t i = 0; i < from->backend_count; i++) {
    struct verdict_backend *b = backend_of(into, from->backends[i].desc);
    if (b)
      b->work_ns += from->backends[i].work_ns;
  }
}

static uint64_t wall_of(const struct run_record *run, const struct gap_report *gaps,
                        const struct trace_window *window) {
  if (window)
    return trace_window_longest_ns(window);
  if (run && run->wall_ns)
    return run->wall_ns;
  return gaps && gaps->run_end > gaps->run_start ? gaps->run_end - gaps->run_start : 0;
}

static void inputs_of(const struct tally *t, const struct run_record *run,
                      const struct gap_report *gaps, const struct trace_window *window,
                      struct verdict_inputs *in) {
  memset(in, 0, sizeof *in);
  in->wall_ns = wall_of(run, gaps, window);
  for (size_t i = 0; i < t->backend_count; i++) {
    const struct tally_backend *b = &t->backends[i];
    /* A result from before depth-0 times were kept (a job's older files): every call. */
    bool any_outer = false;
    for (uint32_t f = 0; f < b->function_count && !any_outer; f++)
      any_outer = b->outer[f] != 0;
    for (uint32_t f = 0; f < b->function_count; f++) {
      uint64_t ns = any_outer ? b->outer[f] : b->host[f].total;
      if (ns)
        verdict_add_call(in, b->desc, f, ns);
    }
  }
  for (size_t i = 0; gaps && i < gaps->device_count && in->device_count < VERDICT_DEVICES; i++) {
    const struct gap_device *d = &gaps->devices[i];
    struct verdict_device *out = &in->devices[in->device_count++];
    snprintf(out->name, sizeof out->name, "%s on %s", d->label, d->host);
    out->busy = d->busy;
    out->kernels = d->kernels;
    out->copies = d->copies;
    out->communication = d->communication;
  }
}

void verdict_weigh(const struct verdict_inputs *in, struct verdict *v) {
  static char what[200];
  memset(v, 0, sizeof *v);
  v->wall_ns = in->wall_ns;
  v->startup_ns = in->startup_ns < in->wall_ns ? in->startup_ns : 0;
  v->wait_device_ns = in->wait_device_ns;
  v->wait_peer_ns = in->wait_peer_ns;
  if (!v->wall_ns) {
    v->bound = VERDICT_UNKNOWN;
    return;
  }
  double run = (double)(v->wall_ns - v->startup_ns);
  double calls = 0, comm_work = 0, comm = 0, device = 0;
  const struct verdict_backend *calls_b = NULL, *comm_b = NULL;
  for (size_t i = 0; i < in->backend_count; i++) {
    const struct verdict_backend *b = &in->backends[i];
    double share = (double)b->work_ns / run;
    if (b->communicates) {
      comm += share;
      if (share > comm_work)
        comm_work = share, comm_b = b;
    } else if (share > calls) {
      calls = share, calls_b = b;
    }
  }
  comm += (double)in->wait_peer_ns / run;
  const struct verdict_device *device_d = NULL;
  for (size_t i = 0; i < in->device_count; i++) {
    double share = (double)in->devices[i].busy / run;
    if (share > device)
      device = share, device_d = &in->devices[i];
  }
  /* The host waiting for the devices is their time too (where their own times are not
   * measured, the only sign of them). */
  double waiting = (double)in->wait_device_ns / run;
  bool by_waits = waiting > device;
  if (by_waits)
    device = waiting;
  if (device >= DEVICE_BOUND && device >= calls && device >= comm) {
    if (by_waits) {
      v->bound = VERDICT_DEVICE_WAITS;
      snprintf(what, sizeof what, "devices");
    } else if (device_d) {
      uint64_t compute = device_d->kernels > device_d->communication
                             ? device_d->kernels - device_d->communication
                             : 0;
      v->bound = device_d->communication > compute ? VERDICT_DEVICE_COMMUNICATION
                 : device_d->copies > device_d->kernels ? VERDICT_TRANSFERS
                                                        : VERDICT_DEVICE;
      snprintf(what, sizeof what, "%s", device_d->name);
    }
    v->share = device;
  } else if (comm >= CALLS_BOUND && comm >= calls) {
    v->bound = VERDICT_COMMUNICATION;
    if (comm_b)
      backends_title(comm_b->desc, what, sizeof what);
    else
      snprintf(what, sizeof what, "waits for peers");
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

void verdict_make(const struct tally *t, const struct run_record *run,
                  const struct gap_report *gaps, const struct trace_window *window,
                  struct verdict *v) {
  struct verdict_inputs in;
  inputs_of(t, run, gaps, window, &in);
  verdict_weigh(&in, v);
}

static double pct(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void verdict_print_inputs(const struct verdict_inputs *in, const char *title, FILE *out) {
  struct verdict v;
  verdict_weigh(in, &v);
  if (v.bound == VERDICT_UNKNOWN)
    return; /* no wall time: the tables say it all */
  char wall[32];
  units_time(v.wall_ns, wall, sizeof wall);
  /* Where the time went: start-up, each backend's host work, the waits, each device. */
  fprintf(out, "Where the %s%s went:", wall, title);
  const char *sep = " ";
  /* Start-up is said where the run made set-up calls; under 0.05% of the run it reads
   * "<0.1%", not "0.0%" (as if there were none), and the run after it is the whole run. */
  bool startup = pct(v.startup_ns, v.wall_ns) >= 0.05;
  if (startup) {
    fprintf(out, "%sstart-up %.1f%% (set-up calls)", sep, pct(v.startup_ns, v.wall_ns));
    sep = ", ";
  } else if (v.startup_ns) {
    fprintf(out, "%sstart-up <0.1%% (set-up calls)", sep);
    sep = ", ";
  }
  for (size_t i = 0; i < in->backend_count; i++) {
    if (!in->backends[i].work_ns)
      continue;
    char label[64];
    backends_title(in->backends[i].desc, label, sizeof label);
    fprintf(out, "%s%s host calls %.1f%%", sep, label, pct(in->backends[i].work_ns, v.wall_ns));
    sep = ", ";
  }
  if (v.wait_device_ns) {
    fprintf(out, "%swaiting for devices %.1f%%", sep, pct(v.wait_device_ns, v.wall_ns));
    sep = ", ";
  }
  if (v.wait_peer_ns) {
    fprintf(out, "%swaiting for peers %.1f%%", sep, pct(v.wait_peer_ns, v.wall_ns));
    sep = ", ";
  }
  for (size_t i = 0; i < in->device_count; i++) {
    const struct verdict_device *d = &in->devices[i];
    double busy = pct(d->busy, v.wall_ns);
    fprintf(out, "%s%s busy %.1f%% (kernels %.1f%%", sep, d->name, busy, pct(d->kernels, v.wall_ns));
    if (d->communication)
      fprintf(out, " of which communication %.1f%%", pct(d->communication, v.wall_ns));
    fprintf(out, ", copies %.1f%%), idle %.1f%%", pct(d->copies, v.wall_ns),
            busy < 100 ? 100 - busy : 0.0);
    sep = ", ";
  }
  if (*sep == ' ')
    fputs(" no traced call or device work took measurable time", out);
  fputs(".\n", out);
  char after[64] = "";
  if (startup) {
    char rest[32];
    units_time(v.wall_ns - v.startup_ns, rest, sizeof rest);
    snprintf(after, sizeof after, " after start-up (%s)", rest);
  }
  const char *over = *title ? title : "";
  switch (v.bound) {
  case VERDICT_DEVICE:
    fprintf(out, "Verdict%s: device-bound: the %s is busy %.1f%% of the run%s.\n\n", over, v.what,
            100 * v.share, after);
    break;
  case VERDICT_DEVICE_WAITS:
    fprintf(out, "Verdict%s: device-bound: the host waits for the devices %.1f%% of the run%s.\n\n",
            over, 100 * v.share, after);
    break;
  case VERDICT_DEVICE_COMMUNICATION:
    fprintf(out,
            "Verdict%s: communication-bound on the devices: the %s is busy %.1f%% of the "
            "run%s, its communication kernels (collectives) more than its other kernels.\n\n",
            over, v.what, 100 * v.share, after);
    break;
  case VERDICT_TRANSFERS:
    fprintf(out, "Verdict%s: transfer-bound: the %s is busy %.1f%% of the run%s, copies more "
                 "than kernels.\n\n",
            over, v.what, 100 * v.share, after);
    break;
  case VERDICT_COMMUNICATION:
    fprintf(out, "Verdict%s: communication-bound: %s calls and waits for peers take %.1f%% of "
                 "the run%s.\n\n",
            over, v.what, 100 * v.share, after);
    break;
  case VERDICT_HOST_API:
    fprintf(out, "Verdict%s: host-API-bound: %s calls take %.1f%% of the run%s.\n\n", over,
            v.what, 100 * v.share, after);
    break;
  default:
    fprintf(out, "Verdict%s: none of the traced APIs bounds the run: %.1f%% at most in one of "
                 "them%s; the rest is the app's own work.\n\n",
            over, 100 * v.share, after);
    break;
  }
}

void verdict_print_text(const struct tally *t, const struct run_record *run,
                        const struct gap_report *gaps, const struct trace_window *window,
                        FILE *out) {
  struct verdict_inputs in;
  inputs_of(t, run, gaps, window, &in);
  verdict_print_inputs(&in, "", out);
}
