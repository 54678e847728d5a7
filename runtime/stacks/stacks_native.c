/* stacks_native: see stacks_native.h. */
#define UNW_LOCAL_ONLY
#include "stacks_native.h"

#include <dlfcn.h>
#include <elf.h>
#include <libunwind.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stacks_python.h"
#include "tracer_stacks.h"
#include "tracer_tracepoints.h"
#include "tracer_wrappers.h"

enum {
  SKIP_MAX = 16,     /* the tracer's frames (and an outer call's) on top of the caller's */
  FIRST_WALK = 24,   /* frames walked first on a thread that runs Python */
  WALK_MARGIN = 4,   /* frames walked past where the interpreter was last time */
  OBJECTS_MAX = 512, /* objects kept per process; past that, written again each time */
  BUILD_ID_MAX = 64,
  TRACER_CODES = 33, /* the runtime and up to 32 interposers (tracer_wrappers.c) */
};

/* The tracer's own code: the runtime (this walk, the capture) and every interposer
 * registered, with the span that holds them all, so that most frames (the app's, which
 * lie outside it) cost two comparisons. Rebuilt when an interposer registers. */
static struct {
  struct tracer_code code[TRACER_CODES];
  unsigned count, interposers;
  uintptr_t lo, hi;
} tracer_own;
static pthread_mutex_t tracer_own_lock = PTHREAD_MUTEX_INITIALIZER;

static void tracer_own_update(void) {
  unsigned n = tracer_interposer_count();
  n = n < TRACER_CODES - 1 ? n : TRACER_CODES - 1;
  if (__atomic_load_n(&tracer_own.interposers, __ATOMIC_ACQUIRE) == n + 1)
    return; /* as it stands: n interposers, and 1 marks the runtime found */
  struct tracer_code interposers[TRACER_CODES - 1];
  n = tracer_interposer_code(interposers, n);
  pthread_mutex_lock(&tracer_own_lock);
  tracer_code_of((const void *)stacks_native_frames, &tracer_own.code[0]);
  for (unsigned i = 0; i < n; i++)
    tracer_own.code[i + 1] = interposers[i];
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  for (unsigned i = 0; i <= n; i++)
    for (int j = 0; j < tracer_own.code[i].count; j++) {
      lo = tracer_own.code[i].lo[j] < lo ? tracer_own.code[i].lo[j] : lo;
      hi = tracer_own.code[i].hi[j] > hi ? tracer_own.code[i].hi[j] : hi;
    }
  tracer_own.lo = lo, tracer_own.hi = hi;
  tracer_own.count = n + 1;
  __atomic_store_n(&tracer_own.interposers, n + 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&tracer_own_lock);
}

static bool tracer_own_contains(uintptr_t pc, const struct tracer_code *own) {
  if (pc < tracer_own.lo || pc >= tracer_own.hi)
    return own && tracer_code_contains(own, (const void *)pc); /* one not registered */
  if (own && tracer_code_contains(own, (const void *)pc))
    return true;
  for (unsigned i = 0; i < tracer_own.count; i++)
    if (tracer_code_contains(&tracer_own.code[i], (const void *)pc))
      return true;
  return false;
}

/* libunwind's walk, loaded at the first stack (dlopen), not linked: an app on a machine
 * without libunwind (a GPU node that carries LTTng alone) starts, its stacks without
 * native frames. */
typedef __typeof__(unw_backtrace) backtrace_fn; /* int (void **, int) */
static backtrace_fn *backtrace_of_libunwind;
static pthread_once_t libunwind_once = PTHREAD_ONCE_INIT;
static void load_libunwind(void) {
  void *library = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
  backtrace_of_libunwind = library ? (backtrace_fn *)tracer_real_dlsym(library, "unw_backtrace")
                                   : NULL;
  if (!backtrace_of_libunwind)
    tracer_debug("stacks: no libunwind.so.8 (%s): no native frames", dlerror());
}

static int walk(void **frames, int size) {
  return backtrace_of_libunwind ? backtrace_of_libunwind(frames, size) : 0;
}

/* The first of frames[0, got) in Python's interpreter, else -1. */
static int interpreter_frame(void *const *frames, int got, const struct tracer_code *interpreter) {
  for (int i = 0; i < got; i++)
    if (tracer_code_contains(interpreter, frames[i]))
      return i;
  return -1;
}

/* How many frames this thread walked to reach the interpreter lately: libunwind walks
 * until its buffer is full (some 7 ns a frame on its cached path), so a walk sized to
 * reach it, and no more, costs least; a deeper place than the last walks again, whole. */
static __thread int python_walk_hint __attribute__((tls_model("initial-exec")));

int stacks_native_frames(uint64_t *pcs, int max, const struct tracer_code *own, bool python,
                         bool *truncated, bool *cut) {
  pthread_once(&libunwind_once, load_libunwind);
  tracer_own_update();
  void *frames[TRACER_STACK_NATIVE_MAX + SKIP_MAX];
  int want = max + SKIP_MAX;
  if (want > (int)(sizeof frames / sizeof *frames))
    want = (int)(sizeof frames / sizeof *frames);
  /* A thread that runs Python needs its frames up to the interpreter only: a walk as deep
   * as it took last time on this thread (FIRST_WALK at first), the whole one when that did
   * not get there. */
  const struct tracer_code *interpreter = python ? stacks_python_interpreter() : NULL;
  int hint = python_walk_hint;
  int size = !interpreter ? want : hint ? hint + WALK_MARGIN : FIRST_WALK;
  size = size < want ? size : want;
  int got = walk(frames, size);
  int end = interpreter ? interpreter_frame(frames, got, interpreter) : -1;
  if (interpreter && end < 0 && got == size && size < want) {
    got = walk(frames, want);
    end = interpreter_frame(frames, got, interpreter);
  }
  if (interpreter) { /* what this walk took (all of it when it never got there), or less */
    int reached = end >= 0 ? end + 1 : want - WALK_MARGIN;
    python_walk_hint = reached > hint - 1 ? reached : hint - 1;
  }
  *cut = end >= 0;
  end = end >= 0 ? end : got;
  /* The tracer's own frames are not the app's: the runtime's and the interposer's on top,
   * and those of an outer traced call this one is made in (a runtime's wrapper, with the
   * runtime's own frames between it and its driver call), which the call chain shows as
   * calls: everything up to the outermost of them goes. */
  int first = 0;
  for (int i = 0; i < end; i++)
    if (tracer_own_contains((uintptr_t)frames[i], own))
      first = i + 1;
  int n = end - first < max ? end - first : max;
  for (int i = 0; i < n; i++)
    pcs[i] = (uintptr_t)frames[first + i];
  *truncated = end - first > max || (!*cut && got == want);
  return n;
}

/* ---- Objects ---------------------------------------------------------------------------- */

struct object_span {
  uintptr_t lo, hi;
};

static struct object_span objects[OBJECTS_MAX];
static unsigned object_count;
static pthread_mutex_t objects_lock = PTHREAD_MUTEX_INITIALIZER;

struct object_found {
  uintptr_t pc;
  uintptr_t base, lo, hi;
  const char *name;
  uint8_t build_id[BUILD_ID_MAX];
  uint32_t build_id_size;
  bool found;
};

/* The GNU build id among an object's notes, as the loader mapped them. */
static void read_build_id(const struct dl_phdr_info *info, const ElfW(Phdr) * ph,
                          struct object_found *f) {
  const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
  while (p + sizeof(ElfW(Nhdr)) <= end) {
    const ElfW(Nhdr) *note = (const ElfW(Nhdr) *)p;
    const char *name = p + sizeof *note;
    const char *desc = name + ((note->n_namesz + 3) & ~3u);
    if (desc + note->n_descsz > end)
      return;
    if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
      f->build_id_size = note->n_descsz < BUILD_ID_MAX ? note->n_descsz : BUILD_ID_MAX;
      memcpy(f->build_id, desc, f->build_id_size);
      return;
    }
    p = desc + ((note->n_descsz + 3) & ~3u);
  }
}

static int find_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct object_found *f = data;
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    uintptr_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
    lo = a < lo ? a : lo;
    hi = b > hi ? b : hi;
    contains |= f->pc >= a && f->pc < b;
  }
  if (!contains)
    return 0;
  f->found = true;
  f->base = info->dlpi_addr, f->lo = lo, f->hi = hi;
  f->name = info->dlpi_name;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_NOTE && !f->build_id_size)
      read_build_id(info, &info->dlpi_phdr[i], f);
  return 1;
}

static bool known(uintptr_t pc) {
  for (unsigned i = 0; i < object_count; i++)
    if (pc >= objects[i].lo && pc < objects[i].hi)
      return true;
  return false;
}

/* Writes the object pc lies in; false when no loaded object holds it. Called with
 * objects_lock held. */
static bool write_object(uintptr_t pc) {
  struct object_found f = {.pc = pc};
  dl_iterate_phdr(find_object, &f);
  if (!f.found)
    return false;
  char self[4096];
  const char *path = f.name;
  if (!path || !*path) { /* the program itself */
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = 0;
    path = self;
  }
  lttng_ust_tracepoint(lttng_ust_tracer, object, tracer_pid(), tracer_tid(), path, f.build_id,
                       f.build_id_size, f.base, f.lo, f.hi);
  if (object_count < OBJECTS_MAX)
    objects[object_count++] = (struct object_span){f.lo, f.hi};
  return true;
}

void stacks_objects_note(const uint64_t *pcs, int n) {
  pthread_mutex_lock(&objects_lock);
  for (int i = 0; i < n; i++)
    if (!known((uintptr_t)pcs[i]))
      write_object((uintptr_t)pcs[i]);
  pthread_mutex_unlock(&objects_lock);
}

void stacks_objects_forget(void) {
  pthread_mutex_init(&objects_lock, NULL); /* another thread of the parent may have held it */
  object_count = 0;
}
