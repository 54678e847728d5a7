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
  SKIP_MAX = 8,      /* the runtime's and the interposer's frames on top of the caller's */
  FIRST_WALK = 24,   /* frames walked first on a thread that runs Python */
  OBJECTS_MAX = 512, /* objects kept per process; past that, written again each time */
  BUILD_ID_MAX = 64,
};

/* The runtime's own code: its frames (this walk, the capture) are not the app's. */
static struct tracer_code runtime_code;
static pthread_once_t runtime_code_once = PTHREAD_ONCE_INIT;
static void find_runtime_code(void) { tracer_code_of((const void *)stacks_native_frames, &runtime_code); }

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

/* Whether the walk reached Python's interpreter within frames[0, got). */
static bool reached_interpreter(void *const *frames, int got) {
  for (int i = got; i-- > 0;)
    if (stacks_python_interpreter((uintptr_t)frames[i]))
      return true;
  return false;
}

int stacks_native_frames(uint64_t *pcs, int max, const struct tracer_code *own, bool python,
                         bool *truncated, bool *cut) {
  pthread_once(&runtime_code_once, find_runtime_code);
  pthread_once(&libunwind_once, load_libunwind);
  void *frames[TRACER_STACK_NATIVE_MAX + SKIP_MAX];
  int want = max + SKIP_MAX;
  if (want > (int)(sizeof frames / sizeof *frames))
    want = (int)(sizeof frames / sizeof *frames);
  /* A thread that runs Python needs its frames up to the interpreter only, most often a
   * few (a launcher, ctypes, a binding): a short walk first, the whole one when it did not
   * get there (libunwind walks until its buffer is full, each frame some 10-30 ns). */
  int got = python && want > FIRST_WALK ? walk(frames, FIRST_WALK) : 0;
  if (!got || (got == FIRST_WALK && !reached_interpreter(frames, got)))
    got = walk(frames, want);
  int i = 0, n = 0;
  while (i < got && (tracer_code_contains(&runtime_code, frames[i]) ||
                     (own && tracer_code_contains(own, frames[i]))))
    i++;
  *truncated = *cut = false;
  for (; i < got; i++) {
    uintptr_t pc = (uintptr_t)frames[i];
    if (python && stacks_python_interpreter(pc)) {
      *cut = true;
      break;
    }
    if (n == max) {
      *truncated = true;
      break;
    }
    pcs[n++] = pc;
  }
  if (!*cut && got == want && n == max)
    *truncated = true;
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
