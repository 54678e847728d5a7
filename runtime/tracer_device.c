/* tracer_device: see tracer_device.h. */
#include "tracer_device.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer_runtime.h"
#include "tracer_wrappers.h"

/* ---- backends ---- */

enum { NAME_SLOTS = 4096, NAME_SIZE = 160 };

static char backend_names[TRACER_BACKENDS][32];
static unsigned backend_count;
static pthread_mutex_t backends_lock = PTHREAD_MUTEX_INITIALIZER;

/* Numbers are never taken back, so a found one needs no lock. */
int tracer_backend_index(const char *backend) {
  unsigned n = __atomic_load_n(&backend_count, __ATOMIC_ACQUIRE);
  for (unsigned i = 0; i < n; i++)
    if (strcmp(backend_names[i], backend) == 0)
      return (int)i;
  pthread_mutex_lock(&backends_lock);
  int index = -1;
  for (unsigned i = 0; i < backend_count && index < 0; i++)
    if (strcmp(backend_names[i], backend) == 0)
      index = (int)i;
  if (index < 0 && backend_count < TRACER_BACKENDS && strlen(backend) < sizeof *backend_names) {
    index = (int)backend_count;
    snprintf(backend_names[index], sizeof *backend_names, "%s", backend);
    __atomic_store_n(&backend_count, backend_count + 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&backends_lock);
  return index;
}

/* ---- what the runtime keeps per backend: kernel names and allocations ---- */

struct kernel_name {
  bool used;
  uintptr_t kernel; /* 0 is a handle too: a null library's */
  char name[NAME_SIZE];
};

struct allocation {
  uintptr_t start;
  uint64_t bytes;
  enum tracer_memory memory;
};

static struct backend_state {
  pthread_mutex_t lock;
  struct kernel_name *names;      /* NAME_SLOTS, open addressing; made when first needed */
  struct allocation *allocations; /* sorted by start */
  size_t allocation_count, allocation_cap;
} states[TRACER_BACKENDS] = {[0 ... TRACER_BACKENDS - 1] = {.lock = PTHREAD_MUTEX_INITIALIZER}};

static struct backend_state *state_of(const char *backend) {
  int index = tracer_backend_index(backend);
  return index < 0 ? NULL : &states[index];
}

static size_t name_home(uintptr_t kernel) {
  return (size_t)(((uint64_t)kernel >> 4) * 0x9E3779B97F4A7C15ull % NAME_SLOTS);
}

void tracer_kernel_named(const char *backend, uintptr_t kernel, const char *name) {
  struct backend_state *s = name && *name ? state_of(backend) : NULL;
  if (!s)
    return;
  pthread_mutex_lock(&s->lock);
  if (!s->names)
    s->names = calloc(NAME_SLOTS, sizeof *s->names);
  for (size_t probe = 0; s->names && probe < NAME_SLOTS; probe++) {
    struct kernel_name *slot = &s->names[(name_home(kernel) + probe) % NAME_SLOTS];
    if (!slot->used || slot->kernel == kernel) {
      slot->used = true;
      slot->kernel = kernel;
      snprintf(slot->name, sizeof slot->name, "%s", name);
      break;
    }
  }
  pthread_mutex_unlock(&s->lock);
}

bool tracer_kernel_name_of(const char *backend, uintptr_t kernel, char *name, size_t size) {
  struct backend_state *s = state_of(backend);
  bool found = false;
  if (!s)
    return false;
  pthread_mutex_lock(&s->lock);
  for (size_t probe = 0; s->names && probe < NAME_SLOTS && !found; probe++) {
    const struct kernel_name *slot = &s->names[(name_home(kernel) + probe) % NAME_SLOTS];
    if (!slot->used)
      break;
    if ((found = slot->kernel == kernel))
      snprintf(name, size, "%s", slot->name);
  }
  pthread_mutex_unlock(&s->lock);
  return found;
}

void tracer_kernel_names_forget(const char *backend) {
  struct backend_state *s = state_of(backend);
  if (!s)
    return;
  pthread_mutex_lock(&s->lock);
  if (s->names)
    memset(s->names, 0, NAME_SLOTS * sizeof *s->names);
  pthread_mutex_unlock(&s->lock);
}

/* The index of the first allocation starting after pointer. Called with the lock held. */
static size_t allocation_after(const struct backend_state *s, uintptr_t pointer) {
  size_t lo = 0, hi = s->allocation_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->allocations[mid].start <= pointer)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

void tracer_allocation_add(const char *backend, const void *pointer, uint64_t bytes,
                           enum tracer_memory memory) {
  struct backend_state *s = pointer ? state_of(backend) : NULL;
  if (!s)
    return;
  pthread_mutex_lock(&s->lock);
  if (s->allocation_count == s->allocation_cap) {
    size_t cap = s->allocation_cap ? 2 * s->allocation_cap : 64;
    struct allocation *grown = realloc(s->allocations, cap * sizeof *grown);
    if (grown)
      s->allocations = grown, s->allocation_cap = cap;
  }
  if (s->allocation_count < s->allocation_cap) {
    size_t i = allocation_after(s, (uintptr_t)pointer);
    memmove(&s->allocations[i + 1], &s->allocations[i],
            (s->allocation_count - i) * sizeof *s->allocations);
    s->allocations[i] = (struct allocation){(uintptr_t)pointer, bytes, memory};
    s->allocation_count++;
  }
  pthread_mutex_unlock(&s->lock);
}

void tracer_allocation_remove(const char *backend, const void *pointer) {
  struct backend_state *s = pointer ? state_of(backend) : NULL;
  if (!s)
    return;
  pthread_mutex_lock(&s->lock);
  size_t i = allocation_after(s, (uintptr_t)pointer);
  if (i > 0 && s->allocations[i - 1].start == (uintptr_t)pointer) {
    memmove(&s->allocations[i - 1], &s->allocations[i],
            (s->allocation_count - i) * sizeof *s->allocations);
    s->allocation_count--;
  }
  pthread_mutex_unlock(&s->lock);
}

enum tracer_memory tracer_allocation_memory(const char *backend, const void *pointer) {
  struct backend_state *s = state_of(backend);
  enum tracer_memory memory = TRACER_MEMORY_UNKNOWN;
  if (!s)
    return memory;
  pthread_mutex_lock(&s->lock);
  size_t i = allocation_after(s, (uintptr_t)pointer);
  if (i > 0 && (uintptr_t)pointer - s->allocations[i - 1].start < s->allocations[i - 1].bytes)
    memory = s->allocations[i - 1].memory;
  pthread_mutex_unlock(&s->lock);
  return memory;
}

/* ---- devices: how a backend finds a command's, and their names ---- */

enum { DEVICES_NAMED = 64 };
static tracer_device_of_fn *device_finders[TRACER_BACKENDS];
static tracer_device_find_fn *handle_finders[TRACER_BACKENDS];
static struct device_names {
  bool named[DEVICES_NAMED];
  char name[DEVICES_NAMED][TRACER_DEVICE_NAME];
  struct {
    uintptr_t handle;
    int32_t ordinal;
  } handles[DEVICES_NAMED];
  unsigned handle_count;
} * device_names[TRACER_BACKENDS]; /* made when first needed */
static pthread_mutex_t devices_lock = PTHREAD_MUTEX_INITIALIZER;

void tracer_device_of_register(const char *backend, tracer_device_of_fn *device_of,
                               tracer_device_find_fn *find) {
  int index = tracer_backend_index(backend);
  if (index < 0)
    return;
  __atomic_store_n(&handle_finders[index], find, __ATOMIC_RELEASE);
  __atomic_store_n(&device_finders[index], device_of, __ATOMIC_RELEASE);
}

int32_t tracer_command_device(const struct tracer_command *command) {
  int index = tracer_backend_index(command->device->backend);
  tracer_device_of_fn *find =
      index < 0 ? NULL : __atomic_load_n(&device_finders[index], __ATOMIC_ACQUIRE);
  return find ? find(command) : TRACER_DEVICE_UNKNOWN;
}

/* The backend's device state, made when first needed. Called with devices_lock held. */
static struct device_names *names_of(int index) {
  if (!device_names[index])
    device_names[index] = calloc(1, sizeof *device_names[index]);
  return device_names[index];
}

void tracer_device_named(const char *backend, int32_t ordinal, const char *name) {
  int index = tracer_backend_index(backend);
  if (index < 0 || ordinal < 0 || ordinal >= DEVICES_NAMED || !name)
    return;
  pthread_mutex_lock(&devices_lock);
  struct device_names *names = names_of(index);
  if (names) {
    snprintf(names->name[ordinal], TRACER_DEVICE_NAME, "%s", name);
    __atomic_store_n(&names->named[ordinal], true, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&devices_lock);
}

bool tracer_device_name_of(const char *backend, int32_t ordinal, char *name, size_t size) {
  int index = tracer_backend_index(backend);
  bool found = false;
  if (index < 0 || ordinal < 0 || ordinal >= DEVICES_NAMED)
    return false;
  pthread_mutex_lock(&devices_lock);
  const struct device_names *names = device_names[index];
  if ((found = names && names->named[ordinal]))
    snprintf(name, size, "%s", names->name[ordinal]);
  pthread_mutex_unlock(&devices_lock);
  return found;
}

/* The ordinal kept for a handle, or, kept when found, the one find gives; the driver is
 * asked without the lock held. */
int32_t tracer_device_ordinal(const char *backend, uintptr_t handle) {
  int index = tracer_backend_index(backend);
  tracer_device_find_fn *find =
      index < 0 ? NULL : __atomic_load_n(&handle_finders[index], __ATOMIC_ACQUIRE);
  int32_t ordinal = TRACER_DEVICE_UNKNOWN;
  if (!find)
    return ordinal;
  pthread_mutex_lock(&devices_lock);
  const struct device_names *names = device_names[index];
  for (unsigned i = 0; names && i < names->handle_count && ordinal < 0; i++)
    if (names->handles[i].handle == handle)
      ordinal = names->handles[i].ordinal;
  pthread_mutex_unlock(&devices_lock);
  char name[TRACER_DEVICE_NAME] = "";
  if (ordinal >= 0 || (ordinal = find(handle, name, sizeof name)) < 0)
    return ordinal < 0 ? TRACER_DEVICE_UNKNOWN : ordinal;
  tracer_device_named(backend, ordinal, name);
  pthread_mutex_lock(&devices_lock);
  struct device_names *kept = names_of(index);
  if (kept && kept->handle_count < DEVICES_NAMED) {
    kept->handles[kept->handle_count].handle = handle;
    kept->handles[kept->handle_count++].ordinal = ordinal;
  }
  pthread_mutex_unlock(&devices_lock);
  return ordinal;
}

/* ---- names of commands ---- */

static char letter_of(const struct tracer_copy_names *names, enum tracer_memory memory) {
  switch (memory) {
  case TRACER_MEMORY_HOST: return names->host;
  case TRACER_MEMORY_DEVICE: return names->device;
  case TRACER_MEMORY_SHARED: return names->shared;
  default: return names->pageable;
  }
}

void tracer_copy_kind(const struct tracer_copy_names *names, enum tracer_memory src,
                      enum tracer_memory dst, char *kind, size_t size) {
  /* What the driver does not know is ordinary host memory. */
  src = src == TRACER_MEMORY_UNKNOWN ? TRACER_MEMORY_PAGEABLE : src;
  dst = dst == TRACER_MEMORY_UNKNOWN ? TRACER_MEMORY_PAGEABLE : dst;
  /* Pageable copies are staged by the driver and run slower: that one is said first. */
  const char *host = !names->host_kind                                                ? ""
                     : src == TRACER_MEMORY_PAGEABLE || dst == TRACER_MEMORY_PAGEABLE ? " pageable"
                     : src == TRACER_MEMORY_HOST || dst == TRACER_MEMORY_HOST         ? " pinned"
                                                                                      : "";
  snprintf(kind, size, "%c2%c%s", letter_of(names, src), letter_of(names, dst), host);
}

/* Where one end of a copy lives: on the device when the direction says so, else where
 * the backend says, else on the host. */
static enum tracer_memory end_of(const struct tracer_command *c, const void *pointer, bool device) {
  if (device)
    return TRACER_MEMORY_DEVICE;
  return c->device->memory_of ? c->device->memory_of(c, pointer) : TRACER_MEMORY_HOST;
}

/* The kind of a copy, or false when nothing says it. */
static bool copy_kind_of(const struct tracer_command *c, char *kind, size_t size) {
  bool src_device, dst_device;
  switch (c->direction) {
  case TRACER_COPY_H2D: src_device = false, dst_device = true; break;
  case TRACER_COPY_D2H: src_device = true, dst_device = false; break;
  case TRACER_COPY_D2D: src_device = dst_device = true; break;
  case TRACER_COPY_H2H: src_device = dst_device = false; break;
  case TRACER_COPY_UNKNOWN:
    if (!c->device->memory_of)
      return false;
    src_device = dst_device = false;
    break;
  default: return false; /* fills and maps have one end */
  }
  tracer_copy_kind(&c->device->copy_names, end_of(c, c->src, src_device),
                   end_of(c, c->dst, dst_device), kind, size);
  return true;
}

void tracer_command_name(const struct tracer_command *c, char *name, size_t size) {
  const struct tracer_device *d = c->device;
  char kind[32];
  name[0] = '\0';
  if (c->kind == TRACER_COMMAND_KERNEL &&
      ((d->kernel_name && d->kernel_name(c, name, size) && name[0]) ||
       tracer_kernel_name_of(d->backend, c->kernel, name, size)))
    return;
  if (c->kind == TRACER_COMMAND_TRANSFER && c->named_copy && copy_kind_of(c, kind, sizeof kind))
    snprintf(name, size, "%s(%s)", c->name, kind);
  else
    snprintf(name, size, "%s", c->name);
}

enum tracer_copy_direction tracer_copy_direction_of(const struct tracer_direction_value *table,
                                                    size_t count, int64_t value) {
  for (size_t i = 0; i < count; i++)
    if (table[i].value == value)
      return table[i].direction;
  return TRACER_COPY_UNKNOWN;
}

void tracer_command_host(const struct tracer_command *c, bool succeeded, uint64_t start,
                         uint64_t end) {
  if (!succeeded)
    return;
  char name[NAME_SIZE];
  tracer_command_name(c, name, sizeof name);
  struct tracer_call_id call = tracer_call_returned();
  call.tid = tracer_tid(), call.start = start;
  tracer_device_command_on(&call, c->device->backend, tracer_command_device(c), c->kind, name,
                           c->bytes, c->queue, start, end);
}

typedef char *cxa_demangle_fn(const char *, char *, size_t *, int *);

void tracer_demangle(const char *name, char *out, size_t size) {
  static cxa_demangle_fn *cxa_demangle;
  static int looked;
  if (strncmp(name, "_Z", 2) != 0) {
    snprintf(out, size, "%s", name);
    return;
  }
  /* Every C++ app has the C++ runtime loaded; a C app gets it at its first mangled name. */
  if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
    void *cxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
    if (!cxx)
      cxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    if (cxx)
      cxa_demangle = (cxa_demangle_fn *)tracer_real_dlsym(cxx, "__cxa_demangle");
    __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
  }
  int status = -1;
  char *plain = cxa_demangle ? cxa_demangle(name, NULL, NULL, &status) : NULL;
  snprintf(out, size, "%s", plain && status == 0 ? plain : name);
  free(plain);
}
