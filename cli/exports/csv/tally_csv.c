/* tally_csv: the tally as CSV (--csv FILE), for spreadsheets and scripts: one line per
 * row of the tally's tables (docs/analysis-output.md, "The tally as CSV"), an export
 * that reads the finished tally (output.h). The smallest export: one file and a line in
 * cli/analysis/registry.c.
 *
 *   backend,table,name,kind,calls,errors,time_ns,min_ns,max_ns,bytes
 *   opencl,host,clFinish,sync,4,0,812340,1200,500000,
 *   opencl,device,vadd,kernel,4,0,800000,190000,210000,0
 *   itt,region,Step.1,,1,,2000000,2000000,2000000,
 *
 * table: host (an API function), device (a kernel, transfer or other command) or region
 * (a named region); kind: a host function's meaning, a device row's kind; bytes: what a
 * message call or a device command moved. Times in ns, as the JSON tally has them;
 * fields quoted only where needed (RFC 4180). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "output.h"
#include "tally.h"
#include "tracer_runtime.h"

static void field(FILE *out, const char *s) {
  if (!strpbrk(s, ",\"\n\r")) {
    fputs(s, out);
    return;
  }
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

static void row(FILE *out, const char *backend, const char *table, const char *name,
                const char *kind, const struct tally_stat *s, bool errors, bool has_bytes,
                uint64_t bytes) {
  field(out, backend);
  fprintf(out, ",%s,", table);
  field(out, name);
  fprintf(out, ",%s,%llu,", kind, (unsigned long long)s->calls);
  if (errors)
    fprintf(out, "%llu", (unsigned long long)s->errors);
  fprintf(out, ",%llu,%llu,%llu,", (unsigned long long)s->total, (unsigned long long)s->min,
          (unsigned long long)s->max);
  if (has_bytes)
    fprintf(out, "%llu", (unsigned long long)bytes);
  fputc('\n', out);
}

static void write_csv(const struct tally *t, FILE *out) {
  fputs("backend,table,name,kind,calls,errors,time_ns,min_ns,max_ns,bytes\n", out);
  for (size_t i = 0; i < t->backend_count; i++) {
    const struct tally_backend *b = &t->backends[i];
    const char *name = b->desc->name;
    uint32_t *order = calloc(b->function_count + 1, sizeof *order);
    size_t *dorder = calloc(b->device_count + 1, sizeof *dorder), n = 0;
    if (order) {
      tally_sorted_host(b, order);
      for (uint32_t k = 0; k < b->function_count; k++) {
        const struct tracer_function_desc *f = &b->desc->functions[order[k]];
        const char *meaning = backends_meaning_name(f->meaning);
        if (b->host[order[k]].calls)
          row(out, name, "host", f->name, meaning ? meaning : "", &b->host[order[k]], true,
              f->message.kind != TRACER_MESSAGE_NONE, b->message_bytes[order[k]]);
      }
    }
    if (dorder)
      tally_sorted_device(b, -1, dorder, &n);
    for (size_t k = 0; k < n; k++) {
      const struct tally_device *d = &b->device[dorder[k]];
      row(out, name, "device", d->name,
          d->kind == TRACER_COMMAND_KERNEL     ? "kernel"
          : d->kind == TRACER_COMMAND_TRANSFER ? "transfer"
                                               : "other",
          &d->time, true, true, d->bytes);
    }
    for (size_t k = 0; k < t->regions.count; k++) {
      const struct region_row *r = &t->regions.rows[k];
      struct tally_stat s = {.calls = r->calls, .total = r->total, .min = r->min, .max = r->max};
      if (strcmp(r->backend, name) == 0)
        row(out, name, "region", r->name, "", &s, false, false, 0);
    }
    free(order);
    free(dorder);
  }
}

static bool asked(const struct analysis_request *r) { return r->csv_path != NULL; }

static int close_csv(const struct output_context *c, void *state, struct diag *d) {
  (void)state;
  const char *path = c->request->csv_path;
  if (c->read_failed || !c->tally)
    return diag_error(d, "Cannot write the CSV tally: file=%s: the trace could not be read",
                      path);
  FILE *out = fopen(path, "w");
  if (!out)
    return diag_error(d, "Cannot write the CSV tally: file=%s: %s", path, strerror(errno));
  write_csv(c->tally, out);
  if ((ferror(out) | fclose(out)) != 0)
    return diag_error(d, "Cannot write the CSV tally: file=%s: %s", path, strerror(errno));
  c->result->csv = true;
  return 0;
}

const struct output csv_output = {
    .name = "csv",
    .kind = OUTPUT_EXPORT,
    .option = "--csv FILE",
    .input = OUTPUT_READS_TALLY,
    .reads = "the tally: one line per row of its tables",
    .asked = asked,
    .close = close_csv,
};
