/* tracer_wrappers: see tracer_wrappers.h. The runtime also exports dlsym: a symbol looked
 * up on a library handle (dlopen'd by the app) comes back as the wrapper when a preloaded
 * interposer wraps it, so calls through it are traced like calls of the exported symbol.
 * The tracer preloads the runtime first, so that its dlsym precedes the C library's.
 */
#include <dlfcn.h>
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

/* The preloaded wrapper exported under name, if it is not real itself. */
static void *wrapper_named(const char *name, void *real) {
  void *wrapper = real_dlsym()(RTLD_DEFAULT, name);
  return wrapper && wrapper != real && in_tracer_object(wrapper) ? wrapper : NULL;
}

void *tracer_wrapper_of(void *real, const char *name) {
  if (!real || in_tracer_object(real))
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
