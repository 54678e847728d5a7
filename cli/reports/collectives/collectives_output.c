/* collectives_output: the collectives table as a report (output.h). It reads the trace in
 * time order, only when the tally counted operations of the table (or when another
 * output reads in order anyway), and prints through the tally: after its backend's
 * tables, and as the JSON's "collectives" member (tally_print.h's additions). So the
 * tally, which prints them, comes before it in the registry. */
#include <stdlib.h>

#include "collectives.h"
#include "output.h"
#include "tally_print.h"

static bool asked(const struct analysis_request *r) { return !r->text; }

struct collectives_state {
  struct collectives table;
  struct collectives_reading *reading;
};

static int open_collectives(const struct output_context *c, void **state,
                            struct trace_consumer *consumer, struct timeline_sink *sink,
                            struct diag *d) {
  (void)sink;
  struct collectives_state *s = calloc(1, sizeof *s);
  if (!s)
    return diag_error(d, "Cannot analyse the collectives: out of memory");
  /* No backend of the trace has a collective: nothing to read (a call apiece was 3% of
   * a `tracer -r -l` of an OpenCL trace). */
  if (!collectives_in_trace(c->map)) {
    *state = s;
    return 0;
  }
  if (collectives_read_open(&s->table, &s->reading, consumer, d)) {
    free(s);
    return -1;
  }
  *state = s;
  return 0;
}

static void print_text(const void *table, size_t backend, FILE *out) {
  collectives_print_text(table, backend, out);
}

static void print_json(const void *table, FILE *out) { collectives_print_json(table, out); }

static int finish_collectives(struct output_context *c, void *state, struct diag *d) {
  struct collectives_state *s = state;
  int rc = collectives_read_close(s->reading, d);
  s->reading = NULL;
  collectives_sort(&s->table);
  if (s->table.count && c->addition_count < OUTPUT_ADDITIONS)
    c->additions[c->addition_count++] =
        (struct tally_addition){"collectives", print_json, print_text, &s->table};
  return rc;
}

static int close_collectives(const struct output_context *c, void *state, struct diag *d) {
  (void)c;
  (void)d;
  struct collectives_state *s = state;
  if (!s)
    return -1;
  collectives_read_close(s->reading, d); /* never finished */
  collectives_free(&s->table);
  free(s);
  return 0;
}

/* Worth a read of its own only when the tally counted operations of the table. */
static bool worth_a_read(const struct output_context *c) {
  return collectives_in_tally(c->tally);
}

const struct output collectives_output = {
    .name = "collectives",
    .kind = OUTPUT_REPORT,
    .option = "none: with the tables, after their backend's, and in JSON",
    .input = OUTPUT_READS_EVENTS,
    .reads = "message calls with a bus factor, kernel launches and kernels, in time order",
    .asked = asked,
    .open = open_collectives,
    .finish = finish_collectives,
    .close = close_collectives,
    .worth_a_read = worth_a_read,
};
