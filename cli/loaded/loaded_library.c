/* loaded_library: see loaded_library.h. */
#include "loaded_library.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* Called with the lock held, once. Loaded into the global scope and resolved through it,
 * as a linked library's functions are: a definition preloaded ahead of the library (the
 * tests' fault shims, such as tests/session/session_test_slow_create.c) is the one
 * called, and finds the library's own with dlsym(RTLD_NEXT). */
static void load(struct loaded_library *l) {
  void *handle = dlopen(l->soname, RTLD_NOW | RTLD_GLOBAL);
  if (!handle) {
    const char *why = dlerror();
    snprintf(l->failure, sizeof l->failure, "%s", why ? why : l->soname);
    return;
  }
  for (size_t i = 0; i < l->count; i++) {
    void *symbol = dlsym(RTLD_DEFAULT, l->names[i]);
    if (!symbol)
      symbol = dlsym(handle, l->names[i]);
    if (!symbol) {
      snprintf(l->failure, sizeof l->failure, "%s has no %s", l->soname, l->names[i]);
      return;
    }
    /* POSIX: a function's address from dlsym converts to a function pointer; every
     * entry of the table is one (loaded_library.h checks its size). */
    void (*function)(void) = (void (*)(void))symbol;
    memcpy((char *)l->table + i * sizeof function, &function, sizeof function);
  }
}

int loaded_library_load(struct loaded_library *l, const char *doing, struct diag *d) {
  pthread_mutex_lock(&l->lock);
  if (!l->tried) {
    load(l);
    l->tried = true;
  }
  pthread_mutex_unlock(&l->lock);
  if (!l->failure[0])
    return 0;
  return diag_error(d, "%s: %s (%s: install the Debian package %s)", doing, l->failure, l->purpose,
                    l->package);
}
