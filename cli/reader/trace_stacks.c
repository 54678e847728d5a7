/* trace_stacks: see trace_stacks.h. */
#include "trace_stacks.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native_symbols.h"
#include "tracer_record.h"

struct trace_stack {
  struct trace_stacks *table;
  int host;
  int64_t pid;
  uint64_t id;
  /* The definition, until named: */
  bool defined;
  char *python;          /* "LINE\tFUNCTION\tFILE\n" per frame, innermost first; owned */
  uint64_t *native;      /* return addresses, innermost first; owned */
  size_t native_count;
  uint32_t flags;        /* enum tracer_stack_flags */
  /* Named on first use (under the table's lock), then read without it: */
  bool named;            /* written last, with release order */
  struct trace_frame *frames; /* owned, outermost first */
  size_t frame_count;
  const struct trace_frame *source;
  char *strings;         /* the frames' strings; owned */
  char *text;            /* their labels, a line each; owned */
};

/* A process's loaded objects, for naming its native frames. */
struct process {
  int host;
  int64_t pid;
  struct native_symbols *symbols;
};

struct trace_stacks {
  pthread_mutex_t lock;
  struct trace_stack **slots; /* open addressing by (host, pid, id) */
  size_t cap, count;
  struct process *processes;
  size_t process_count, process_cap;
};

static uint64_t key_of(int host, int64_t pid, uint64_t id) {
  uint64_t h = id ^ ((uint64_t)(uint32_t)host << 32 | (uint32_t)pid) * 0x9e3779b97f4a7c15u;
  return h ^ h >> 29;
}

struct trace_stacks *trace_stacks_new(void) {
  struct trace_stacks *t = calloc(1, sizeof *t);
  if (t)
    pthread_mutex_init(&t->lock, NULL);
  return t;
}

static void stack_free(struct trace_stack *s) {
  free(s->python);
  free(s->native);
  free(s->frames);
  free(s->strings);
  free(s->text);
  free(s);
}

void trace_stacks_free(struct trace_stacks *t) {
  if (!t)
    return;
  for (size_t i = 0; i < t->cap; i++)
    if (t->slots[i])
      stack_free(t->slots[i]);
  free(t->slots);
  for (size_t i = 0; i < t->process_count; i++)
    native_symbols_free(t->processes[i].symbols);
  free(t->processes);
  pthread_mutex_destroy(&t->lock);
  free(t);
}

static bool grow(struct trace_stacks *t) {
  size_t cap = t->cap ? 2 * t->cap : 256;
  struct trace_stack **slots = calloc(cap, sizeof *slots);
  if (!slots)
    return false;
  for (size_t i = 0; i < t->cap; i++) {
    struct trace_stack *s = t->slots[i];
    if (!s)
      continue;
    size_t k = key_of(s->host, s->pid, s->id) & (cap - 1);
    while (slots[k])
      k = (k + 1) & (cap - 1);
    slots[k] = s;
  }
  free(t->slots);
  t->slots = slots, t->cap = cap;
  return true;
}

/* Called with the lock held. */
static struct trace_stack *get_locked(struct trace_stacks *t, int host, int64_t pid, uint64_t id) {
  if (!id)
    return NULL;
  if ((t->count + 1) * 4 > t->cap * 3 && !grow(t))
    return NULL;
  size_t k = key_of(host, pid, id) & (t->cap - 1);
  for (; t->slots[k]; k = (k + 1) & (t->cap - 1)) {
    struct trace_stack *s = t->slots[k];
    if (s->id == id && s->pid == pid && s->host == host)
      return s;
  }
  struct trace_stack *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  *s = (struct trace_stack){.table = t, .host = host, .pid = pid, .id = id};
  t->slots[k] = s;
  t->count++;
  return s;
}

struct trace_stack *trace_stacks_get(struct trace_stacks *t, int host, int64_t pid, uint64_t id) {
  if (!t || !id)
    return NULL;
  pthread_mutex_lock(&t->lock);
  struct trace_stack *s = get_locked(t, host, pid, id);
  pthread_mutex_unlock(&t->lock);
  return s;
}

void trace_stacks_define(struct trace_stacks *t, int host, int64_t pid, uint64_t id,
                         const char *python, size_t python_len, const uint64_t *native,
                         size_t native_count, uint32_t flags) {
  if (!t)
    return;
  pthread_mutex_lock(&t->lock);
  struct trace_stack *s = get_locked(t, host, pid, id);
  if (s && !s->defined) {
    s->python = malloc(python_len + 1);
    s->native = malloc((native_count ? native_count : 1) * sizeof *native);
    if (s->python && s->native) {
      memcpy(s->python, python, python_len);
      s->python[python_len] = 0;
      memcpy(s->native, native, native_count * sizeof *native);
      s->native_count = native_count;
      s->flags = flags;
      s->defined = true;
    }
  }
  pthread_mutex_unlock(&t->lock);
}

/* Called with the lock held. */
static struct process *process_of(struct trace_stacks *t, int host, int64_t pid, bool make) {
  for (size_t i = 0; i < t->process_count; i++)
    if (t->processes[i].host == host && t->processes[i].pid == pid)
      return &t->processes[i];
  if (!make)
    return NULL;
  if (t->process_count == t->process_cap) {
    size_t cap = t->process_cap ? 2 * t->process_cap : 8;
    struct process *grown = realloc(t->processes, cap * sizeof *grown);
    if (!grown)
      return NULL;
    t->processes = grown, t->process_cap = cap;
  }
  struct native_symbols *symbols = native_symbols_new();
  if (!symbols)
    return NULL;
  t->processes[t->process_count] = (struct process){host, pid, symbols};
  return &t->processes[t->process_count++];
}

void trace_stacks_object(struct trace_stacks *t, int host, int64_t pid, const char *path,
                         size_t path_len, const uint8_t *build_id, size_t build_id_size,
                         uint64_t base, uint64_t start, uint64_t end) {
  if (!t)
    return;
  char name[4096];
  snprintf(name, sizeof name, "%.*s", (int)path_len, path);
  pthread_mutex_lock(&t->lock);
  struct process *p = process_of(t, host, pid, true);
  if (p)
    native_symbols_add(p->symbols, name, build_id, build_id_size, base, start, end);
  pthread_mutex_unlock(&t->lock);
}

/* ---- Naming ------------------------------------------------------------------------- */

/* Strings of one stack's frames, appended to one buffer; offsets until the end. */
struct strings {
  char *data;
  size_t len, cap;
  bool failed;
};

static size_t put(struct strings *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t put(struct strings *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  size_t at = b->len;
  if (n < 0 || b->failed) {
    b->failed = true;
    return 0;
  }
  if (b->len + (size_t)n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + (size_t)n + 1)
      cap *= 2;
    char *grown = realloc(b->data, cap);
    if (!grown) {
      b->failed = true;
      return 0;
    }
    b->data = grown, b->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n + 1;
  return at;
}

/* A frame whose strings are offsets into the buffer until it is complete. */
struct pending_frame {
  uint8_t kind;
  size_t label, function, file;
  int line;
};

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* Python's frames from the definition's text (innermost first), outermost first into
 * out. */
static size_t python_frames(const char *text, struct strings *b, struct pending_frame *out,
                            size_t max) {
  size_t n = 0;
  for (const char *p = text; p && *p && n < max;) {
    const char *end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    const char *tab1 = memchr(p, '\t', len);
    const char *tab2 = tab1 ? memchr(tab1 + 1, '\t', len - (size_t)(tab1 + 1 - p)) : NULL;
    if (tab1 && tab2) {
      char function[512], file[2048];
      snprintf(function, sizeof function, "%.*s", (int)(tab2 - tab1 - 1), tab1 + 1);
      snprintf(file, sizeof file, "%.*s", (int)(len - (size_t)(tab2 + 1 - p)), tab2 + 1);
      struct pending_frame *f = &out[n++];
      f->kind = TRACE_FRAME_PYTHON;
      f->line = atoi(p);
      f->function = put(b, "%s", function);
      f->file = put(b, "%s", file);
      f->label = put(b, "%s:%d %s", base_name(file), f->line, function);
    }
    p = end ? end + 1 : p + len;
  }
  for (size_t i = 0; i < n / 2; i++) {
    struct pending_frame swap = out[i];
    out[i] = out[n - 1 - i];
    out[n - 1 - i] = swap;
  }
  return n;
}

/* Whether a Python file is a library's, not the app's: an installed package or Python's
 * own library (where pip, conda and Debian put them), or code Python made itself. */
static bool in_library(const char *file) {
  return strstr(file, "/site-packages/") || strstr(file, "/dist-packages/") ||
         strstr(file, "/lib/python3.") || file[0] == '<';
}

static void name_stack(struct trace_stack *s) {
  struct trace_stacks *t = s->table;
  size_t lines = 0;
  for (const char *p = s->python; p && *p; p++)
    lines += *p == '\n';
  size_t max = lines + s->native_count + 1;
  struct pending_frame *pending = calloc(max, sizeof *pending);
  struct strings b = {0};
  if (!pending)
    return;
  size_t n = python_frames(s->python, &b, pending, lines);
  bool cut = s->flags & TRACER_STACK_NATIVE_TRUNCATED;
  if (cut) {
    size_t dots = put(&b, "...");
    pending[n++] = (struct pending_frame){TRACE_FRAME_CUT, dots, dots, put(&b, "%s", ""), 0};
  }
  struct process *p = process_of(t, s->host, s->pid, false);
  for (size_t i = s->native_count; i-- > 0;) {
    char name[1024], file[2048];
    int line = 0;
    native_symbols_name(p ? p->symbols : NULL, s->native[i], true, name, sizeof name, file,
                        sizeof file, &line);
    size_t at = put(&b, "%s", name);
    pending[n++] = (struct pending_frame){TRACE_FRAME_NATIVE, at, at, put(&b, "%s", file), line};
  }
  struct trace_frame *frames = calloc(n ? n : 1, sizeof *frames);
  if (!frames || b.failed) {
    free(frames);
    free(pending);
    free(b.data);
    return;
  }
  for (size_t i = 0; i < n; i++)
    frames[i] = (struct trace_frame){pending[i].kind, b.data + pending[i].label,
                                     b.data + pending[i].function, b.data + pending[i].file,
                                     pending[i].line};
  free(pending);
  size_t text_size = 1;
  for (size_t i = 0; i < n; i++)
    text_size += strlen(frames[i].label) + 1;
  s->text = malloc(text_size);
  if (s->text) {
    size_t at = 0;
    for (size_t i = 0; i < n; i++)
      at += (size_t)sprintf(s->text + at, "%s%s", i ? "\n" : "", frames[i].label);
    s->text[at] = 0;
  }
  s->frames = frames;
  s->frame_count = n;
  s->strings = b.data;
  /* The line that submitted: the innermost Python frame of the app's own code, else the
   * innermost Python frame, else the innermost native frame. */
  for (size_t i = 0; i < n && !s->source; i++)
    if (frames[n - 1 - i].kind == TRACE_FRAME_PYTHON && !in_library(frames[n - 1 - i].file))
      s->source = &frames[n - 1 - i];
  for (size_t i = 0; i < n && !s->source; i++)
    if (frames[n - 1 - i].kind == TRACE_FRAME_PYTHON)
      s->source = &frames[n - 1 - i];
  if (!s->source && n && frames[n - 1].kind == TRACE_FRAME_NATIVE)
    s->source = &frames[n - 1];
}

static bool named(const struct trace_stack *s) {
  if (!s)
    return false;
  if (__atomic_load_n(&s->named, __ATOMIC_ACQUIRE))
    return true;
  struct trace_stack *m = (struct trace_stack *)s;
  pthread_mutex_lock(&m->table->lock);
  if (m->defined && !m->named) {
    name_stack(m);
    __atomic_store_n(&m->named, true, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&m->table->lock);
  return m->named;
}

size_t trace_stack_frames(const struct trace_stack *s, const struct trace_frame **frames) {
  if (!named(s)) {
    *frames = NULL;
    return 0;
  }
  *frames = s->frames;
  return s->frame_count;
}

const struct trace_frame *trace_stack_source(const struct trace_stack *s) {
  return named(s) ? s->source : NULL;
}

const char *trace_stack_text(const struct trace_stack *s) {
  return named(s) && s->text ? s->text : "";
}

uint64_t trace_stack_id(const struct trace_stack *s) { return s ? s->id : 0; }
