/* collectives: see collectives.h. The rows, and the consumer that makes them; the kernels
 * are tied to them in collectives_ties.c. */
#include "collectives.h"

#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "collectives_ties.h"
#include "tally.h"

static bool factor_known(const struct tracer_rank_factor *f) { return f->c || f->d; }

bool collectives_counts(const struct tracer_function_desc *f) {
  return f->message.kind != TRACER_MESSAGE_NONE && factor_known(&f->message.bus_factor) &&
         f->message.bytes >= 0;
}

bool collectives_in_trace(const struct event_map *map) {
  const struct tracer_backend_desc *seen = NULL; /* event classes come a backend at a time */
  for (size_t i = 0; map && i < map->count; i++) {
    const struct tracer_backend_desc *desc = map->infos[i].desc;
    if (!desc || desc == seen)
      continue;
    seen = desc;
    for (uint32_t f = 0; f < desc->function_count; f++)
      if (collectives_counts(&desc->functions[f]))
        return true;
  }
  return false;
}

bool collectives_in_tally(const struct tally *tally) {
  for (size_t b = 0; tally && b < tally->backend_count; b++) {
    const struct tally_backend *tb = &tally->backends[b];
    for (uint32_t f = 0; f < tb->function_count; f++)
      if (tb->host[f].calls && collectives_counts(&tb->desc->functions[f]))
        return true;
  }
  return false;
}

/* (a*n + b) / (c*n + d); negative when it cannot be worked out. */
static double factor_of(const struct tracer_rank_factor *f, int64_t n) {
  double den = (double)f->c * (double)n + (double)f->d;
  if (!factor_known(f) || n < 1 || den <= 0)
    return -1;
  return ((double)f->a * (double)n + (double)f->b) / den;
}

/* ---- rows ---- */

static uint64_t key_hash(uint32_t backend, uint32_t function, int64_t op, int64_t ranks,
                         uint64_t size) {
  uint64_t h = 1469598103934665603ull;
  uint64_t parts[] = {backend, function, (uint64_t)op, (uint64_t)ranks, size};
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
    h = (h ^ parts[i]) * 1099511628211ull;
  return h ^ (h >> 29);
}

static bool same_key(const struct collective_row *r, uint32_t backend, uint32_t function,
                     int64_t op, int64_t ranks, uint64_t size) {
  return r->backend == backend && r->function == function && r->op == op && r->ranks == ranks &&
         r->size == size;
}

/* The index as rows are now (their positions are stable until collectives_sort). */
static int reindex(struct collectives *c, size_t cap) {
  size_t *index = malloc(cap * sizeof *index);
  if (!index)
    return -1;
  for (size_t i = 0; i < cap; i++)
    index[i] = SIZE_MAX;
  for (size_t i = 0; i < c->count; i++) {
    const struct collective_row *r = &c->rows[i];
    size_t at = key_hash(r->backend, r->function, r->op, r->ranks, r->size) & (cap - 1);
    while (index[at] != SIZE_MAX)
      at = (at + 1) & (cap - 1);
    index[at] = i;
  }
  free(c->index);
  c->index = index;
  c->index_cap = cap;
  return 0;
}

struct collective_row *collectives_row(struct collectives *c, uint32_t backend,
                                       uint32_t function, int64_t op, int64_t ranks,
                                       uint64_t size) {
  if ((c->count + 1) * 2 > c->index_cap && reindex(c, c->index_cap ? 2 * c->index_cap : 64))
    return NULL;
  size_t at = key_hash(backend, function, op, ranks, size) & (c->index_cap - 1);
  for (; c->index[at] != SIZE_MAX; at = (at + 1) & (c->index_cap - 1))
    if (same_key(&c->rows[c->index[at]], backend, function, op, ranks, size))
      return &c->rows[c->index[at]];
  if (c->count == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 32;
    struct collective_row *grown = realloc(c->rows, cap * sizeof *grown);
    if (!grown)
      return NULL;
    c->rows = grown;
    c->cap = cap;
  }
  struct collective_row *r = &c->rows[c->count];
  *r = (struct collective_row){.backend = backend, .function = function, .op = op,
                               .ranks = ranks, .size = size};
  c->index[at] = c->count++;
  return r;
}

int collectives_merge(struct collectives *into, const struct collectives *from) {
  for (size_t i = 0; i < from->count; i++) {
    const struct collective_row *f = &from->rows[i];
    struct collective_row *r = collectives_row(into, f->backend, f->function, f->op, f->ranks,
                                               f->size);
    if (!r)
      return -1;
    r->calls += f->calls;
    r->time_ns += f->time_ns;
    r->kernels += f->kernels;
    r->device_ns += f->device_ns;
  }
  return 0;
}

static int by_key(const void *x, const void *y) {
  const struct collective_row *a = x, *b = y;
  if (a->backend != b->backend)
    return a->backend < b->backend ? -1 : 1;
  if (a->function != b->function)
    return a->function < b->function ? -1 : 1;
  if (a->size != b->size)
    return a->size < b->size ? -1 : 1;
  if (a->ranks != b->ranks)
    return a->ranks < b->ranks ? -1 : 1;
  return (a->op > b->op) - (a->op < b->op);
}

void collectives_sort(struct collectives *c) {
  if (c->count)
    qsort(c->rows, c->count, sizeof *c->rows, by_key);
  if (c->index_cap)
    reindex(c, c->index_cap);
}

void collectives_free(struct collectives *c) {
  free(c->rows);
  free(c->index);
  memset(c, 0, sizeof *c);
}

bool collectives_bandwidth(const struct collective_row *row, double *alg, double *bus,
                           bool *from_device) {
  *from_device = row->device_ns > 0;
  uint64_t ns = *from_device ? row->device_ns : row->time_ns;
  if (!ns)
    return false;
  *alg = (double)row->size * (double)row->calls * 1e9 / (double)ns;
  double factor = collectives_bus_factor(row);
  *bus = factor < 0 ? -1 : *alg * factor;
  return true;
}

bool collectives_few_calls(const struct collectives *c, size_t i) {
  const struct collective_row *row = &c->rows[i];
  uint64_t most = 0;
  for (size_t k = 0; k < c->count; k++) {
    const struct collective_row *o = &c->rows[k];
    if (o->backend == row->backend && o->function == row->function && o->op == row->op &&
        o->ranks == row->ranks && o->calls > most)
      most = o->calls;
  }
  return row->calls * 4 < most;
}

double collectives_bus_factor(const struct collective_row *row) {
  return factor_of(&tracer_backends[row->backend]->functions[row->function].message.bus_factor,
                   row->ranks);
}

/* ---- the read ---- */

struct collectives_reading {
  struct collectives *table;
  struct ties *ties;
  bool out_of_memory;
};

bool collectives_slot_value(const struct tracer_function_desc *f, const struct trace_call *c,
                            int16_t index, int64_t *value) {
  if (index < 0 || (size_t)index >= c->slot_count)
    return false;
  for (uint32_t k = 0; k < f->slot_count; k++)
    if (f->slots[k].index == (uint8_t)index) {
      *value = event_map_slot_value(&f->slots[k], c->slots[index]);
      return true;
    }
  *value = (int64_t)c->slots[index];
  return true;
}

static int on_call(void *context, const struct trace_call *c) {
  struct collectives_reading *r = context;
  const struct tracer_function_desc *f = &c->desc->functions[c->function];
  long row = -1;
  uint64_t size = 0;
  int64_t bytes, ranks = -1, op = -1;
  if (collectives_counts(f) && !c->failed && !c->batched &&
      collectives_slot_value(f, c, f->message.bytes, &bytes)) {
    collectives_slot_value(f, c, f->message.comm_size, &ranks);
    collectives_slot_value(f, c, f->message.op, &op);
    if (ranks < 1)
      ranks = -1;
    double times = factor_of(&f->message.size_factor, ranks);
    size = times > 0 ? (uint64_t)((double)(uint64_t)bytes * times + 0.5) : (uint64_t)bytes;
    struct collective_row *w = collectives_row(r->table, (uint32_t)c->backend,
                                               (uint32_t)c->function, op, ranks, size);
    if (!w) {
      r->out_of_memory = true;
      return -1;
    }
    w->calls++;
    w->time_ns += c->duration_ns;
    row = (long)(w - r->table->rows);
  }
  if (ties_call(r->ties, c, row, size)) {
    r->out_of_memory = true;
    return -1;
  }
  return 0;
}

static int on_device(void *context, const struct trace_device *d) {
  struct collectives_reading *r = context;
  if (ties_device(r->ties, d)) {
    r->out_of_memory = true;
    return -1;
  }
  return 0;
}

int collectives_read_open(struct collectives *table, struct collectives_reading **reading,
                          struct trace_consumer *consumer, struct diag *d) {
  struct collectives_reading *r = calloc(1, sizeof *r);
  if (r && !(r->ties = ties_new(table))) {
    free(r);
    r = NULL;
  }
  if (!r)
    return diag_error(d, "Cannot analyse the collectives: out of memory");
  r->table = table;
  *reading = r;
  *consumer = (struct trace_consumer){
      .name = "collectives",
      .needs = TRACE_NEEDS_ORDER | TRACE_NEEDS_TIMES | TRACE_NEEDS_SLOTS,
      .context = r,
      .call = on_call,
      .device = on_device,
  };
  return 0;
}

int collectives_read_close(struct collectives_reading *r, struct diag *d) {
  if (!r)
    return 0;
  bool failed = r->out_of_memory;
  ties_free(r->ties);
  free(r);
  return failed ? diag_error(d, "Cannot analyse the collectives: out of memory") : 0;
}
