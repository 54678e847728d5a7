/* result_file: see result_file.h. */
#include "result_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends.h"
#include "result_sources.h"

typedef unsigned long long ull;

static void write_spread(FILE *f, const struct job_spread *s) {
  fprintf(f, " %llu %ld %llu %ld %llu %llu", (ull)s->min, s->min_rank, (ull)s->max, s->max_rank,
          (ull)s->sum, (ull)s->count);
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The actors and their rows in a fixed order (rank, host, process, thread; then backend,
 * function, device row), so that a file is the same whatever order results merged in. */
struct actor_order {
  size_t *actor;    /* actor indices in file order; owned */
  size_t *position; /* by actor index: its position in the file; owned */
  size_t *row;      /* row indices in file order; owned */
  size_t rows;
};

static int compare_actors(const void *x, const void *y, void *context) {
  const struct tally *t = context;
  const struct actor *a = &t->actors.list[*(const size_t *)x];
  const struct actor *b = &t->actors.list[*(const size_t *)y];
  if (a->rank != b->rank)
    return a->rank < b->rank ? -1 : 1;
  int c = strcmp(t->hostnames[a->host], t->hostnames[b->host]);
  if (c)
    return c;
  if (a->pid != b->pid)
    return a->pid < b->pid ? -1 : 1;
  return (a->tid > b->tid) - (a->tid < b->tid);
}

struct row_context {
  const struct tally *t;
  const size_t *position;
};

static int compare_rows(const void *x, const void *y, void *context) {
  const struct row_context *c = context;
  const struct actor_row *a = &c->t->actors.rows[*(const size_t *)x];
  const struct actor_row *b = &c->t->actors.rows[*(const size_t *)y];
  if (a->backend != b->backend)
    return a->backend < b->backend ? -1 : 1;
  if (c->position[a->actor] != c->position[b->actor])
    return c->position[a->actor] < c->position[b->actor] ? -1 : 1;
  if (a->function != b->function)
    return a->function < b->function ? -1 : 1;
  if (a->function >= 0)
    return 0;
  if (a->kind != b->kind)
    return a->kind < b->kind ? -1 : 1;
  return strcmp(a->name, b->name);
}

static int actor_order_make(const struct tally *t, struct actor_order *o) {
  const struct actors *a = &t->actors;
  o->actor = calloc(a->count + 1, sizeof *o->actor);
  o->position = calloc(a->count + 1, sizeof *o->position);
  o->row = calloc(a->row_count + 1, sizeof *o->row);
  o->rows = a->row_count;
  if (!o->actor || !o->position || !o->row)
    return -1;
  for (size_t i = 0; i < a->count; i++)
    o->actor[i] = i;
  qsort_r(o->actor, a->count, sizeof *o->actor, compare_actors, (void *)t);
  for (size_t i = 0; i < a->count; i++)
    o->position[o->actor[i]] = i;
  for (size_t i = 0; i < a->row_count; i++)
    o->row[i] = i;
  struct row_context c = {t, o->position};
  qsort_r(o->row, a->row_count, sizeof *o->row, compare_rows, &c);
  return 0;
}

static void actor_order_free(struct actor_order *o) {
  free(o->actor);
  free(o->position);
  free(o->row);
}

static void write_device_label(FILE *f, const char *device) {
  fprintf(f, "dd %s\n", device ? device : "-");
}

static void write_backend(FILE *f, const struct job_result *r, size_t b,
                          const struct actor_order *order) {
  const struct tally_backend *tb = &r->tally.backends[b];
  fprintf(f, "backend %s %llu %zu %zu %zu %zu", tb->desc->name, (ull)tb->events,
          tb->processes.len, tb->threads.len, tb->device_processes.len, tb->device_threads.len);
  /* Hosts by name, sorted: the same file whatever order the results were merged in. */
  const char **hosts = calloc(tb->hosts.len + 1, sizeof *hosts);
  size_t n = 0;
  for (size_t k = 0; hosts && k < tb->hosts.cap; k++)
    if (tb->hosts.slots[k])
      hosts[n++] = r->tally.hostnames[tb->hosts.slots[k] - 1];
  if (n)
    qsort(hosts, n, sizeof *hosts, by_name);
  for (size_t k = 0; k < n; k++)
    fprintf(f, " %s", hosts[k]);
  free(hosts);
  fputs("\nshare", f);
  write_spread(f, &r->host_share[b]);
  write_spread(f, &r->device_share[b]);
  fputc('\n', f);
  for (uint32_t i = 0; i < tb->function_count; i++) {
    const struct tally_stat *s = &tb->host[i];
    if (!s->calls && !tb->unfinished[i] && !r->function_ns[b][i].count)
      continue;
    fprintf(f, "f %u %llu %llu %llu %llu %llu %llu %llu", i, (ull)s->calls, (ull)s->errors,
            (ull)s->total, (ull)s->min, (ull)s->max, (ull)tb->unfinished[i],
            (ull)tb->message_bytes[i]);
    write_spread(f, &r->function_ns[b][i]);
    fprintf(f, " %s\n", tb->desc->functions[i].name);
    if (tb->outer[i])
      fprintf(f, "o %u %llu %s\n", i, (ull)tb->outer[i], tb->desc->functions[i].name);
  }
  for (uint32_t i = 0; i < tb->function_count; i++) {
    const struct tally_stat *s = &tb->inside[i];
    if (s->calls) /* `fi`: a library's own calls, made inside another backend's (version 7) */
      fprintf(f, "fi %u %llu %llu %llu %llu %llu %s\n", i, (ull)s->calls, (ull)s->errors,
              (ull)s->total, (ull)s->min, (ull)s->max, tb->desc->functions[i].name);
  }
  const char *last_device = NULL;
  for (size_t i = 0; i < tb->device_count; i++) {
    const struct tally_device *d = &tb->device[i];
    /* `dd DEVICE`: the device of the `d` lines that follow (version 5), "-" for none. */
    if (i == 0 || !tally_same_device(d->device, last_device))
      write_device_label(f, d->device);
    last_device = d->device;
    fprintf(f, "d %d %llu %llu %llu %llu %llu %llu %llu %llu %s\n", d->kind, (ull)d->time.calls,
            (ull)d->time.errors, (ull)d->time.total, (ull)d->time.min, (ull)d->time.max,
            (ull)d->bytes, (ull)d->min_bytes, (ull)d->max_bytes, d->name);
  }
  /* Per actor: `af ACTOR INDEX CALLS ERRORS TOTAL MIN MAX NAME` and
   * `ad ACTOR KIND CALLS ERRORS TOTAL MIN MAX BYTES NAME`, ACTOR an `a` line's position. */
  const struct actors *a = &r->tally.actors;
  for (size_t k = 0; k < order->rows; k++) {
    const struct actor_row *w = &a->rows[order->row[k]];
    if (w->backend != b)
      continue;
    if (w->function >= 0)
      fprintf(f, "af %zu %d %llu %llu %llu %llu %llu %s\n", order->position[w->actor],
              w->function, (ull)w->time.calls, (ull)w->time.errors, (ull)w->time.total,
              (ull)w->time.min, (ull)w->time.max, tb->desc->functions[w->function].name);
    else
      fprintf(f, "ad %zu %d %llu %llu %llu %llu %llu %llu %s\n", order->position[w->actor],
              w->kind, (ull)w->time.calls, (ull)w->time.errors, (ull)w->time.total,
              (ull)w->time.min, (ull)w->time.max, (ull)w->bytes, w->name);
  }
  for (size_t i = 0; i < r->size_count; i++)
    if (r->sizes[i].backend == b)
      fprintf(f, "s %u %u %llu %llu %s\n", r->sizes[i].function, r->sizes[i].bucket,
              (ull)r->sizes[i].calls, (ull)r->sizes[i].bytes,
              tb->desc->functions[r->sizes[i].function].name);
  /* The collectives: `c INDEX OP RANKS SIZE CALLS TIME KERNELS DEVICE NAME`. */
  for (size_t i = 0; i < r->collectives.count; i++) {
    const struct collective_row *c = &r->collectives.rows[i];
    if (c->backend == b)
      fprintf(f, "c %u %lld %lld %llu %llu %llu %llu %llu %s\n", c->function, (long long)c->op,
              (long long)c->ranks, (ull)c->size, (ull)c->calls, (ull)c->time_ns,
              (ull)c->kernels, (ull)c->device_ns, tb->desc->functions[c->function].name);
  }
  /* The arrivals at each collective:
   * `g INDEX COMM SEQ RANKS FIRST LAST LAST_RANK ARRIVALS NAME`. */
  for (size_t i = 0; i < r->stragglers.count; i++) {
    const struct straggler_collective *g = &r->stragglers.rows[i];
    if (g->backend == b)
      fprintf(f, "g %u %llu %llu %lld %llu %llu %ld %u %s\n", g->function, (ull)g->comm,
              (ull)g->seq, (long long)g->ranks, (ull)g->first, (ull)g->last, g->last_rank,
              g->arrivals, tb->desc->functions[g->function].name);
  }
}

/* The device counters (version 4): `sd RANK INDEX BACKEND NAME` a device, then its
 * counters, `sc READINGS MOST_AT FIRST LAST ENERGY LEAST MEAN MOST JOULES UNIT NAME`
 * (times in ns; the figures as %.17g, which reads back to the same double), and
 * `sn WHY` per library a sampler could not use. */
static void write_samples(FILE *f, const struct samples_report *s) {
  for (size_t i = 0; i < s->device_count; i++) {
    const struct samples_device *dev = &s->devices[i];
    fprintf(f, "sd %ld %u %s %.*s\n", dev->rank, dev->index, dev->backend,
            (int)strcspn(dev->name, "\n"), dev->name);
    for (size_t k = 0; k < dev->counter_count; k++) {
      const struct samples_counter *c = &dev->counters[k];
      fprintf(f, "sc %zu %llu %llu %llu %d %.17g %.17g %.17g %.17g %s %s\n", c->readings,
              (ull)c->most_at, (ull)c->first, (ull)c->last, c->energy, c->least, c->mean,
              c->most, c->joules, c->unit, c->name);
    }
  }
  for (size_t i = 0; i < s->unavailable_count; i++)
    fprintf(f, "sn %.*s\n", (int)strcspn(s->unavailable[i], "\n"), s->unavailable[i]);
}

/* Each rank's GPUs as HTA defines their time (version 5): `h RANK PID SPAN COMPUTE COMM
 * COPIES IDLE OVERLAP HOST_WAIT KERNELS COMMANDS LAUNCHED OUTLIERS MEDIAN MEAN MAX HOST`,
 * then the short label and the label, after a tab each (labels hold spaces). */
static void write_hta(FILE *f, const struct hta_report *h) {
  for (size_t i = 0; i < h->gpu_count; i++) {
    const struct hta_gpu *g = &h->gpus[i];
    fprintf(f,
            "h %ld %lld %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %lld %lld %lld "
            "%s\t%s\t%s\n",
            g->rank, (long long)g->pid, (ull)g->span, (ull)g->compute, (ull)g->communication,
            (ull)g->copies, (ull)g->idle, (ull)g->comm_overlap, (ull)g->host_wait,
            (ull)g->kernels, (ull)g->commands, (ull)g->launched, (ull)g->delay_outliers,
            (long long)g->delay_median, (long long)g->delay_mean, (long long)g->delay_max,
            g->host[0] ? g->host : "-", g->short_label, g->label);
  }
}

static bool backend_present(const struct job_result *r, size_t b) {
  const struct tally_backend *tb = &r->tally.backends[b];
  if (tb->events || tb->device_count || r->host_share[b].count)
    return true;
  for (uint32_t i = 0; i < tb->function_count; i++)
    if (tb->host[i].calls || tb->unfinished[i])
      return true;
  return false;
}

int result_file_write(const char *path, const struct job_result *r) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f)
    return -1;
  const struct tally *t = &r->tally;
  fprintf(f, "tracer-result %d\nranks", RESULT_FILE_VERSION);
  for (size_t i = 0; i < r->rank_count; i++)
    fprintf(f, " %ld", r->ranks[i]);
  fprintf(f, "\ntimed %zu\n", r->ranks_timed);
  for (size_t i = 0; i < r->failed_count; i++)
    fprintf(f, "failed %ld %d %s\n", r->failed[i].rank, r->failed[i].end_seen,
            r->failed[i].status);
  fprintf(f, "counts %llu %llu %llu %llu %llu %llu\n", (ull)t->events, (ull)t->own_events,
          (ull)t->trace_bytes, (ull)t->discarded, (ull)t->pauses, (ull)t->paused_ns);
  if (t->counted_calls)
    fprintf(f, "counted %llu\n", (ull)t->counted_calls);
  if (t->batched_calls)
    fprintf(f, "batched %llu %llu\n", (ull)t->batched_calls, (ull)t->batch_events);
  if (t->has_clock_read)
    fprintf(f, "clock_read %llu %llu\n", (ull)t->clock_read_ns, (ull)t->counted_call_ps);
  if (t->has_calibration)
    fprintf(f, "calibration %llu %llu %d %llu\n", (ull)t->calibration_event_ps,
            (ull)t->calibration_byte_ps, t->clock_is_tsc, (ull)t->calibration_call_ps);
  if (t->error)
    fprintf(f, "error %.*s\n", (int)strcspn(t->error, "\n"), t->error);
  for (size_t i = 0; i < t->notice_count; i++)
    fprintf(f, "notice %.*s\n", (int)strcspn(t->notices[i], "\n"), t->notices[i]);
  for (size_t i = 0; i < t->loss_count; i++)
    fprintf(f, "loss %llu %s\n", (ull)t->losses[i].discarded, t->losses[i].stream);
  for (size_t i = 0; i < t->regions.count; i++) {
    const struct region_row *g = &t->regions.rows[i];
    fprintf(f, "region %llu %llu %llu %llu %s %s\n", (ull)g->calls, (ull)g->total, (ull)g->min,
            (ull)g->max, g->backend, g->name);
  }
  /* The actors, `a RANK PID TID HOST`, numbered by their order here. */
  struct actor_order order;
  bool failed = actor_order_make(t, &order) != 0;
  for (size_t i = 0; !failed && i < t->actors.count; i++) {
    const struct actor *a = &t->actors.list[order.actor[i]];
    fprintf(f, "a %ld %lld %lld %s\n", a->rank, (long long)a->pid, (long long)a->tid,
            t->hostnames[a->host]);
  }
  for (size_t b = 0; !failed && b < t->backend_count; b++)
    if (backend_present(r, b))
      write_backend(f, r, b, &order);
  actor_order_free(&order);
  for (size_t i = 0; i < r->matrix_count; i++)
    fprintf(f, "m %ld %ld %llu %llu\n", r->matrix[i].from, r->matrix[i].to,
            (ull)r->matrix[i].bytes, (ull)r->matrix[i].messages);
  /* Communicators with an id: `cm COMM COMM_RANK RANK` (a member),
   * `cs COMM FROM PEER BYTES MESSAGES` (sends by the peer's rank in it). */
  for (size_t i = 0; i < r->peers.member_count; i++)
    fprintf(f, "cm %llu %ld %ld\n", (ull)r->peers.members[i].comm,
            r->peers.members[i].comm_rank, r->peers.members[i].rank);
  for (size_t i = 0; i < r->peers.send_count; i++) {
    const struct comm_send *s = &r->peers.sends[i];
    fprintf(f, "cs %llu %ld %ld %llu %llu\n", (ull)s->comm, s->from, s->peer, (ull)s->bytes,
            (ull)s->messages);
  }
  write_samples(f, &r->samples);
  write_hta(f, &r->hta);
  failed = failed || result_sources_write(f, &r->sources) != 0;
  if (r->stragglers.truncated)
    fputs("gt\n", f);
  fputs("end\n", f);
  failed = failed || ferror(f) != 0;
  if (fclose(f) != 0 || failed || rename(tmp, path) != 0) {
    int saved = errno;
    unlink(tmp);
    errno = saved;
    return -1;
  }
  return 0;
}

/* Reads unsigned numbers from *p into v[0..n); false when one is missing. */
static bool numbers(char **p, uint64_t *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char *end;
    errno = 0;
    v[i] = strtoull(*p, &end, 10);
    if (end == *p || errno || (*end && *end != ' ' && *end != '\n'))
      return false;
    *p = end;
  }
  return true;
}

static bool longs(char **p, long *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char *end;
    v[i] = strtol(*p, &end, 10);
    if (end == *p)
      return false;
    *p = end;
  }
  return true;
}

static bool read_spread(char **p, struct job_spread *s) {
  uint64_t v[4];
  long rk[2];
  if (!numbers(p, &v[0], 1) || !longs(p, &rk[0], 1) || !numbers(p, &v[1], 1) ||
      !longs(p, &rk[1], 1) || !numbers(p, &v[2], 2))
    return false;
  *s = (struct job_spread){v[0], v[1], v[2], v[3], rk[0], rk[1]};
  return true;
}

static bool doubles(char **p, double *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char *end;
    v[i] = strtod(*p, &end);
    if (end == *p)
      return false;
    *p = end;
  }
  return true;
}

/* A word of a line (up to the next space), cut off in place; NULL when there is none. */
static char *word_of(char **p) {
  if (**p == ' ')
    (*p)++;
  size_t n = strcspn(*p, " \n");
  if (n == 0 || (*p)[n] != ' ')
    return NULL;
  char *w = *p;
  w[n] = '\0';
  *p += n + 1;
  return w;
}

/* The rest of a line after one space: a name. */
static char *rest(char *p) {
  if (*p == ' ')
    p++;
  p[strcspn(p, "\n")] = '\0';
  return p;
}

static int backend_index(const char *name) {
  for (size_t i = 0; tracer_backends[i]; i++)
    if (strcmp(tracer_backends[i]->name, name) == 0)
      return (int)i;
  return -1;
}

/* The index of a function named name in desc, trying index first. */
static int function_index(const struct tracer_backend_desc *desc, uint64_t index,
                          const char *name) {
  if (index < desc->function_count && strcmp(desc->functions[index].name, name) == 0)
    return (int)index;
  return backends_function_index(desc, name, strlen(name));
}

struct reader {
  struct job_result *r;
  long *actors;       /* the file's actors (`a` lines) as indices in r->tally.actors; owned */
  size_t actor_count;
  int backend; /* of the last `backend` line; -1 before one, or for one this tracer lacks */
  bool unknown_backend;
  size_t device_rows; /* `d` lines of the backend read so far */
  char *device;       /* the device of the `d` lines that follow (`dd`); NULL: none */
  struct result_sources_reader sources; /* the top source lines (`st`, `sl`, `sk`) */
};

static bool read_line(struct reader *rd, char *line) {
  struct job_result *r = rd->r;
  struct tally *t = &r->tally;
  char *p = line + strcspn(line, " \n");
  char word[16];
  snprintf(word, sizeof word, "%.*s", (int)(p - line), line);
  uint64_t v[9];
  if (strcmp(word, "a") == 0 || strcmp(word, "af") == 0 || strcmp(word, "ad") == 0) {
    if (!r->want_actors) /* the views that need them were not asked for */
      return true;
    if (!word[1]) {
      long rank;
      uint64_t ids[2];
      if (!longs(&p, &rank, 1) || !numbers(&p, ids, 2))
        return false;
      int host = job_result_host(r, rest(p));
      long *grown = realloc(rd->actors, (rd->actor_count + 1) * sizeof *grown);
      if (host < 0 || !grown)
        return false;
      rd->actors = grown;
      long at = actors_find(&t->actors, rank, host, (int64_t)ids[0], (int64_t)ids[1]);
      rd->actors[rd->actor_count++] = at;
      return at >= 0;
    }
    if (rd->unknown_backend)
      return true;
    long kind;
    if (rd->backend < 0 || !numbers(&p, v, 1) || v[0] >= rd->actor_count ||
        !longs(&p, &kind, 1) || !numbers(&p, v + 1, word[1] == 'd' ? 6 : 5))
      return false;
    const char *name = rest(p);
    const struct tracer_backend_desc *desc = t->backends[rd->backend].desc;
    int function = -1;
    if (word[1] == 'f' && (function = function_index(desc, (uint64_t)kind, name)) < 0)
      return true; /* a function this tracer's backend lacks */
    struct actor_row *w = actors_row(&t->actors, (uint32_t)rd->actors[v[0]],
                                     (uint32_t)rd->backend, function,
                                     word[1] == 'd' ? (int)kind : 0, name, strlen(name));
    if (!w)
      return false;
    struct tally_stat st = {v[1], v[2], v[3], v[4], v[5]};
    tally_stat_merge(&w->time, &st);
    if (word[1] == 'd')
      w->bytes += v[6];
    return true;
  }
  if (strcmp(word, "ranks") == 0) {
    long rank;
    while (*p == ' ' && longs(&p, &rank, 1))
      if (job_result_add_rank(r, rank))
        return false;
    return true;
  }
  if (strcmp(word, "timed") == 0) {
    if (!numbers(&p, v, 1))
      return false;
    r->ranks_timed += v[0];
    return true;
  }
  if (strcmp(word, "failed") == 0) {
    struct job_rank_status s = {0};
    long rank;
    if (!longs(&p, &rank, 1) || !numbers(&p, v, 1))
      return false;
    s.rank = rank;
    s.end_seen = v[0] != 0;
    snprintf(s.status, sizeof s.status, "%s", rest(p));
    return job_result_add_failed(r, &s) == 0;
  }
  if (strcmp(word, "counts") == 0) {
    if (!numbers(&p, v, 6))
      return false;
    t->events += v[0];
    t->own_events += v[1];
    t->trace_bytes += v[2];
    t->discarded += v[3];
    t->pauses += v[4];
    t->paused_ns += v[5];
    return true;
  }
  if (strcmp(word, "counted") == 0) {
    if (!numbers(&p, v, 1))
      return false;
    t->counted_calls += v[0];
    return true;
  }
  if (strcmp(word, "batched") == 0) {
    if (!numbers(&p, v, 2))
      return false;
    t->batched_calls += v[0];
    t->batch_events += v[1];
    return true;
  }
  if (strcmp(word, "clock_read") == 0) {
    if (!numbers(&p, v, 1))
      return false;
    if (!t->has_clock_read || v[0] < t->clock_read_ns)
      t->clock_read_ns = v[0];
    t->has_clock_read = true;
    if (numbers(&p, v + 1, 1)) /* a counted call's, in ps: since 2026-11 */
      t->counted_call_ps = counted_cost_least(t->counted_call_ps, v[1]);
    return true;
  }
  if (strcmp(word, "calibration") == 0) {
    if (!numbers(&p, v, 3))
      return false;
    if (!numbers(&p, v + 3, 1)) /* a batched call's cost: since minimal mode batches */
      v[3] = 0;
    if (!t->has_calibration) {
      t->calibration_event_ps = v[0];
      t->calibration_byte_ps = v[1];
      t->calibration_call_ps = v[3];
      t->clock_is_tsc = v[2] != 0;
      t->has_calibration = true;
    }
    return true;
  }
  if (strcmp(word, "notice") == 0) {
    const char *text = rest(p);
    return tally_add_notice(t, text, strlen(text)) == 0;
  }
  if (strcmp(word, "error") == 0) {
    if (!t->error)
      t->error = strdup(rest(p));
    return true;
  }
  if (strcmp(word, "loss") == 0) {
    struct tally_loss *l = realloc(t->losses, (t->loss_count + 1) * sizeof *l);
    if (!l)
      return false;
    t->losses = l;
    if (!numbers(&p, v, 1))
      return false;
    l[t->loss_count].discarded = v[0];
    return (l[t->loss_count++].stream = strdup(rest(p))) != NULL;
  }
  if (strcmp(word, "region") == 0) {
    if (!numbers(&p, v, 4))
      return false;
    char *names = rest(p), *space = strchr(names, ' ');
    if (!space)
      return false;
    *space = '\0';
    struct region_row row = {names, space + 1, v[0], v[1], v[2], v[3]};
    struct regions one = {&row, 1, 1};
    return regions_merge(&t->regions, &one) == 0;
  }
  if (strcmp(word, "backend") == 0) {
    char *name = rest(p), *save = NULL;
    char *tok = strtok_r(name, " ", &save);
    rd->backend = tok ? backend_index(tok) : -1;
    rd->unknown_backend = rd->backend < 0;
    rd->device_rows = 0;
    free(rd->device);
    rd->device = NULL;
    if (rd->backend < 0) /* a backend this tracer was built without: skipped */
      return tok != NULL;
    struct tally_backend *b = &t->backends[rd->backend];
    char *counts[5];
    for (int i = 0; i < 5; i++)
      if (!(counts[i] = strtok_r(NULL, " ", &save)))
        return false;
    b->events += strtoull(counts[0], NULL, 10);
    b->processes.len += strtoull(counts[1], NULL, 10);
    b->threads.len += strtoull(counts[2], NULL, 10);
    b->device_processes.len += strtoull(counts[3], NULL, 10);
    b->device_threads.len += strtoull(counts[4], NULL, 10);
    while ((tok = strtok_r(NULL, " ", &save))) {
      int h = job_result_host(r, tok);
      if (h < 0 || id_set_add(&b->hosts, (uint64_t)h))
        return false;
    }
    return true;
  }
  if (strcmp(word, "m") == 0) {
    long ft[2];
    return longs(&p, ft, 2) && numbers(&p, v, 2) &&
           job_result_add_matrix(r, ft[0], ft[1], v[0], v[1]) == 0;
  }
  if (strcmp(word, "end") == 0)
    return true;
  if (strcmp(word, "cm") == 0) {
    long ranks[2];
    return numbers(&p, v, 1) && longs(&p, ranks, 2) &&
           comm_peers_add_member(&r->peers, v[0], ranks[0], ranks[1]) == 0;
  }
  if (strcmp(word, "cs") == 0) {
    long ranks[2];
    if (!numbers(&p, v, 1) || !longs(&p, ranks, 2) || !numbers(&p, v + 1, 2))
      return false;
    struct comm_send send = {v[0], ranks[0], ranks[1], v[1], v[2]};
    return comm_peers_add_send(&r->peers, &send) == 0;
  }
  if (strcmp(word, "sd") == 0) {
    long rank;
    char *backend;
    if (!longs(&p, &rank, 1) || !numbers(&p, v, 1) || v[0] > UINT32_MAX ||
        !(backend = word_of(&p)))
      return false;
    return samples_add_device(&r->samples, backend, (uint32_t)v[0], rest(p), rank) != NULL;
  }
  if (strcmp(word, "sc") == 0) {
    double x[4];
    char *unit;
    if (!r->samples.device_count || !numbers(&p, v, 5) || v[4] > 1 || !doubles(&p, x, 4) ||
        !(unit = word_of(&p)))
      return false;
    struct samples_counter *c = samples_add_counter(
        &r->samples.devices[r->samples.device_count - 1], rest(p), unit);
    if (!c)
      return false;
    c->readings = v[0];
    c->most_at = v[1];
    c->first = v[2];
    c->last = v[3];
    c->energy = v[4];
    c->least = x[0];
    c->mean = x[1];
    c->most = x[2];
    c->joules = x[3];
    return true;
  }
  if (strcmp(word, "sn") == 0)
    return samples_add_unavailable(&r->samples, rest(p)) == 0;
  if (strcmp(word, "h") == 0) {
    long ids[2], delays[3];
    uint64_t n[11];
    struct hta_gpu g = {0};
    if (!longs(&p, ids, 2) || !numbers(&p, n, 11) || !longs(&p, delays, 3))
      return false;
    char *text = rest(p), *short_label = strchr(text, '\t');
    char *label = short_label ? strchr(short_label + 1, '\t') : NULL;
    if (!label)
      return false;
    *short_label++ = '\0', *label++ = '\0';
    g.rank = ids[0], g.pid = ids[1];
    g.span = n[0], g.compute = n[1], g.communication = n[2], g.copies = n[3], g.idle = n[4];
    g.comm_overlap = n[5], g.host_wait = n[6], g.kernels = n[7], g.commands = n[8];
    g.launched = n[9], g.delay_outliers = n[10];
    g.delay_median = delays[0], g.delay_mean = delays[1], g.delay_max = delays[2];
    snprintf(g.host, sizeof g.host, "%s", text);
    snprintf(g.short_label, sizeof g.short_label, "%s", short_label);
    snprintf(g.label, sizeof g.label, "%s", label);
    return hta_append(&r->hta, &g, 1, -1) == 0;
  }
  if (strcmp(word, "st") == 0 || strcmp(word, "sl") == 0 || strcmp(word, "sk") == 0)
    return result_sources_read(&rd->sources, word, p);
  if (strcmp(word, "gt") == 0) { /* the arrivals were truncated */
    r->stragglers.truncated = true;
    return true;
  }
  /* Lines of the last backend. */
  if (rd->unknown_backend && (strcmp(word, "share") == 0 || strcmp(word, "f") == 0 ||
                              strcmp(word, "d") == 0 || strcmp(word, "s") == 0 ||
                              strcmp(word, "c") == 0 || strcmp(word, "g") == 0 ||
                              strcmp(word, "o") == 0))
    return true;
  if (rd->backend < 0)
    return false;
  size_t bi = (size_t)rd->backend;
  struct tally_backend *b = &t->backends[bi];
  if (strcmp(word, "share") == 0) {
    struct job_spread host, device;
    if (!read_spread(&p, &host) || !read_spread(&p, &device))
      return false;
    job_spread_merge(&r->host_share[bi], &host);
    job_spread_merge(&r->device_share[bi], &device);
    return true;
  }
  if (strcmp(word, "f") == 0) {
    struct job_spread s;
    if (!numbers(&p, v, 8) || !read_spread(&p, &s))
      return false;
    int f = function_index(b->desc, v[0], rest(p));
    if (f < 0) /* a function this tracer's backend lacks */
      return true;
    struct tally_stat st = {v[1], v[2], v[3], v[4], v[5]};
    struct tally_stat *into = &b->host[f];
    if (st.calls) {
      if (!into->calls || st.min < into->min)
        into->min = st.min;
      if (st.max > into->max)
        into->max = st.max;
      into->calls += st.calls;
      into->errors += st.errors;
      into->total += st.total;
    }
    b->unfinished[f] += v[6];
    b->message_bytes[f] += v[7];
    job_spread_merge(&r->function_ns[bi][f], &s);
    return true;
  }
  if (strcmp(word, "o") == 0) {
    if (!numbers(&p, v, 2))
      return false;
    int f = function_index(b->desc, v[0], rest(p));
    if (f >= 0)
      b->outer[f] += v[1];
    return true;
  }
  if (strcmp(word, "fi") == 0) {
    if (!numbers(&p, v, 6))
      return false;
    int f = function_index(b->desc, v[0], rest(p));
    struct tally_stat st = {v[1], v[2], v[3], v[4], v[5]};
    if (f >= 0)
      tally_stat_merge(&b->inside[f], &st);
    return true;
  }
  if (strcmp(word, "dd") == 0) {
    const char *label = rest(p);
    free(rd->device);
    rd->device = NULL;
    return strcmp(label, "-") == 0 || (rd->device = strdup(label)) != NULL;
  }
  if (strcmp(word, "d") == 0) {
    long kind;
    if (!longs(&p, &kind, 1) || !numbers(&p, v, 8))
      return false;
    struct tally_device src = {rest(p), (int)kind, {v[0], v[1], v[2], v[3], v[4]}, v[5], v[6],
                               v[7], rd->device};
    struct tally_device *d = job_result_device_row(b, &src, src.device, rd->device_rows++);
    if (!d)
      return false;
    tally_device_merge(d, &src);
    return true;
  }
  if (strcmp(word, "s") == 0) {
    if (!numbers(&p, v, 4))
      return false;
    int f = function_index(b->desc, v[0], rest(p));
    if (f < 0 || v[1] >= JOB_SIZE_BUCKETS)
      return f < 0;
    struct job_size_row row = {(uint32_t)bi, (uint32_t)f, (uint32_t)v[1], v[2], v[3]};
    return job_result_add_size(r, &row) == 0;
  }
  if (strcmp(word, "c") == 0) {
    long key[2];
    if (!numbers(&p, v, 1) || !longs(&p, key, 2) || !numbers(&p, v + 1, 5))
      return false;
    int f = function_index(b->desc, v[0], rest(p));
    if (f < 0) /* a function this tracer's backend lacks */
      return true;
    struct collective_row *c =
        collectives_row(&r->collectives, (uint32_t)bi, (uint32_t)f, key[0], key[1], v[1]);
    if (!c)
      return false;
    c->calls += v[2];
    c->time_ns += v[3];
    c->kernels += v[4];
    c->device_ns += v[5];
    return true;
  }
  if (strcmp(word, "g") == 0) {
    long ranks[2]; /* RANKS, then LAST_RANK */
    if (!numbers(&p, v, 3) || !longs(&p, ranks, 1) || !numbers(&p, v + 3, 2) ||
        !longs(&p, ranks + 1, 1) || !numbers(&p, v + 5, 1))
      return false;
    int f = function_index(b->desc, v[0], rest(p));
    if (f < 0 || v[1] == 0) /* a function this tracer's backend lacks; no communicator */
      return true;
    struct straggler_collective g = {v[1], v[2], (uint32_t)bi, (uint32_t)f, ranks[0],
                                     v[3], v[4], ranks[1], (uint32_t)v[5]};
    return stragglers_add(&r->stragglers, &g) == 0;
  }
  return false;
}

int result_file_read(const char *path, struct job_result *r, char *error, size_t size) {
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(error, size, "Cannot read the result: file=%s: %s", path, strerror(errno));
    return -1;
  }
  char *line = NULL;
  size_t cap = 0;
  long number = 0;
  int version = 0;
  bool ended = false;
  struct reader rd = {r, NULL, 0, -1, false, 0, NULL, {&r->sources, 0}};
  int rc = 0;
  while (getline(&line, &cap, f) > 0) {
    number++;
    if (number == 1) {
      if (sscanf(line, "tracer-result %d", &version) != 1 || version < RESULT_FILE_OLDEST ||
          version > RESULT_FILE_VERSION) {
        snprintf(error, size,
                 "%s:1: Cannot read the result: expected `tracer-result %d` (or an older "
                 "version, from %d)",
                 path, RESULT_FILE_VERSION, RESULT_FILE_OLDEST);
        rc = -1;
        break;
      }
      continue;
    }
    if (ended || !read_line(&rd, line)) {
      snprintf(error, size, "%s:%ld: Cannot read the result: unexpected line `%.*s`", path,
               number, (int)strcspn(line, "\n"), line);
      rc = -1;
      break;
    }
    ended = strncmp(line, "end", 3) == 0 && (line[3] == '\n' || !line[3]);
  }
  if (rc == 0 && !ended) {
    snprintf(error, size, "%s:%ld: Cannot read the result: it ends before its `end` line",
             path, number);
    rc = -1;
  }
  free(line);
  free(rd.actors);
  free(rd.device);
  fclose(f);
  return rc;
}

long result_file_ranks(const char *path, long **ranks) {
  *ranks = NULL;
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  char *line = NULL;
  size_t cap = 0;
  long n = -1;
  if (getline(&line, &cap, f) > 0 && strncmp(line, "tracer-result ", 14) == 0 &&
      getline(&line, &cap, f) > 0 && strncmp(line, "ranks", 5) == 0) {
    size_t count = 0, rcap = 0;
    char *p = line + 5;
    long rank;
    n = 0;
    while (*p == ' ' && longs(&p, &rank, 1)) {
      if (count == rcap) {
        long *grown = realloc(*ranks, (rcap = rcap ? 2 * rcap : 64) * sizeof *grown);
        if (!grown)
          break;
        *ranks = grown;
      }
      (*ranks)[count++] = rank;
    }
    n = (long)count;
  }
  free(line);
  fclose(f);
  return n;
}
