/* stacks_python: see stacks_python.h. */
#include "stacks_python.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer_runtime.h"
#include "tracer_wrappers.h"

/* Where a version keeps a thread's frames, as CPython's own headers lay them out
 * (Include/cpython/pystate.h, Include/internal/pycore_frame.h, Include/cpython/code.h,
 * Include/cpython/unicodeobject.h of each version), on 64-bit platforms. */
enum frames_kind {
  FRAMES_OBJECTS,  /* 3.9, 3.10: tstate->frame, frame objects linked by f_back */
  FRAMES_CFRAME,   /* 3.11, 3.12: tstate->cframe->current_frame, interpreter frames */
  FRAMES_CURRENT,  /* 3.13: tstate->current_frame */
};

struct python_layout {
  int minor;
  enum frames_kind kind;
  unsigned tstate_frame;  /* frame (3.9, 3.10), cframe (3.11, 3.12), current_frame (3.13) */
  unsigned cframe_current; /* _PyCFrame.current_frame */
  unsigned frame_back;    /* f_back / previous */
  unsigned frame_code;    /* f_code / f_executable */
  unsigned frame_instr;   /* f_lasti (an int) / prev_instr, instr_ptr (pointers) */
  int lasti_bytes;        /* frame objects: bytes per unit of f_lasti */
  int frame_owner;        /* the owner byte; -1 when none */
  unsigned code_adaptive; /* co_code_adaptive: the instructions (3.11 on) */
  unsigned code_filename, code_name; /* co_filename; co_qualname (3.11 on) or co_name */
  unsigned ascii_size, compact_size; /* sizeof(PyASCIIObject), (PyCompactUnicodeObject) */
};

static const struct python_layout layouts[] = {
    {9, FRAMES_OBJECTS, 24, 0, 24, 32, 104, 1, -1, 0, 104, 112, 48, 72},
    {10, FRAMES_OBJECTS, 24, 0, 24, 32, 96, 2, -1, 0, 104, 112, 48, 72},
    {11, FRAMES_CFRAME, 56, 8, 48, 32, 56, 0, 69, 184, 112, 128, 48, 72},
    {12, FRAMES_CFRAME, 56, 0, 8, 0, 56, 0, 70, 192, 112, 128, 40, 56},
    {13, FRAMES_CURRENT, 72, 0, 8, 0, 56, 0, 70, 200, 112, 128, 40, 56},
};

enum {
  FRAME_OWNED_BY_CSTACK = 3, /* 3.12 on: the interpreter's own entry frames, no code of the app */
  OBJECT_TYPE = 8,           /* ob_type in PyObject_HEAD */
  UNICODE_LENGTH = 16,       /* PyASCIIObject.length */
  UNICODE_STATE = 32,        /* PyASCIIObject.state: interned:2, kind:3, compact:1, ascii:1 */
  WALK_LIMIT = 4096,         /* frames followed at most: a loop in memory read wrongly */
};

typedef void *thread_state_fn(void);
typedef int addr2line_fn(void *code, int offset);
typedef const char *version_fn(void);
typedef void *frame_fn(void *frame);
typedef int frame_int_fn(void *frame);
typedef void *frame_of_fn(void *tstate);
typedef void refcount_fn(void *object);
typedef void *getattr_fn(void *object, const char *name);
typedef const char *utf8_fn(void *unicode, long *size);
typedef void fetch_fn(void **type, void **value, void **traceback);
typedef void restore_fn(void *type, void *value, void *traceback);

/* What this process's Python offers, found once (python.state). */
static struct {
  int state; /* 0: not looked up; 1: found; -1: none */
  const struct python_layout *layout; /* NULL: the public accessors only */
  thread_state_fn *this_thread_state, *current_thread_state;
  addr2line_fn *addr2line;
  const void *code_type, *unicode_type;
  struct tracer_code interpreter;
  /* The public accessors, for a thread that holds the GIL, where the layout is unknown. */
  frame_of_fn *thread_frame;
  frame_fn *frame_back, *frame_code;
  frame_int_fn *frame_lasti, *frame_line;
  refcount_fn *decref;
  getattr_fn *getattr;
  utf8_fn *utf8;
  fetch_fn *fetch;
  restore_fn *restore;
  char walk[32];
} python;

static void *handle_symbol(void *handle, const char *name) {
  return tracer_real_dlsym(handle, name);
}

/* A loaded object named libpython3*, for a program that loaded it privately (an embedding
 * app's dlopen without RTLD_GLOBAL), where the global scope does not see it. */
static int find_libpython(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  const char *slash = strrchr(info->dlpi_name, '/');
  const char *base = slash ? slash + 1 : info->dlpi_name;
  if (strncmp(base, "libpython3", 10) != 0)
    return 0;
  *(void **)data = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  return *(void **)data != NULL;
}

/* The minor version of Python 3 that Py_GetVersion names ("3.11.2 (main, ...)"); -1 for
 * another major version or a free-threading build (whose objects are laid out otherwise). */
static int python_minor(version_fn *version) {
  const char *v = version ? version() : NULL;
  int major = 0, minor = -1;
  if (!v || sscanf(v, "%d.%d", &major, &minor) != 2 || major != 3)
    return -1;
  return strstr(v, "free-threading") ? -1 : minor;
}

static int look_up(void) {
  python.layout = NULL;
  void *h = RTLD_DEFAULT; /* the global scope (NULL, as RTLD_DEFAULT is) */
  version_fn *version = (version_fn *)handle_symbol(h, "Py_GetVersion");
  if (!version) {
    void *library = NULL;
    dl_iterate_phdr(find_libpython, &library);
    if (!library) {
      snprintf(python.walk, sizeof python.walk, "none");
      return -1;
    }
    h = library;
    version = (version_fn *)handle_symbol(h, "Py_GetVersion");
  }
  python.this_thread_state = (thread_state_fn *)handle_symbol(h, "PyGILState_GetThisThreadState");
  python.addr2line = (addr2line_fn *)handle_symbol(h, "PyCode_Addr2Line");
  python.code_type = handle_symbol(h, "PyCode_Type");
  python.unicode_type = handle_symbol(h, "PyUnicode_Type");
  if (!version || !python.this_thread_state || !python.addr2line || !python.code_type ||
      !python.unicode_type) {
    snprintf(python.walk, sizeof python.walk, "none");
    tracer_debug("python: %s", version ? "lacks a function the stacks need" : "not loaded");
    return -1;
  }
  /* The interpreter: the object (the python program or libpython) holding Python's API. */
  tracer_code_of((const void *)version, &python.interpreter);
  /* The thread state that holds the GIL (3.9 to 3.11) or is attached to this thread (3.12
   * on): this thread's own when it holds the GIL. */
  python.current_thread_state = (thread_state_fn *)handle_symbol(h, "PyThreadState_GetUnchecked");
  if (!python.current_thread_state)
    python.current_thread_state =
        (thread_state_fn *)handle_symbol(h, "_PyThreadState_UncheckedGet");
  int minor = python_minor(version);
  for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++)
    if (layouts[i].minor == minor)
      python.layout = &layouts[i];
  python.thread_frame = (frame_of_fn *)handle_symbol(h, "PyThreadState_GetFrame");
  python.frame_back = (frame_fn *)handle_symbol(h, "PyFrame_GetBack");
  python.frame_code = (frame_fn *)handle_symbol(h, "PyFrame_GetCode");
  python.frame_lasti = (frame_int_fn *)handle_symbol(h, "PyFrame_GetLasti");
  python.frame_line = (frame_int_fn *)handle_symbol(h, "PyFrame_GetLineNumber");
  python.decref = (refcount_fn *)handle_symbol(h, "Py_DecRef");
  python.getattr = (getattr_fn *)handle_symbol(h, "PyObject_GetAttrString");
  python.utf8 = (utf8_fn *)handle_symbol(h, "PyUnicode_AsUTF8AndSize");
  python.fetch = (fetch_fn *)handle_symbol(h, "PyErr_Fetch");
  python.restore = (restore_fn *)handle_symbol(h, "PyErr_Restore");
  bool api = python.current_thread_state && python.thread_frame && python.frame_back &&
             python.frame_code && python.frame_line && python.decref && python.getattr &&
             python.utf8 && python.fetch && python.restore;
  const char *forced = getenv("TRACER_PYTHON_WALK"); /* "api": the public accessors (tests) */
  if (forced && strcmp(forced, "api") == 0 && api)
    python.layout = NULL;
  if (python.layout)
    snprintf(python.walk, sizeof python.walk, "frames 3.%d", python.layout->minor);
  else
    snprintf(python.walk, sizeof python.walk, api ? "api" : "none");
  tracer_debug("python: %s, walk: %s", version(), python.walk);
  return python.layout || api ? 1 : -1;
}

bool stacks_python_present(bool again) {
  int state = __atomic_load_n(&python.state, __ATOMIC_ACQUIRE);
  if (state == 0 || (state < 0 && again)) {
    static int busy;
    if (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE))
      return state > 0; /* another thread looks it up */
    state = look_up();
    __atomic_store_n(&python.state, state, __ATOMIC_RELEASE);
    __atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
  }
  return state > 0;
}

const char *stacks_python_walk(void) { return python.state ? python.walk : "none"; }

const struct tracer_code *stacks_python_interpreter(void) {
  return __atomic_load_n(&python.state, __ATOMIC_ACQUIRE) > 0 ? &python.interpreter : NULL;
}

/* ---- The layout's walk ----------------------------------------------------------------- */

static inline const char *load_ptr(const char *base, unsigned offset) {
  const char *p;
  memcpy(&p, base + offset, sizeof p);
  return p;
}

static int walk_layout(const struct python_layout *l, const char *tstate,
                       struct python_frame *out, int max, bool *truncated) {
  const char *frame = load_ptr(tstate, l->tstate_frame);
  if (l->kind == FRAMES_CFRAME)
    frame = frame ? load_ptr(frame, l->cframe_current) : NULL;
  int n = 0;
  for (int steps = 0; frame && steps < WALK_LIMIT; steps++, frame = load_ptr(frame, l->frame_back)) {
    if (l->frame_owner >= 0 && frame[l->frame_owner] == FRAME_OWNED_BY_CSTACK)
      continue;
    const char *code = load_ptr(frame, l->frame_code);
    if (!code || load_ptr(code, OBJECT_TYPE) != python.code_type)
      continue;
    int32_t offset;
    if (l->kind == FRAMES_OBJECTS) {
      int lasti;
      memcpy(&lasti, frame + l->frame_instr, sizeof lasti);
      offset = lasti < 0 ? -1 : lasti * l->lasti_bytes;
    } else {
      const char *instr = load_ptr(frame, l->frame_instr);
      offset = (int32_t)(instr - (code + l->code_adaptive));
    }
    if (offset < 0)
      continue; /* a frame not started yet: nothing of it ran */
    if (n == max) {
      *truncated = true;
      break;
    }
    out[n++] = (struct python_frame){(uintptr_t)code, offset, 0};
  }
  return n;
}

/* ---- The public accessors, the GIL held ------------------------------------------------ */

static int walk_api(void *tstate, struct python_frame *out, int max, bool *truncated) {
  void *frame = python.thread_frame(tstate);
  int n = 0;
  while (frame) {
    if (n == max) {
      *truncated = true;
      python.decref(frame);
      break;
    }
    void *code = python.frame_code(frame);
    struct python_frame f = {(uintptr_t)code, -1, 0};
    if (python.frame_lasti)
      f.offset = python.frame_lasti(frame);
    else
      f.line = python.frame_line(frame);
    out[n++] = f;
    python.decref(code); /* the frame holds it: the address stays the code's */
    void *back = python.frame_back(frame);
    python.decref(frame);
    frame = back;
  }
  return n;
}

int stacks_python_frames(struct python_frame *frames, int max, bool *truncated, bool *gil) {
  *truncated = false;
  *gil = false;
  if (!stacks_python_present(false))
    return 0;
  void *tstate = python.this_thread_state();
  if (!tstate)
    return 0; /* Python never ran on this thread */
  *gil = python.current_thread_state && python.current_thread_state() == tstate;
  if (python.layout)
    return walk_layout(python.layout, tstate, frames, max, truncated);
  return *gil ? walk_api(tstate, frames, max, truncated) : 0;
}

/* ---- Names ---------------------------------------------------------------------------- */

static size_t put_utf8(char *out, size_t size, size_t at, uint32_t c) {
  char b[4];
  size_t n;
  if (c < 0x80)
    b[0] = (char)c, n = 1;
  else if (c < 0x800)
    b[0] = (char)(0xc0 | c >> 6), b[1] = (char)(0x80 | (c & 0x3f)), n = 2;
  else if (c < 0x10000)
    b[0] = (char)(0xe0 | c >> 12), b[1] = (char)(0x80 | (c >> 6 & 0x3f)),
    b[2] = (char)(0x80 | (c & 0x3f)), n = 3;
  else
    b[0] = (char)(0xf0 | c >> 18), b[1] = (char)(0x80 | (c >> 12 & 0x3f)),
    b[2] = (char)(0x80 | (c >> 6 & 0x3f)), b[3] = (char)(0x80 | (c & 0x3f)), n = 4;
  if (at + n >= size)
    return at;
  memcpy(out + at, b, n);
  return at + n;
}

/* A str object's text as UTF-8, read from the object (compact strings: every name and
 * file name of a code object). */
static bool layout_text(const char *object, char *out, size_t size) {
  const struct python_layout *l = python.layout;
  if (!object || load_ptr(object, OBJECT_TYPE) != python.unicode_type || !size)
    return false;
  uint32_t state;
  int64_t length;
  memcpy(&state, object + UNICODE_STATE, sizeof state);
  memcpy(&length, object + UNICODE_LENGTH, sizeof length);
  unsigned kind = state >> 2 & 7, compact = state >> 5 & 1, ascii = state >> 6 & 1;
  if (!compact || length < 0 || (kind != 1 && kind != 2 && kind != 4))
    return false;
  const unsigned char *data =
      (const unsigned char *)object + (ascii ? l->ascii_size : l->compact_size);
  size_t at = 0;
  for (int64_t i = 0; i < length; i++) {
    uint32_t c = kind == 1 ? data[i] : kind == 2 ? ((const uint16_t *)data)[i]
                                                 : ((const uint32_t *)data)[i];
    at = put_utf8(out, size, at, c);
  }
  out[at] = 0;
  return true;
}

/* An attribute of a code object that is a str, through the public API (the GIL held). */
static bool api_text(void *code, const char *attribute, char *out, size_t size) {
  void *value = python.getattr(code, attribute);
  long len = 0;
  const char *text = value ? python.utf8(value, &len) : NULL;
  bool ok = text != NULL;
  if (ok)
    snprintf(out, size, "%.*s", (int)len, text);
  if (value)
    python.decref(value);
  return ok;
}

bool stacks_python_describe(const struct python_frame *frame, bool gil, char *out, size_t size) {
  char name[256], file[1024];
  const char *code = (const char *)frame->code;
  bool named;
  if (python.layout) {
    named = layout_text(load_ptr(code, python.layout->code_name), name, sizeof name) &&
            layout_text(load_ptr(code, python.layout->code_filename), file, sizeof file);
  } else {
    if (!gil)
      return false;
    void *type, *value, *traceback; /* an exception the app has set stays as it was */
    python.fetch(&type, &value, &traceback);
    named = (api_text((void *)code, "co_qualname", name, sizeof name) ||
             api_text((void *)code, "co_name", name, sizeof name)) &&
            api_text((void *)code, "co_filename", file, sizeof file);
    python.restore(type, value, traceback);
  }
  if (!named)
    return false;
  int line = frame->line ? frame->line : python.addr2line((void *)code, frame->offset);
  snprintf(out, size, "%d\t%s\t%s", line, name, file);
  return true;
}
