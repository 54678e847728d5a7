/* tracer_stacks: see tracer_stacks.h. */
#include "tracer_stacks.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stacks_native.h"
#include "stacks_python.h"
#include "tracer_recording.h"
#include "tracer_tracepoints.h"

enum {
  INTERNED_SLOTS = 1 << 16,                  /* open addressing, a power of two */
  INTERNED_MAX = INTERNED_SLOTS / 4 * 3,     /* distinct stacks per process */
  PYTHON_TEXT = 32 << 10,                    /* the python field's bytes at most */
};

/* The ids of the stacks this process wrote: an id is stored after its event is written,
 * under `lock`, and read without it (a thread that finds no id takes the lock and looks
 * again). NULL until the first stack. */
static uint64_t *interned;
static unsigned interned_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static bool is_interned(uint64_t id) {
  const uint64_t *slots = __atomic_load_n(&interned, __ATOMIC_ACQUIRE);
  if (!slots)
    return false;
  for (unsigned i = (unsigned)id & (INTERNED_SLOTS - 1);; i = (i + 1) & (INTERNED_SLOTS - 1)) {
    uint64_t at = __atomic_load_n(&slots[i], __ATOMIC_ACQUIRE);
    if (at == id)
      return true;
    if (!at)
      return false;
  }
}

/* Called with lock held, after the stack's event. */
static void intern(uint64_t id) {
  unsigned i = (unsigned)id & (INTERNED_SLOTS - 1);
  while (interned[i])
    i = (i + 1) & (INTERNED_SLOTS - 1);
  __atomic_store_n(&interned[i], id, __ATOMIC_RELEASE);
  interned_count++;
}

/* The id: the frames' values folded in by multiplies, in four lanes (value i into lane
 * i % 4) so that four multiplies run at once: a stack has a hundred values and each
 * multiply waits for the one before it in its lane. Each step is a bijection of its lane
 * for each value, and so is joining the lanes: stacks that differ in one value never
 * collide. The bits are spread once at the end (the intern table takes the low ones). */
static inline uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x9e3779b97f4a7c15u; }

static inline uint64_t spread(uint64_t h) {
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9u;
  return h ^ h >> 29;
}

struct stack_hash {
  uint64_t lane[4];
  unsigned next;
};

static inline void hash_add(struct stack_hash *h, uint64_t v) {
  h->lane[h->next & 3] = mix(h->lane[h->next & 3], v);
  h->next++;
}

static inline uint64_t hash_id(const struct stack_hash *h) {
  uint64_t id = spread(mix(mix(mix(h->lane[0], h->lane[1]), h->lane[2]), h->lane[3]));
  return id ? id : 1;
}

/* The Python frames as the event's text; false when none could be read. */
static char *python_text(const struct python_frame *frames, int n, bool gil, uint32_t *flags) {
  char *text = malloc(PYTHON_TEXT), line[1400];
  size_t used = 0;
  if (!text)
    return NULL;
  text[0] = 0;
  for (int i = 0; i < n; i++) {
    if (!stacks_python_describe(&frames[i], gil, line, sizeof line))
      snprintf(line, sizeof line, "0\t?\t?");
    size_t len = strlen(line);
    if (used + len + 2 > PYTHON_TEXT) {
      *flags |= TRACER_STACK_PYTHON_TRUNCATED;
      break;
    }
    memcpy(text + used, line, len);
    used += len;
    text[used++] = '\n';
    text[used] = 0;
  }
  return text;
}

/* Writes the stack (its objects first) unless another thread did; false when it cannot
 * be kept (the process has too many). */
static bool write_stack(uint64_t id, const struct python_frame *py, int np, bool gil,
                        const uint64_t *pcs, int nn, uint32_t flags) {
  bool ok = true;
  pthread_mutex_lock(&lock);
  if (!interned)
    __atomic_store_n(&interned, calloc(INTERNED_SLOTS, sizeof *interned), __ATOMIC_RELEASE);
  if (!interned || interned_count >= INTERNED_MAX) {
    ok = false;
  } else if (!is_interned(id)) {
    char *text = python_text(py, np, gil, &flags);
    stacks_objects_note(pcs, nn);
    lttng_ust_tracepoint(lttng_ust_tracer, stack, tracer_pid(), tracer_tid(), id,
                         text ? text : "", pcs, (uint32_t)nn, flags);
    free(text);
    intern(id);
  }
  pthread_mutex_unlock(&lock);
  if (ok && np == 0)
    stacks_python_present(true); /* a process that loads Python later: look again */
  return ok;
}

/* TRACER_STACKS_NATIVE=0: Python frames only, no native walk (to tell the walk's cost
 * from the rest on a real workload: bench/gpu/ddp_overhead.py's mode pystacks). */
static bool native_frames_wanted(void) {
  static int wanted = -1; /* read once: the environment is the app's from then on */
  int w = __atomic_load_n(&wanted, __ATOMIC_RELAXED);
  if (w < 0) {
    const char *v = getenv("TRACER_STACKS_NATIVE");
    w = !(v && strcmp(v, "0") == 0);
    __atomic_store_n(&wanted, w, __ATOMIC_RELAXED);
  }
  return w;
}

uint64_t tracer_stack_capture(unsigned depth, const struct tracer_code *own) {
  if (!lttng_ust_tracepoint_enabled(lttng_ust_tracer, stack) || tracer_recording_limited())
    return 0;
  struct tracer_thread_calls *t = tracer_thread_calls;
  if (!t)
    return 0;
  unsigned top = depth < TRACER_INFLIGHT_DEPTH ? depth : TRACER_INFLIGHT_DEPTH;
  for (unsigned d = top; d-- > 0;) {
    if (t->calls[d].stack) { /* inside a submission: its stack */
      if (depth < TRACER_INFLIGHT_DEPTH)
        t->calls[depth].stack = t->calls[d].stack;
      return t->calls[d].stack;
    }
  }
  struct python_frame py[TRACER_STACK_PYTHON_MAX];
  bool py_truncated, gil, native_truncated, cut;
  int np = stacks_python_frames(py, TRACER_STACK_PYTHON_MAX, &py_truncated, &gil);
  uint64_t pcs[TRACER_STACK_NATIVE_MAX];
  int nn = native_frames_wanted()
               ? stacks_native_frames(pcs, TRACER_STACK_NATIVE_MAX, own, np > 0,
                                      &native_truncated, &cut)
               : (native_truncated = cut = false, 0);
  uint32_t flags = (native_truncated ? TRACER_STACK_NATIVE_TRUNCATED : 0) |
                   (py_truncated ? TRACER_STACK_PYTHON_TRUNCATED : 0) |
                   (np > 0 ? TRACER_STACK_PYTHON : 0);
  struct stack_hash h = {{0x5eed, 0x5eed + 1, 0x5eed + 2, 0x5eed + 3}, 0};
  hash_add(&h, flags);
  hash_add(&h, (uint64_t)np); /* where the Python frames end and the native ones begin */
  for (int i = 0; i < np; i++) {
    hash_add(&h, py[i].code);
    hash_add(&h, (uint64_t)(uint32_t)py[i].offset | (uint64_t)py[i].line << 32);
  }
  for (int i = 0; i < nn; i++)
    hash_add(&h, pcs[i]);
  uint64_t id = hash_id(&h);
  if (!is_interned(id) && !write_stack(id, py, np, gil, pcs, nn, flags))
    return 0;
  if (depth < TRACER_INFLIGHT_DEPTH)
    t->calls[depth].stack = id;
  return id;
}

/* A fork child has written no stack in its own name. */
static void forget_in_child(void) {
  pthread_mutex_init(&lock, NULL); /* another thread of the parent may have held it */
  if (interned)
    memset(interned, 0, INTERNED_SLOTS * sizeof *interned);
  interned_count = 0;
  stacks_objects_forget();
}

__attribute__((constructor)) static void stacks_init(void) {
  pthread_atfork(NULL, NULL, forget_in_child);
}
