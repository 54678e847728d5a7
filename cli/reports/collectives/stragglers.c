/* stragglers: see stragglers.h. */
#include "stragglers.h"

#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "collectives.h"
#include "units.h"

enum { STRAGGLERS_TOP = 20 }; /* collectives listed, longest lag first */

/* ---- the collectives ---- */

static uint64_t key_hash(uint64_t comm, uint64_t seq) {
  uint64_t h = (comm ^ (seq * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 31);
}

static int reindex(struct stragglers *s, size_t cap) {
  size_t *index = malloc(cap * sizeof *index);
  if (!index)
    return -1;
  for (size_t i = 0; i < cap; i++)
    index[i] = SIZE_MAX;
  for (size_t i = 0; i < s->count; i++) {
    size_t at = key_hash(s->rows[i].comm, s->rows[i].seq) & (cap - 1);
    while (index[at] != SIZE_MAX)
      at = (at + 1) & (cap - 1);
    index[at] = i;
  }
  free(s->index);
  s->index = index;
  s->index_cap = cap;
  return 0;
}

/* The later arrival wins; of two at the same ns, the lower rank, so that merging in any
 * order gives the same answer. */
static bool later(uint64_t t, long rank, uint64_t than, long than_rank) {
  return t > than || (t == than && rank < than_rank);
}

int stragglers_add(struct stragglers *s, const struct straggler_collective *a) {
  if ((s->count + 1) * 2 > s->index_cap && reindex(s, s->index_cap ? 2 * s->index_cap : 64))
    return -1;
  size_t at = key_hash(a->comm, a->seq) & (s->index_cap - 1);
  for (; s->index[at] != SIZE_MAX; at = (at + 1) & (s->index_cap - 1)) {
    struct straggler_collective *r = &s->rows[s->index[at]];
    if (r->comm != a->comm || r->seq != a->seq)
      continue;
    if (a->first < r->first)
      r->first = a->first;
    if (later(a->last, a->last_rank, r->last, r->last_rank)) {
      r->last = a->last;
      r->last_rank = a->last_rank;
    }
    if (r->ranks < 0)
      r->ranks = a->ranks;
    r->arrivals += a->arrivals;
    return 0;
  }
  if (s->count >= STRAGGLERS_MAX) {
    s->truncated = true;
    return 0;
  }
  if (s->count == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 64;
    struct straggler_collective *grown = realloc(s->rows, cap * sizeof *grown);
    if (!grown)
      return -1;
    s->rows = grown;
    s->cap = cap;
  }
  s->rows[s->count] = *a;
  s->index[at] = s->count++;
  return 0;
}

int stragglers_merge(struct stragglers *into, const struct stragglers *from) {
  into->truncated |= from->truncated;
  for (size_t i = 0; i < from->count; i++)
    if (stragglers_add(into, &from->rows[i]))
      return -1;
  return 0;
}

void stragglers_free(struct stragglers *s) {
  free(s->rows);
  free(s->index);
  memset(s, 0, sizeof *s);
}

/* ---- one rank's read ---- */

/* A rank's count of its collectives per communicator (and its rank in it: a process
 * may hold several ranks of one communicator). */
struct counter {
  uint64_t comm;
  int64_t comm_rank;
  uint64_t next;
};

struct stragglers_reading {
  struct stragglers *s;
  long rank;
  struct counter *counters; /* owned */
  size_t counter_count;
  bool out_of_memory;
};

static uint64_t *next_seq(struct stragglers_reading *r, uint64_t comm, int64_t comm_rank) {
  for (size_t i = 0; i < r->counter_count; i++)
    if (r->counters[i].comm == comm && r->counters[i].comm_rank == comm_rank)
      return &r->counters[i].next;
  struct counter *grown = realloc(r->counters, (r->counter_count + 1) * sizeof *grown);
  if (!grown)
    return NULL;
  r->counters = grown;
  r->counters[r->counter_count] = (struct counter){comm, comm_rank, 0};
  return &r->counters[r->counter_count++].next;
}

static int on_call(void *context, const struct trace_call *c) {
  struct stragglers_reading *r = context;
  const struct tracer_function_desc *f = &c->desc->functions[c->function];
  int64_t comm = 0, comm_rank = -1, ranks = -1;
  if (f->message.kind != TRACER_MESSAGE_COLLECTIVE || c->failed || c->batched ||
      !collectives_slot_value(f, c, f->message.comm_id, &comm) || comm == 0)
    return 0;
  collectives_slot_value(f, c, f->message.comm_rank, &comm_rank);
  collectives_slot_value(f, c, f->message.comm_size, &ranks);
  uint64_t *seq = next_seq(r, (uint64_t)comm, comm_rank);
  struct straggler_collective a = {(uint64_t)comm, seq ? (*seq)++ : 0, (uint32_t)c->backend,
                                   (uint32_t)c->function, ranks > 0 ? ranks : -1, c->start,
                                   c->start, r->rank, 1};
  if (!seq || stragglers_add(r->s, &a)) {
    r->out_of_memory = true;
    return -1;
  }
  return 0;
}

int stragglers_read_open(struct stragglers *s, long rank, struct stragglers_reading **reading,
                         struct trace_consumer *consumer, struct diag *d) {
  struct stragglers_reading *r = calloc(1, sizeof *r);
  if (!r)
    return diag_error(d, "Cannot find the stragglers: out of memory");
  r->s = s;
  r->rank = rank;
  *reading = r;
  *consumer = (struct trace_consumer){
      .name = "stragglers",
      .needs = TRACE_NEEDS_ORDER | TRACE_NEEDS_TIMES | TRACE_NEEDS_SLOTS,
      .context = r,
      .call = on_call,
  };
  return 0;
}

int stragglers_read_close(struct stragglers_reading *r, struct diag *d) {
  if (!r)
    return 0;
  bool failed = r->out_of_memory;
  free(r->counters);
  free(r);
  return failed ? diag_error(d, "Cannot find the stragglers: out of memory") : 0;
}

/* ---- the summary ---- */

struct rank_row {
  long rank;
  uint64_t last, lag_ns, max_lag_ns;
  size_t worst; /* the collective of max_lag_ns */
};

struct summary {
  struct rank_row *ranks; /* owned */
  size_t rank_count;
  size_t *top; /* the collectives of the longest lags, longest first; owned */
  size_t top_count;
  size_t collectives, communicators;
};

static bool counted(const struct straggler_collective *c, size_t backend) {
  return c->backend == backend && c->arrivals >= 2;
}

static int by_lag(const void *x, const void *y, void *context) {
  const struct stragglers *s = context;
  const struct straggler_collective *a = &s->rows[*(const size_t *)x],
                                    *b = &s->rows[*(const size_t *)y];
  uint64_t la = a->last - a->first, lb = b->last - b->first;
  if (la != lb)
    return la > lb ? -1 : 1;
  if (a->comm != b->comm)
    return a->comm < b->comm ? -1 : 1;
  return (a->seq > b->seq) - (a->seq < b->seq);
}

static int by_rank_lag(const void *x, const void *y) {
  const struct rank_row *a = x, *b = y;
  if (a->lag_ns != b->lag_ns)
    return a->lag_ns > b->lag_ns ? -1 : 1;
  return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The summary of backend's collectives; false when out of memory. */
static bool summarize(const struct stragglers *s, size_t backend, struct summary *out) {
  memset(out, 0, sizeof *out);
  size_t *order = malloc((s->count ? s->count : 1) * sizeof *order);
  uint64_t *comms = malloc((s->count ? s->count : 1) * sizeof *comms);
  out->ranks = malloc((s->count ? s->count : 1) * sizeof *out->ranks);
  if (!order || !comms || !out->ranks) {
    free(order);
    free(comms);
    free(out->ranks);
    return false;
  }
  for (size_t i = 0; i < s->count; i++) {
    const struct straggler_collective *c = &s->rows[i];
    if (!counted(c, backend))
      continue;
    order[out->collectives++] = i;
    size_t k = 0;
    while (k < out->communicators && comms[k] != c->comm)
      k++;
    if (k == out->communicators)
      comms[out->communicators++] = c->comm;
  }
  qsort_r(order, out->collectives, sizeof *order, by_lag, (void *)s);
  for (size_t i = 0; i < out->collectives; i++) {
    const struct straggler_collective *c = &s->rows[order[i]];
    uint64_t lag = c->last - c->first;
    size_t k = 0;
    while (k < out->rank_count && out->ranks[k].rank != c->last_rank)
      k++;
    if (k == out->rank_count)
      out->ranks[out->rank_count++] = (struct rank_row){c->last_rank, 0, 0, 0, order[i]};
    struct rank_row *r = &out->ranks[k];
    r->last++;
    r->lag_ns += lag;
    if (r->last == 1) /* the collectives come longest lag first */
      r->max_lag_ns = lag;
  }
  if (out->rank_count)
    qsort(out->ranks, out->rank_count, sizeof *out->ranks, by_rank_lag);
  out->top = order;
  out->top_count = out->collectives < STRAGGLERS_TOP ? out->collectives : STRAGGLERS_TOP;
  free(comms);
  return true;
}

static void summary_free(struct summary *m) {
  free(m->ranks);
  free(m->top);
}

static const char *name_of(const struct straggler_collective *c) {
  return tracer_backends[c->backend]->functions[c->function].name;
}

void stragglers_print_text(const struct stragglers *s, size_t backend, FILE *out) {
  struct summary m;
  if (!summarize(s, backend, &m) || !m.collectives) {
    summary_free(&m);
    return;
  }
  char title[64];
  backends_title(tracer_backends[backend], title, sizeof title);
  fprintf(out,
          "Stragglers (%s): %zu collectives on %zu communicators, each seen by 2 ranks or "
          "more\n\n%6s | %7s | %10s | %10s | %s\n",
          title, m.collectives, m.communicators, "Rank", "Last at", "Lag", "Max lag",
          "Worst collective");
  for (size_t i = 0; i < m.rank_count; i++) {
    const struct rank_row *r = &m.ranks[i];
    const struct straggler_collective *w = &s->rows[r->worst];
    char lag[32], max[32];
    units_time(r->lag_ns, lag, sizeof lag);
    units_time(r->max_lag_ns, max, sizeof max);
    fprintf(out, "%6ld | %7llu | %10s | %10s | %s #%llu on communicator %016llx (%lld ranks)\n",
            r->rank, (unsigned long long)r->last, lag, max, name_of(w),
            (unsigned long long)w->seq, (unsigned long long)w->comm, (long long)w->ranks);
  }
  fputs("Last at: the collectives the rank arrived at last (its call started after the "
        "other ranks'); #N: the communicator's N-th collective, from 0.\n"
        "Lag: from the first rank's arrival to the last's, summed over those collectives; "
        "Max lag: the longest, at the worst collective.\n",
        out);
  if (s->truncated)
    fprintf(out, "Only each rank's first %d collectives are in it.\n", STRAGGLERS_MAX);
  fputc('\n', out);
  summary_free(&m);
}

static void json_collective(const struct straggler_collective *c, FILE *out) {
  fputs("{\"name\": ", out);
  units_json_string(out, name_of(c));
  fprintf(out,
          ", \"communicator\": \"%016llx\", \"seq\": %llu, \"ranks\": %lld, \"arrivals\": %u, "
          "\"last_rank\": %ld, \"lag_ns\": %llu}",
          (unsigned long long)c->comm, (unsigned long long)c->seq, (long long)c->ranks,
          c->arrivals, c->last_rank, (unsigned long long)(c->last - c->first));
}

void stragglers_print_json(const struct stragglers *s, FILE *out) {
  fputc('[', out);
  bool first = true;
  for (size_t b = 0; b < backends_count(); b++) {
    struct summary m;
    if (!summarize(s, b, &m) || !m.collectives) {
      summary_free(&m);
      continue;
    }
    fprintf(out, "%s\n    {\"backend\": ", first ? "" : ",");
    first = false;
    units_json_string(out, tracer_backends[b]->name);
    fprintf(out, ", \"collectives\": %zu, \"communicators\": %zu, \"truncated\": %s,\n",
            m.collectives, m.communicators, s->truncated ? "true" : "false");
    fputs("     \"ranks\": [", out);
    for (size_t i = 0; i < m.rank_count; i++) {
      const struct rank_row *r = &m.ranks[i];
      fprintf(out,
              "%s{\"rank\": %ld, \"last\": %llu, \"lag_ns\": %llu, \"max_lag_ns\": %llu, "
              "\"worst\": ",
              i ? ", " : "", r->rank, (unsigned long long)r->last,
              (unsigned long long)r->lag_ns, (unsigned long long)r->max_lag_ns);
      json_collective(&s->rows[r->worst], out);
      fputc('}', out);
    }
    fputs("],\n     \"top\": [", out);
    for (size_t i = 0; i < m.top_count; i++) {
      fputs(i ? ",\n             " : "", out);
      json_collective(&s->rows[m.top[i]], out);
    }
    fputs("]}", out);
    summary_free(&m);
  }
  fputs(first ? "]" : "\n  ]", out);
}
