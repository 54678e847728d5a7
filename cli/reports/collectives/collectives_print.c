/* collectives_print: the collectives table as text, after its backend's tables, and as
 * JSON (docs/analysis-output.md). */
#include <string.h>

#include "backends.h"
#include "collectives.h"
#include "units.h"

/* The reduction operation's name as the backend's headers give it; the number when they
 * give none (an operation made at run time); "-" without one. */
static void op_name(const struct collective_row *row, char *out, size_t size) {
  const struct tracer_function_desc *f = &tracer_backends[row->backend]->functions[row->function];
  if (row->op < 0 || f->message.op < 0) {
    snprintf(out, size, "-");
    return;
  }
  const char *name = NULL;
  for (uint32_t k = 0; k < f->slot_count && !name; k++)
    if (f->slots[k].index == (uint8_t)f->message.op) {
      const struct tracer_field_format *format =
          backends_field_format(f, f->slots[k].name, strlen(f->slots[k].name));
      name = backends_value_name(format ? format->names : NULL, row->op);
    }
  if (name)
    snprintf(out, size, "%s", name);
  else
    snprintf(out, size, "%lld", (long long)row->op);
}

static const char *row_name(const struct collective_row *row) {
  return tracer_backends[row->backend]->functions[row->function].name;
}

void collectives_print_text(const struct collectives *c, size_t backend, FILE *out) {
  int name_width = 4, op_width = 2;
  bool any = false, by_calls = false, few = false;
  for (size_t i = 0; i < c->count; i++) {
    const struct collective_row *row = &c->rows[i];
    if (row->backend != backend)
      continue;
    any = true;
    char op[64];
    op_name(row, op, sizeof op);
    int n = (int)strlen(row_name(row)), o = (int)strlen(op);
    name_width = n > name_width ? n : name_width;
    op_width = o > op_width ? o : op_width;
  }
  if (!any)
    return;
  char title[64];
  backends_title(tracer_backends[backend], title, sizeof title);
  fprintf(out, "Collectives (%s)\n\n%-*s | %-*s | %5s | %9s | %5s | %9s | %9s | %9s | %10s | %10s |\n",
          title, name_width, "Name", op_width, "Op", "Ranks", "Size", "Calls", "Bytes", "Time",
          "Device", "Algbw", "Busbw");
  for (size_t i = 0; i < c->count; i++) {
    const struct collective_row *row = &c->rows[i];
    if (row->backend != backend)
      continue;
    char op[64], ranks[24] = "-", size[32], bytes[32], time[32], device[32] = "-", alg[32] = "-",
                 bus[32] = "-";
    op_name(row, op, sizeof op);
    if (row->ranks > 0)
      snprintf(ranks, sizeof ranks, "%lld", (long long)row->ranks);
    units_bytes(row->size, size, sizeof size);
    units_bytes(row->size * row->calls, bytes, sizeof bytes);
    units_time(row->time_ns, time, sizeof time);
    if (row->device_ns)
      units_time(row->device_ns, device, sizeof device);
    double algbw, busbw;
    bool from_device;
    if (collectives_bandwidth(row, &algbw, &busbw, &from_device)) {
      units_bandwidth(algbw, alg, sizeof alg);
      if (busbw >= 0)
        units_bandwidth(busbw, bus, sizeof bus);
      if (!from_device) {
        by_calls = true;
        strcat(alg, "*");
        if (busbw >= 0)
          strcat(bus, "*");
      }
    }
    char calls[24];
    bool few_calls = collectives_few_calls(c, i);
    few |= few_calls;
    snprintf(calls, sizeof calls, "%llu%s", (unsigned long long)row->calls, few_calls ? "~" : "");
    fprintf(out, "%-*s | %-*s | %5s | %9s | %5s | %9s | %9s | %9s | %10s | %10s |\n",
            name_width, row_name(row), op_width, op, ranks, size, calls, bytes, time, device, alg,
            bus);
  }
  fputs("Size: one call's bytes as nccl-tests count them (the whole buffer of gathers and "
        "scatters). Bytes: Size x Calls.\n"
        "Time: the calls' own time. Device: the time on the device of the kernels they "
        "launched.\n"
        "Algbw: Bytes over Device (the time the transfer took); Busbw: Algbw x the bus "
        "factor of the operation for n = Ranks.\n",
        out);
  if (few)
    fputs("~: under a quarter of the calls of the operation's busiest size: a warm-up or a "
          "one-off (nccl-tests'\n   warm-up at the sizes between those it reports), not a "
          "steady rate.\n",
          out);
  if (by_calls)
    fputs("*: over Time, the calls' own time: none of their kernels was timed on the device.\n",
          out);
  fputc('\n', out);
}

void collectives_print_json(const struct collectives *c, FILE *out) {
  fputc('[', out);
  for (size_t i = 0; i < c->count; i++) {
    const struct collective_row *row = &c->rows[i];
    fprintf(out, "%s\n    {\"backend\": ", i ? "," : "");
    units_json_string(out, tracer_backends[row->backend]->name);
    fputs(", \"name\": ", out);
    units_json_string(out, row_name(row));
    char op[64];
    op_name(row, op, sizeof op);
    if (row->op >= 0) {
      fputs(", \"op\": ", out);
      units_json_string(out, op);
    } else {
      fputs(", \"op\": null", out);
    }
    fprintf(out,
            ", \"ranks\": %lld, \"size\": %llu, \"calls\": %llu, \"bytes\": %llu, "
            "\"time_ns\": %llu, \"kernels\": %llu, \"device_ns\": %llu",
            (long long)row->ranks, (unsigned long long)row->size,
            (unsigned long long)row->calls, (unsigned long long)(row->size * row->calls),
            (unsigned long long)row->time_ns, (unsigned long long)row->kernels,
            (unsigned long long)row->device_ns);
    fprintf(out, ", \"few_calls\": %s", collectives_few_calls(c, i) ? "true" : "false");
    double algbw, busbw;
    bool from_device;
    if (collectives_bandwidth(row, &algbw, &busbw, &from_device)) {
      fprintf(out, ", \"algbw_bytes_per_second\": %.9g, \"bandwidth_time\": \"%s\"", algbw,
              from_device ? "device" : "calls");
      if (busbw >= 0)
        fprintf(out, ", \"busbw_bytes_per_second\": %.9g, \"bus_factor\": %.9g", busbw,
                collectives_bus_factor(row));
    }
    fputc('}', out);
  }
  fputs(c->count ? "\n  ]" : "]", out);
}
