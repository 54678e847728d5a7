/* consumer_thread_unit_test: the ring that runs consumers beside the read
 * (cli/reader/consumer_thread.c) hands every record of every kind, with its arguments,
 * slots and strings, to each consumer that takes its kind, in order, across many turns
 * of the ring; cuts what would not fit; stops the read with a consumer's status; and
 * refuses consumers it cannot carry. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "call_args.h"
#include "consumer_thread.h"
#include "reader_internal.h"

static int failures;
#define CHECK(cond, ...)                                                                    \
  do {                                                                                      \
    if (!(cond) && failures++ < 20) {                                                       \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                  \
      fprintf(stderr, __VA_ARGS__);                                                         \
      fputc('\n', stderr);                                                                  \
    }                                                                                       \
  } while (0)

enum { CALLS = 200000, SLOTS = 12 };
static const char *const names[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
static const char static_value[] = "CL_SUCCESS"; /* a value's name: static, not copied */

/* What record i holds: i's arguments (i % 8 of them), a string of i % 300 bytes for the
 * odd ones, slots for every third. */
static size_t text_of(size_t i, char *text) {
  size_t len = i % 2 ? i % 300 : 0;
  for (size_t k = 0; k < len; k++)
    text[k] = (char)('a' + (i + k) % 26);
  text[len] = 0;
  return len ? len + 1 : 0;
}

struct seen {
  uint64_t calls, devices, regions, ranks, samples, others, pauses, counted, unfinished, costs,
      notices, streams;
  uint64_t next;        /* the next call's number */
  bool check_slots;     /* the group reads slots: every third call has them */
  bool no_slots;        /* none in the group reads them: none copied */
  int fail_at;          /* returns -7 at that call (0: never) */
};

static int on_call(void *context, const struct trace_call *c) {
  struct seen *s = context;
  uint64_t i = (uint64_t)c->pid;
  if (s->fail_at && i == (uint64_t)s->fail_at)
    return -7;
  CHECK(i == s->next, "call %" PRIu64 " came where %" PRIu64 " was due", i, s->next);
  s->next = i + 1;
  s->calls++;
  CHECK(c->from.event == NULL, "call %" PRIu64 ": the raw event reached the thread", i);
  CHECK(c->start == i * 10 && c->end == i * 10 + 5, "call %" PRIu64 ": times", i);
  char text[512];
  size_t used = text_of(i, text);
  size_t want = i % 8 + (used ? 1 : 0) + 1;
  CHECK(c->arg_count == want, "call %" PRIu64 ": %zu arguments, want %zu", i, c->arg_count, want);
  for (size_t k = 0; k < i % 8 && k < c->arg_count; k++)
    CHECK(c->args[k].kind == TRACE_ARG_UINT && c->args[k].v.u == i + k &&
              c->args[k].name == names[k],
          "call %" PRIu64 ": argument %zu", i, k);
  if (used && c->arg_count > i % 8)
    CHECK(strcmp(c->args[i % 8].v.s, text) == 0 && c->args[i % 8].v.s >= c->text &&
              c->args[i % 8].v.s < c->text + c->text_used,
          "call %" PRIu64 ": its string, copied", i);
  CHECK(c->args[c->arg_count - 1].v.s == static_value,
        "call %" PRIu64 ": a static value's name was copied", i);
  if (s->check_slots) {
    size_t slots = i % 3 == 0 ? SLOTS : 0;
    CHECK(c->slot_count == slots, "call %" PRIu64 ": %zu slots", i, c->slot_count);
    for (size_t k = 0; k < c->slot_count; k++)
      CHECK(c->slots[k] == i * 100 + k, "call %" PRIu64 ": slot %zu", i, k);
  } else if (s->no_slots) {
    CHECK(c->slot_count == 0, "call %" PRIu64 ": slots copied that none reads", i);
  }
  return 0;
}

static int on_device(void *context, const struct trace_device *d) {
  struct seen *s = context;
  CHECK(strcmp(d->name, "kernel") == 0 && d->name_len == 6 &&
            strcmp(d->device_name, "gpu") == 0 && d->bytes == s->devices,
        "device %" PRIu64 ": its fields", s->devices);
  s->devices++;
  return 0;
}

static int on_region(void *context, const struct trace_region *r) {
  struct seen *s = context;
  CHECK(strcmp(r->name, "step") == 0 && strcmp(r->backend, "nvtx") == 0 && r->depth == 2,
        "region: its fields");
  s->regions++;
  return 0;
}

static int on_rank(void *context, const struct trace_rank *r) {
  struct seen *s = context;
  CHECK(strcmp(r->launcher, "torchrun") == 0 && r->rank == 3, "rank: its fields");
  s->ranks++;
  return 0;
}

static int on_sample(void *context, const struct trace_sample *x) {
  struct seen *s = context;
  CHECK(strcmp(x->backend, "nvml") == 0 && strcmp(x->counter, "power") == 0 &&
            strcmp(x->unit, "W") == 0 && x->why == NULL && strcmp(x->device_name, "H100") == 0 &&
            x->value == 42.5,
        "sample: its fields");
  s->samples++;
  return 0;
}

static int on_pause(void *context, const struct trace_pause *x) {
  struct seen *s = context;
  CHECK(x->from.event == NULL && x->start_clock == 7 && x->duration_ns == 3, "pause: its fields");
  s->pauses++;
  return 0;
}

static int on_counted(void *context, const struct trace_counted *x) {
  struct seen *s = context;
  CHECK(x->from.event == NULL && x->function == 4 && x->calls == 1000 && x->max_ns == 9,
        "counted: its fields");
  s->counted++;
  return 0;
}

static int on_unfinished(void *context, const struct trace_unfinished *x) {
  struct seen *s = context;
  CHECK(x->from.event == NULL && x->function == 5, "unfinished: its fields");
  s->unfinished++;
  return 0;
}

static int on_cost(void *context, const struct trace_cost *x) {
  struct seen *s = context;
  CHECK(x->from.event == NULL && x->kind == TRACE_COST_CLOCK_READ && x->clock_read_ns == 11,
        "cost: its fields");
  s->costs++;
  return 0;
}

static int on_notice(void *context, const struct trace_notice *x) {
  struct seen *s = context;
  CHECK(strcmp(x->backend, "cuda") == 0 && x->backend_len == 4 &&
            strcmp(x->text, "no CUPTI") == 0 && x->text_len == 8,
        "notice: its fields");
  s->notices++;
  return 0;
}

static int on_stream_done(void *context, const struct trace_stream_stats *x) {
  struct seen *s = context;
  CHECK(x->index == s->streams && strcmp(x->path, "channel0_0") == 0 && x->events == 123,
        "stream %" PRIu64 ": its statistics", s->streams);
  s->streams++;
  return 0;
}

static int on_other(void *context, const struct trace_source *event) {
  (void)event;
  ((struct seen *)context)->others++;
  return 0;
}

/* The call numbered i, as the reader would hand it out. */
static void make_call(size_t i, struct trace_call *c, struct trace_arg *args, char *text,
                      uint64_t *slots) {
  size_t used = text_of(i, text);
  size_t n = 0;
  for (size_t k = 0; k < i % 8; k++)
    args[n++] = (struct trace_arg){.name = names[k], .kind = TRACE_ARG_UINT, .v.u = i + k};
  if (used)
    args[n++] = (struct trace_arg){.name = "s", .kind = TRACE_ARG_STRING, .v.s = text};
  args[n++] = (struct trace_arg){.name = "result", .kind = TRACE_ARG_STRING, .v.s = static_value};
  for (size_t k = 0; k < SLOTS; k++)
    slots[k] = i * 100 + k;
  *c = (struct trace_call){.pid = (int64_t)i, .start = i * 10, .end = i * 10 + 5,
                           .args = args, .arg_count = n, .text = text, .text_used = used,
                           .slots = i % 3 == 0 ? slots : NULL, .slot_count = i % 3 == 0 ? SLOTS : 0};
}

static void every_kind_in_order(void) {
  struct seen all = {0}, calls_only = {.check_slots = true};
  struct trace_consumer a = {.name = "a", .needs = TRACE_NEEDS_ORDER | TRACE_NEEDS_ARGS,
                             .context = &all, .call = on_call, .device = on_device,
                             .region = on_region, .rank = on_rank, .sample = on_sample,
                             .pause = on_pause, .counted = on_counted,
                             .unfinished = on_unfinished, .cost = on_cost,
                             .notice = on_notice, .stream_done = on_stream_done};
  struct trace_consumer b = {.name = "b", .needs = TRACE_NEEDS_SLOTS, .context = &calls_only,
                             .call = on_call};
  const struct trace_consumer *both[] = {&a, &b};
  struct consumer_thread *thread;
  struct trace_consumer up;
  CHECK(consumer_thread_open(both, 2, false, &thread, &up) == 0, "the thread did not start");
  if (failures)
    return;
  CHECK(up.needs == (TRACE_NEEDS_ORDER | TRACE_NEEDS_ARGS | TRACE_NEEDS_SLOTS) && !up.finish &&
            !up.other,
        "the consumer in their place needs what they need");
  struct trace_arg args[16];
  char text[512];
  uint64_t slots[SLOTS];
  uint64_t devices = 0;
  for (size_t i = 0; i < CALLS; i++) {
    struct trace_call c;
    make_call(i, &c, args, text, slots);
    CHECK(up.call(up.context, &c) == 0, "call %zu not taken", i);
    memset(text, 'x', sizeof text - 1); /* the reader reuses its buffers */
    if (i % 1000 == 0) {
      char name[] = "kernel", gpu[] = "gpu";
      struct trace_device d = {.name = name, .name_len = 6, .device_name = gpu,
                               .bytes = devices++};
      CHECK(up.device(up.context, &d) == 0, "device not taken");
      memset(name, 0, sizeof name);
      struct trace_region r = {.name = "step", .name_len = 4, .backend = "nvtx",
                               .backend_len = 4, .depth = 2};
      CHECK(up.region(up.context, &r) == 0, "region not taken");
    }
  }
  struct trace_rank rank = {.launcher = "torchrun", .rank = 3};
  struct trace_sample sample = {.backend = "nvml", .counter = "power", .unit = "W",
                                .device_name = "H100", .value = 42.5};
  CHECK(up.rank(up.context, &rank) == 0 && up.sample(up.context, &sample) == 0,
        "rank or sample not taken");
  struct ctf_event raw = {0};
  struct trace_source from = {.event = &raw};
  struct trace_pause pause = {.from = from, .start_clock = 7, .end_clock = 10, .duration_ns = 3};
  struct trace_counted counted = {.from = from, .function = 4, .calls = 1000, .max_ns = 9};
  struct trace_unfinished unfinished = {.from = from, .function = 5};
  struct trace_cost cost = {.from = from, .kind = TRACE_COST_CLOCK_READ, .clock_read_ns = 11};
  char backend[] = "cuda", said[] = "no CUPTI";
  struct trace_notice notice = {.from = from, .backend = backend, .backend_len = 4,
                                .text = said, .text_len = 8};
  CHECK(up.pause(up.context, &pause) == 0 && up.counted(up.context, &counted) == 0 &&
            up.unfinished(up.context, &unfinished) == 0 && up.cost(up.context, &cost) == 0 &&
            up.notice(up.context, &notice) == 0,
        "pause, counted, unfinished, cost or notice not taken");
  memset(backend, 0, sizeof backend); /* the trace's own strings: copied */
  memset(said, 0, sizeof said);
  for (size_t i = 0; i < 3; i++) {
    struct trace_stream_stats stream = {.index = i, .path = "channel0_0", .events = 123};
    CHECK(up.stream_done(up.context, &stream) == 0, "stream %zu not taken", i);
  }
  CHECK(consumer_thread_close(thread) == 0, "a consumer failed");
  CHECK(all.calls == CALLS && calls_only.calls == CALLS, "calls: %" PRIu64 " and %" PRIu64,
        all.calls, calls_only.calls);
  CHECK(all.devices == devices && all.regions == devices && all.ranks == 1 && all.samples == 1,
        "devices %" PRIu64 ", regions %" PRIu64 ", ranks %" PRIu64 ", samples %" PRIu64,
        all.devices, all.regions, all.ranks, all.samples);
  CHECK(all.pauses == 1 && all.counted == 1 && all.unfinished == 1 && all.costs == 1 &&
            all.notices == 1 && all.streams == 3,
        "pauses, counted, unfinished, costs, notices or streams missing");
  CHECK(calls_only.pauses == 0 && calls_only.streams == 0, "a record reached one that takes none");
}

/* A string larger than a record may hold is cut, and stays terminated. */
static int on_long_device(void *context, const struct trace_device *d) {
  struct seen *s = context;
  size_t k = 0;
  while (d->name[k] == 'k')
    k++;
  CHECK(d->name[k] == 0 && k == d->name_len && k > 0 && k < (1u << 20),
        "a long name: %zu bytes kept, %zu said", k, d->name_len);
  s->devices++;
  return 0;
}

static void long_string_cut(void) {
  struct seen s = {0};
  struct trace_consumer a = {.name = "a", .context = &s, .device = on_long_device};
  const struct trace_consumer *one[] = {&a};
  struct consumer_thread *thread;
  struct trace_consumer up;
  CHECK(consumer_thread_open(one, 1, false, &thread, &up) == 0, "the thread did not start");
  if (!thread)
    return;
  CHECK(up.call == NULL, "a call callback where none takes calls");
  size_t big = 1 << 20;
  char *name = malloc(big + 1);
  memset(name, 'k', big);
  name[big] = 0;
  struct trace_device d = {.name = name, .name_len = big, .device_name = "gpu"};
  CHECK(up.device(up.context, &d) == 0, "a device with a long name not taken");
  CHECK(consumer_thread_close(thread) == 0, "a consumer failed");
  CHECK(s.devices == 1, "the long name did not reach the consumer");
  free(name);
}

/* A consumer's non-zero status stops the read: the producer gets it back, no record
 * reaches the consumers after it, and close returns it. */
static void failure_stops(void) {
  struct seen s = {.fail_at = 1000, .no_slots = true};
  struct trace_consumer a = {.name = "a", .context = &s, .call = on_call};
  const struct trace_consumer *one[] = {&a};
  struct consumer_thread *thread;
  struct trace_consumer up;
  CHECK(consumer_thread_open(one, 1, false, &thread, &up) == 0, "the thread did not start");
  if (!thread)
    return;
  struct trace_arg args[16];
  char text[512];
  uint64_t slots[SLOTS];
  size_t i = 0;
  int rc = 0;
  for (; i < CALLS && rc == 0; i++) {
    struct trace_call c;
    make_call(i, &c, args, text, slots);
    rc = up.call(up.context, &c);
  }
  CHECK(rc == -7, "the producer got %d, not the consumer's -7", rc);
  CHECK(i < CALLS, "the read was not stopped");
  CHECK(consumer_thread_close(thread) == -7, "close did not return the consumer's status");
  CHECK(s.calls == 1000, "%" PRIu64 " calls reached the consumer, want the 1000 before it failed",
        s.calls);
}

/* Raw events, the horizon, a call's record read from its event: not carried. */
static void refuses_raw_events(void) {
  struct seen s = {0};
  struct trace_consumer text = {.name = "text", .context = &s, .call = on_call, .other = on_other};
  struct trace_consumer horizon = {.name = "flame", .needs = TRACE_NEEDS_HORIZON, .context = &s,
                                   .call = on_call};
  struct trace_consumer tally = {.name = "tally", .needs = TRACE_NEEDS_RECORD, .context = &s,
                                 .call = on_call};
  CHECK(!consumer_thread_can_take(&text) && !consumer_thread_can_take(&horizon) &&
            !consumer_thread_can_take(&tally),
        "takes a consumer of raw events, of the horizon or of calls' records");
  const struct trace_consumer *one[] = {&text};
  struct consumer_thread *thread = (struct consumer_thread *)&s;
  struct trace_consumer up;
  CHECK(consumer_thread_open(one, 1, false, &thread, &up) == -1 && thread == NULL,
        "opened a thread for a consumer it cannot carry");
}

/* With the arguments decoded beside the read, the ring carries a call's slots and its
 * strings: the consumer gets the arguments the reading thread would have given it, the
 * named slots (decoded on its thread) then the strings that came with the call. */
struct beside {
  const struct tracer_function_desc *fd;
  struct call_args *cache; /* the answer, decoded here as the reading thread would */
  uint64_t calls, wrong;
};

static void beside_slots(size_t i, uint64_t *slots, size_t n) {
  for (size_t k = 0; k < n; k++)
    slots[k] = i % 7 == 0 ? 0 : i * 1000 + k; /* NULL pointers now and then: out values absent */
}

static int on_call_beside(void *context, const struct trace_call *c) {
  struct beside *b = context;
  size_t i = (size_t)c->pid;
  uint64_t slots[64];
  size_t n = b->fd->slot_count + 4 < 64 ? b->fd->slot_count + 4 : 64;
  beside_slots(i, slots, n);
  struct trace_arg want[READER_MAX_ARGS];
  size_t count = 0;
  call_args_add(b->cache, b->fd, slots, n, want, &count, READER_MAX_ARGS);
  bool ok = c->arg_count == count + 1 && c->slot_count == n;
  for (size_t k = 0; ok && k < count; k++)
    ok = c->args[k].name == want[k].name && c->args[k].kind == want[k].kind &&
         (want[k].kind == TRACE_ARG_STRING ? c->args[k].v.s == want[k].v.s
                                           : c->args[k].v.u == want[k].v.u);
  char text[512];
  text_of(i | 1, text);
  ok = ok && strcmp(c->args[count].name, "s") == 0 && strcmp(c->args[count].v.s, text) == 0;
  if (!ok && b->wrong++ < 5)
    CHECK(false, "call %zu: the arguments decoded beside the read differ (%zu of %zu)", i,
          c->arg_count, count + 1);
  b->calls++;
  return 0;
}

static void args_decoded_beside(void) {
  const struct tracer_backend_desc *desc = NULL;
  const struct tracer_function_desc *fd = NULL;
  for (size_t b = 0; tracer_backends[b] && !fd; b++) /* a function with a few named slots */
    for (size_t f = 0; f < tracer_backends[b]->function_count && !fd; f++)
      if (tracer_backends[b]->functions[f].slot_count >= 4) {
        desc = tracer_backends[b];
        fd = &desc->functions[f];
      }
  CHECK(fd != NULL, "no backend function with named slots");
  if (!fd)
    return;
  struct beside seen = {.fd = fd, .cache = call_args_new()};
  struct trace_consumer a = {.name = "timeline", .needs = TRACE_NEEDS_ORDER | TRACE_NEEDS_ARGS,
                             .context = &seen, .call = on_call_beside};
  const struct trace_consumer *one[] = {&a};
  struct consumer_thread *thread;
  struct trace_consumer up;
  CHECK(consumer_thread_open(one, 1, true, &thread, &up) == 0, "the thread did not start");
  if (!thread)
    return;
  CHECK(!(up.needs & TRACE_NEEDS_ARGS) && up.needs & TRACE_NEEDS_SLOTS &&
            up.needs & TRACE_NEEDS_STRINGS,
        "the reading thread still decodes the arguments (needs 0x%x)", up.needs);
  size_t n = fd->slot_count + 4 < 64 ? fd->slot_count + 4 : 64;
  for (size_t i = 0; i < CALLS / 4; i++) {
    uint64_t slots[64];
    beside_slots(i, slots, n);
    char text[512];
    size_t used = text_of(i | 1, text);
    struct trace_arg s = {.name = "s", .kind = TRACE_ARG_STRING, .v.s = text};
    struct trace_call c = {.desc = desc, .function = (int)(fd - desc->functions),
                           .pid = (int64_t)i, .slots = slots, .slot_count = n, .args = &s,
                           .arg_count = 1, .text = text, .text_used = used};
    CHECK(up.call(up.context, &c) == 0, "call %zu not taken", i);
    memset(slots, 0xff, sizeof slots); /* the reader reuses its buffers */
    memset(text, 'x', sizeof text - 1);
  }
  CHECK(consumer_thread_close(thread) == 0, "a consumer failed");
  CHECK(seen.calls == CALLS / 4 && seen.wrong == 0, "%" PRIu64 " calls, %" PRIu64 " wrong",
        seen.calls, seen.wrong);
  call_args_free(seen.cache);
}

int main(void) {
  every_kind_in_order();
  args_decoded_beside();
  long_string_cut();
  failure_stops();
  refuses_raw_events();
  if (failures) {
    fprintf(stderr, "consumer_thread_unit_test: %d failures\n", failures);
    return 1;
  }
  printf("PASS: consumer_thread_unit_test: %d calls to two consumers in order, cuts, failures\n",
         CALLS);
  return 0;
}
