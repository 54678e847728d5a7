/* tracer_wrappers: see tracer_wrappers.h. The runtime also exports dlsym: a symbol looked
 * up on a library handle (dlopen'd by the app) comes back as the wrapper when a preloaded
 * interposer wraps it, so calls through it are traced like calls of the exported symbol.
 * The tracer preloads the runtime first, so that its dlsym precedes the C library's.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdbool.h>
#include <string.h>

#include "tracer_runtime.h"
#include "tracer_wrappers.h"

typedef void *dlsym_fn(void *, const char *);

static dlsym_fn *real_dlsym(void) {
  static dlsym_fn *cached;
  dlsym_fn *fn = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
  if (!fn) {
    /* dlvsym is not interposed; glibc 2.34 moved dlsym into libc under a new version. */
    fn = (dlsym_fn *)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!fn)
      fn = (dlsym_fn *)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    __atomic_store_n(&cached, fn, __ATOMIC_RELEASE);
  }
  return fn;
}

void *tracer_real_dlsym(void *handle, const char *name) { return real_dlsym()(handle, name); }

/* The tracer's own objects are named libtracer_<name>.so. */
static bool in_tracer_object(const void *address) {
  Dl_info info;
  if (!address || !dladdr(address, &info) || !info.dli_fname)
    return false;
  const char *base = strrchr(info.dli_fname, '/');
  base = base ? base + 1 : info.dli_fname;
  return strncmp(base, "libtracer_", 10) == 0;
}

struct elsewhere {
  const char *symbol;
  const void *after; /* an address in the library the search starts after */
  bool passed;       /* that library was met */
  void *found;
};

static int look_in_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct elsewhere *e = data;
  if (!e->passed) {
    for (int i = 0; i < info->dlpi_phnum && !e->passed; i++) {
      const ElfW(Phdr) *p = &info->dlpi_phdr[i];
      uintptr_t lo = info->dlpi_addr + p->p_vaddr;
      e->passed = p->p_type == PT_LOAD && (uintptr_t)e->after >= lo &&
                  (uintptr_t)e->after < lo + p->p_memsz;
    }
    return 0;
  }
  const char *base = strrchr(info->dlpi_name, '/');
  base = base ? base + 1 : info->dlpi_name;
  if (!*base || strncmp(base, "libtracer_", 10) == 0)
    return 0; /* the program, or one of ours */
  void *handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (!handle)
    return 0;
  void *found = real_dlsym()(handle, e->symbol);
  dlclose(handle);
  Dl_info where;
  /* A handle's scope holds its dependencies: only a definition of this very object. */
  if (found && dladdr(found, &where) && where.dli_fbase == (void *)info->dlpi_addr)
    e->found = found;
  return e->found != NULL;
}

void *tracer_find_elsewhere(const char *symbol, const void *after) {
  struct elsewhere e = {symbol, after, false, NULL};
  dl_iterate_phdr(look_in_object, &e);
  return e.found;
}

/* The interposers loaded, by the library their wrappers call. */
enum { INTERPOSERS_MAX = 32 };
static struct {
  const char *library;     /* a string literal of the interposer */
  const void *base;        /* where the interposer is loaded */
  struct tracer_code code; /* its executable segments (the stacks leave its frames out) */
} interposers[INTERPOSERS_MAX];
static unsigned interposer_count;

void tracer_interposer_register(const char *library, const void *address) {
  Dl_info info;
  if (!dladdr(address, &info))
    return;
  unsigned i = __atomic_load_n(&interposer_count, __ATOMIC_ACQUIRE);
  if (i == INTERPOSERS_MAX)
    return;
  /* Interposers load one after another, in the loader's lock: no two register at once. */
  interposers[i].library = library;
  interposers[i].base = info.dli_fbase;
  tracer_code_of(address, &interposers[i].code);
  __atomic_store_n(&interposer_count, i + 1, __ATOMIC_RELEASE);
}

unsigned tracer_interposer_count(void) {
  return __atomic_load_n(&interposer_count, __ATOMIC_ACQUIRE);
}

unsigned tracer_interposer_code(struct tracer_code *codes, unsigned max) {
  unsigned n = __atomic_load_n(&interposer_count, __ATOMIC_ACQUIRE);
  n = n < max ? n : max;
  for (unsigned i = 0; i < n; i++)
    codes[i] = interposers[i].code;
  return n;
}

static const char *library_of_interposer(const void *wrapper) {
  Dl_info info;
  if (!dladdr(wrapper, &info))
    return NULL;
  unsigned n = __atomic_load_n(&interposer_count, __ATOMIC_ACQUIRE);
  for (unsigned i = 0; i < n; i++)
    if (interposers[i].base == info.dli_fbase)
      return interposers[i].library;
  return NULL;
}

/* The preloaded wrapper exported under name, if it calls real itself: the interposer's
 * library, as the wrapper finds it (by soname, the copy already loaded), exports real
 * under that name. */
static void *wrapper_named(const char *name, void *real) {
  void *wrapper = real_dlsym()(RTLD_DEFAULT, name);
  if (!wrapper || wrapper == real || !in_tracer_object(wrapper))
    return NULL;
  const char *library = library_of_interposer(wrapper);
  void *handle = library ? dlopen(library, RTLD_LAZY | RTLD_NOLOAD) : NULL;
  bool same = handle && real_dlsym()(handle, name) == real;
  if (handle)
    dlclose(handle);
  return same ? wrapper : NULL;
}

static void *wrapper_of(void *real, const char *name);

/* The lookups made here fail often (most names have no wrapper); a failed lookup leaves
 * its message for dlerror(), which callers of a dlsym that succeeded may check (PoCL
 * does): it is cleared before returning. */
void *tracer_wrapper_of(void *real, const char *name) {
  if (!real)
    return real;
  void *found = wrapper_of(real, name);
  (void)dlerror();
  return found;
}

static void *wrapper_of(void *real, const char *name) {
  if (in_tracer_object(real))
    return real;
  Dl_info info;
  if (!dladdr(real, &info) || !info.dli_fname)
    return real;
  /* The name asked for, when the library exports the function under it. */
  if (name) {
    void *object = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    bool exported = object && real_dlsym()(object, name) == real;
    if (object)
      dlclose(object);
    if (exported) {
      void *wrapper = wrapper_named(name, real);
      return wrapper ? wrapper : real;
    }
  }
  /* Else the name the library exports at that address (a versioned entry point). */
  if (info.dli_sname && info.dli_saddr == real) {
    void *wrapper = wrapper_named(info.dli_sname, real);
    if (wrapper) {
      tracer_debug("%s handed out as the wrapper of %s", name ? name : "?", info.dli_sname);
      return wrapper;
    }
  }
  return real;
}

void *tracer_entry_point(void *address, const char *name, const void *interposer,
                         const char *library) {
  void *found = tracer_wrapper_of(address, name);
  Dl_info self;
  if (found != address || !name || !dladdr(interposer, &self))
    return found;
  void *own = dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  void *wrapper = own ? real_dlsym()(own, name) : NULL;
  void *loaded = wrapper ? dlopen(library, RTLD_LAZY | RTLD_NOLOAD) : NULL;
  if (loaded && real_dlsym()(loaded, name))
    found = wrapper;
  if (loaded)
    dlclose(loaded);
  if (own)
    dlclose(own);
  (void)dlerror();
  return found;
}

/* Lookups relative to the caller (RTLD_NEXT, RTLD_DEFAULT) go straight on, as a sibling
 * call, so the C library still sees the caller's return address. Lookups the tracer's
 * own objects make get the real function: that is how the interposers find it. */
__attribute__((visibility("default"))) void *dlsym(void *handle, const char *name) {
  if (handle == RTLD_NEXT || handle == RTLD_DEFAULT)
    return real_dlsym()(handle, name);
  void *symbol = real_dlsym()(handle, name);
  if (!symbol || in_tracer_object(__builtin_return_address(0)))
    return symbol;
  return tracer_wrapper_of(symbol, name);
}
