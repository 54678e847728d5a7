/* hta_output: the GPUs' time per rank, as Holistic Trace Analysis defines it (hta.h), as a
 * report (output.h): printed after the device use when the run had device work. */
#include <stdlib.h>

#include "hta.h"
#include "output.h"

static bool asked(const struct analysis_request *r) { return !r->text && !r->json; }

struct hta_state {
  struct hta *hta;
  struct hta_report report;
  bool finished;
};

static int open_hta(const struct output_context *c, void **state, struct trace_consumer *consumer,
                    struct timeline_sink *sink, struct diag *d) {
  (void)c;
  (void)sink;
  struct hta_state *s = calloc(1, sizeof *s);
  if (!s)
    return diag_error(d, "Cannot analyse the GPUs' time: out of memory");
  if (hta_open(&s->hta, consumer, d)) {
    free(s);
    return -1;
  }
  *state = s;
  return 0;
}

static int finish_hta(struct output_context *c, void *state, struct diag *d) {
  struct hta_state *s = state;
  (void)c;
  int rc = hta_close(s->hta, &s->report, d);
  s->hta = NULL;
  s->finished = true;
  return rc;
}

static int close_hta(const struct output_context *c, void *state, struct diag *d) {
  struct hta_state *s = state;
  if (!s)
    return -1;
  if (s->finished)
    hta_print_text(&s->report, c->request->out);
  if (s->hta) /* never finished */
    hta_close(s->hta, &s->report, d);
  hta_free(&s->report);
  free(s);
  return 0;
}

const struct output hta_output = {
    .name = "hta",
    .kind = OUTPUT_REPORT,
    .option = "none: with the text tables",
    .input = OUTPUT_READS_EVENTS,
    .reads = "device commands and the calls that submitted them",
    .asked = asked,
    .open = open_hta,
    .finish = finish_hta,
    .close = close_hta,
};
