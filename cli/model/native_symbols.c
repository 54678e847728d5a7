/* native_symbols: see native_symbols.h. */
#include "native_symbols.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dw_library.h"

struct object {
  char *path;
  uint8_t build_id[64];
  size_t build_id_size;
  uint64_t base, start, end;
  Dwfl_Module *module; /* NULL until reported, or when it cannot be read */
  bool tried;
};

struct native_symbols {
  /* Begun at the first address named, libdw loaded then (dw_library.h): a trace without
   * native frames never loads it. NULL before, or when libdw cannot be loaded (tried). */
  Dwfl *dwfl;
  bool tried;
  Dwfl_Callbacks callbacks; /* what dwfl points to */
  struct object *objects;
  size_t count, cap;
};

static char *debuginfo_path;

struct native_symbols *native_symbols_new(void) { return calloc(1, sizeof(struct native_symbols)); }

/* The set's libdwfl session, begun the first time; NULL when libdw cannot be loaded. */
static Dwfl *dwfl_of(struct native_symbols *s) {
  if (s->tried)
    return s->dwfl;
  s->tried = true;
  struct diag d;
  diag_init(&d);
  if (dw_library_load(&d) == 0) {
    s->callbacks = (Dwfl_Callbacks){
        .find_elf = dwfl_build_id_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .section_address = dwfl_offline_section_address,
        .debuginfo_path = &debuginfo_path,
    };
    s->dwfl = dwfl_begin(&s->callbacks);
  }
  diag_clear(&d);
  return s->dwfl;
}

void native_symbols_free(struct native_symbols *s) {
  if (!s)
    return;
  for (size_t i = 0; i < s->count; i++)
    free(s->objects[i].path);
  free(s->objects);
  if (s->dwfl)
    dwfl_end(s->dwfl);
  free(s);
}

bool native_symbols_add(struct native_symbols *s, const char *path, const uint8_t *build_id,
                        size_t build_id_size, uint64_t base, uint64_t start, uint64_t end) {
  for (size_t i = 0; i < s->count; i++) /* the same object written again (a fork's) */
    if (s->objects[i].start == start && s->objects[i].end == end &&
        strcmp(s->objects[i].path, path) == 0)
      return true;
  if (s->count == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 16;
    struct object *grown = realloc(s->objects, cap * sizeof *grown);
    if (!grown)
      return false;
    s->objects = grown, s->cap = cap;
  }
  struct object *o = &s->objects[s->count];
  *o = (struct object){.path = strdup(path), .base = base, .start = start, .end = end};
  if (!o->path)
    return false;
  o->build_id_size = build_id_size < sizeof o->build_id ? build_id_size : sizeof o->build_id;
  memcpy(o->build_id, build_id, o->build_id_size);
  s->count++;
  return true;
}

/* The object's module, reported to libdwfl at its first use; NULL when its file cannot
 * be read or is not the one the process had loaded. */
static Dwfl_Module *module_of(struct native_symbols *s, struct object *o) {
  if (o->tried)
    return o->module;
  o->tried = true;
  if (!dwfl_of(s))
    return NULL;
  const char *slash = strrchr(o->path, '/');
  dwfl_report_begin_add(s->dwfl);
  Dwfl_Module *m = dwfl_report_elf(s->dwfl, slash ? slash + 1 : o->path, o->path, -1, o->base, false);
  dwfl_report_end(s->dwfl, NULL, NULL);
  if (!m)
    return NULL;
  const unsigned char *bits;
  GElf_Addr vaddr;
  int n = dwfl_module_build_id(m, &bits, &vaddr);
  if (o->build_id_size && (n != (int)o->build_id_size || memcmp(bits, o->build_id, (size_t)n) != 0))
    return NULL; /* another file now: its symbols would be wrong */
  return o->module = m;
}

void native_symbols_demangle(const char *symbol, char *out, size_t size) {
  int status = -1;
  char *plain = NULL;
  if (strncmp(symbol, "_Z", 2) == 0) {
    struct diag d;
    diag_init(&d);
    if (dw_library_load_cxx(&d) == 0) /* else the name as it is */
      plain = __cxa_demangle(symbol, NULL, NULL, &status);
    diag_clear(&d);
  }
  const char *name = plain && status == 0 ? plain : symbol;
  size_t len = strlen(name);
  if (plain && status == 0) {
    /* Leave out the parameter list and what follows it (const, &, noexcept). */
    size_t end = len;
    while (end > 0 && name[end - 1] != ')')
      end--;
    int depth = 0;
    for (size_t i = end; i-- > 0;) {
      depth += name[i] == ')' ? 1 : name[i] == '(' ? -1 : 0;
      if (depth == 0 && name[i] == '(') {
        if (i > 0)
          len = i;
        break;
      }
    }
  }
  snprintf(out, size, "%.*s", (int)len, name);
  free(plain);
}

void native_symbols_name(struct native_symbols *s, uint64_t address, bool call_site, char *name,
                         size_t name_size, char *file, size_t file_size, int *line) {
  uint64_t at = call_site && address ? address - 1 : address;
  file[0] = 0;
  *line = 0;
  struct object *o = NULL;
  for (size_t i = 0; s && i < s->count && !o; i++)
    if (at >= s->objects[i].start && at < s->objects[i].end)
      o = &s->objects[i];
  if (!o) {
    snprintf(name, name_size, "0x%llx", (unsigned long long)address);
    return;
  }
  Dwfl_Module *m = module_of(s, o);
  GElf_Off offset;
  GElf_Sym sym;
  const char *symbol = m ? dwfl_module_addrinfo(m, at, &offset, &sym, NULL, NULL, NULL) : NULL;
  const char *slash = strrchr(o->path, '/');
  char plain[1024];
  if (symbol) /* without its version (__libc_start_main@@GLIBC_2.34) */
    snprintf(plain, sizeof plain, "%.*s", (int)strcspn(symbol, "@"), symbol);
  if (symbol)
    native_symbols_demangle(plain, name, name_size);
  else
    snprintf(name, name_size, "%s+0x%llx", slash ? slash + 1 : o->path,
             (unsigned long long)(at - o->base));
  Dwfl_Line *l = m ? dwfl_module_getsrc(m, at) : NULL;
  const char *source = l ? dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL) : NULL;
  if (source)
    snprintf(file, file_size, "%s", source);
  else
    *line = 0;
}
