/* pftrace_read: see pftrace_read.h. Field numbers as in cli/exports/perfetto/timeline.proto. */
#define _GNU_SOURCE
#include "pftrace_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct span {
  const uint8_t *p, *end;
};

struct field {
  uint32_t number, wire;
  uint64_t value;      /* varint and fixed64 */
  struct span bytes;   /* length-delimited */
};

static int fail(char *error, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(error, size, fmt, ap);
  va_end(ap);
  return -1;
}

static bool varint(struct span *s, uint64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && s->p < s->end; shift += 7) {
    uint8_t b = *s->p++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return true;
    }
  }
  return false;
}

/* Next field of a message; false at its end; *bad on malformed data. */
static bool next(struct span *s, struct field *f, bool *bad) {
  uint64_t key;
  if (s->p >= s->end)
    return false;
  if (!varint(s, &key)) {
    *bad = true;
    return false;
  }
  f->number = (uint32_t)(key >> 3);
  f->wire = (uint32_t)(key & 7);
  switch (f->wire) {
  case 0:
    if (!varint(s, &f->value))
      break;
    return true;
  case 1:
    if (s->end - s->p < 8)
      break;
    f->value = 0;
    for (int i = 0; i < 8; i++)
      f->value |= (uint64_t)s->p[i] << (8 * i);
    s->p += 8;
    return true;
  case 2: {
    uint64_t len;
    if (!varint(s, &len) || (uint64_t)(s->end - s->p) < len)
      break;
    f->bytes.p = s->p;
    f->bytes.end = s->p + len;
    s->p += len;
    return true;
  }
  case 5:
    if (s->end - s->p < 4)
      break;
    s->p += 4;
    return true;
  }
  *bad = true;
  return false;
}

static void copy_text(char *dst, size_t size, struct span b) {
  size_t n = (size_t)(b.end - b.p);
  if (n >= size)
    n = size - 1;
  memcpy(dst, b.p, n);
  dst[n] = 0;
}

/* Interned names of the one sequence the writer uses. */
struct names {
  char (*name)[256];
  size_t cap;
};

static void name_set(struct names *n, uint64_t iid, struct span text) {
  if (iid >= n->cap) {
    size_t cap = n->cap ? n->cap : 64;
    while (cap <= iid)
      cap *= 2;
    n->name = realloc(n->name, cap * sizeof *n->name);
    memset(n->name + n->cap, 0, (cap - n->cap) * sizeof *n->name);
    n->cap = cap;
  }
  copy_text(n->name[iid], sizeof n->name[iid], text);
}

#define GROW(array, count)                                                                  \
  do {                                                                                      \
    if ((count) == 0 || ((count) >= 16 && ((count) & ((count) - 1)) == 0))                   \
      (array) = realloc((array), ((count) ? (count) * 2 : 16) * sizeof *(array));            \
    memset(&(array)[(count)], 0, sizeof *(array));                                          \
  } while (0)

static int read_descriptor(struct pftrace *t, struct span s, bool *bad) {
  GROW(t->tracks, t->track_count);
  struct pft_track *tr = &t->tracks[t->track_count];
  tr->kind = 'n';
  struct field f, g;
  while (next(&s, &f, bad)) {
    if (f.number == 1) tr->uuid = f.value;
    else if (f.number == 5) tr->parent = f.value;
    else if (f.number == 2) copy_text(tr->name, sizeof tr->name, f.bytes);
    else if (f.number == 3 || f.number == 4 || f.number == 8) {
      tr->kind = f.number == 3 ? 'p' : f.number == 4 ? 't' : 'c';
      struct span m = f.bytes;
      while (next(&m, &g, bad)) {
        if (f.number == 8 && g.number == 3) tr->unit = (int)g.value;
        else if (f.number != 8 && g.number == 1) tr->pid = (int32_t)g.value;
        else if (f.number == 4 && g.number == 2) tr->tid = (int32_t)g.value;
      }
    }
  }
  /* The same track described again (each part repeats them): keep one. */
  for (size_t i = 0; i < t->track_count; i++)
    if (t->tracks[i].uuid == tr->uuid)
      return strcmp(t->tracks[i].name, tr->name) == 0 ? 0 : -1;
  t->track_count++;
  return 0;
}

static void annotation(struct pft_slice *sl, struct span s, const struct names *arg_names,
                       bool *bad) {
  struct field f;
  char name[128] = "", value[160] = "";
  while (next(&s, &f, bad)) {
    switch (f.number) {
    case 10: copy_text(name, sizeof name, f.bytes); break;
    case 1:
      if (f.value < arg_names->cap && arg_names->name[f.value][0])
        snprintf(name, sizeof name, "%s", arg_names->name[f.value]);
      else
        snprintf(name, sizeof name, "?iid%llu", (unsigned long long)f.value);
      break;
    case 3: snprintf(value, sizeof value, "%llu", (unsigned long long)f.value); break;
    case 4: snprintf(value, sizeof value, "%lld", (long long)f.value); break;
    case 5: {
      double d;
      memcpy(&d, &f.value, sizeof d);
      snprintf(value, sizeof value, "%g", d);
      break;
    }
    case 6: copy_text(value, sizeof value, f.bytes); break;
    case 7: snprintf(value, sizeof value, "0x%llx", (unsigned long long)f.value); break;
    }
  }
  size_t len = strlen(sl->args);
  snprintf(sl->args + len, sizeof sl->args - len, "%s=%s;", name, value);
}

struct open_slice {
  uint64_t track;
  size_t slice;
};

int pftrace_read(const char *path, struct pftrace *t, char *error, size_t error_size) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return fail(error, error_size, "Cannot open %s", path);
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  uint8_t *data = malloc(size > 0 ? (size_t)size : 1);
  if (!data || fread(data, 1, (size_t)size, file) != (size_t)size) {
    fclose(file);
    free(data);
    return fail(error, error_size, "Cannot read %s", path);
  }
  fclose(file);
  struct names names = {0}, arg_names = {0};
  struct open_slice *open = NULL;
  size_t open_count = 0, open_cap = 0;
  int rc = 0;
  bool bad = false;
  struct span trace = {data, data + size};
  struct field pf;
  while (rc == 0 && next(&trace, &pf, &bad)) {
    if (pf.number != 1 || pf.wire != 2) {
      rc = fail(error, error_size, "%s: a field %u outside any packet", path, pf.number);
      break;
    }
    t->packets++;
    uint64_t ts = 0;
    struct span packet = pf.bytes, event = {0}, s = packet;
    struct field f, g;
    bool has_event = false;
    while (next(&s, &f, &bad)) {
      if (f.number == 8) ts = f.value;
      else if (f.number == 13 && (f.value & 1)) {
        for (size_t i = 0; i < names.cap; i++)
          names.name[i][0] = 0;
        for (size_t i = 0; i < arg_names.cap; i++)
          arg_names.name[i][0] = 0;
      } else if (f.number == 12) {
        struct span d = f.bytes;
        while (next(&d, &g, &bad)) {
          if (g.number != 2 && g.number != 3)
            continue;
          struct span e = g.bytes;
          struct field h;
          uint64_t iid = 0;
          struct span text = {0};
          while (next(&e, &h, &bad)) {
            if (h.number == 1) iid = h.value;
            else if (h.number == 2) text = h.bytes;
          }
          name_set(g.number == 2 ? &names : &arg_names, iid, text);
        }
      } else if (f.number == 60) {
        if (read_descriptor(t, f.bytes, &bad))
          rc = fail(error, error_size, "%s: track described twice with different names", path);
      } else if (f.number == 11) {
        event = f.bytes;
        has_event = true;
      }
    }
    if (!has_event || rc)
      continue;
    uint64_t type = 0, track = 0, iid = 0, flow_out = 0, flow_in = 0;
    double value = 0;
    char name[256] = "";
    struct pft_slice scratch = {0};
    s = event;
    while (next(&s, &f, &bad)) {
      switch (f.number) {
      case 9: type = f.value; break;
      case 11: track = f.value; break;
      case 10: iid = f.value; break;
      case 23: copy_text(name, sizeof name, f.bytes); break;
      case 44: memcpy(&value, &f.value, sizeof value); break;
      case 47: flow_out = f.value; break;
      case 48: flow_in = f.value; break;
      case 4: annotation(&scratch, f.bytes, &arg_names, &bad); break;
      }
    }
    if (iid) {
      if (iid >= names.cap || !names.name[iid][0]) {
        rc = fail(error, error_size, "%s: packet %llu names interned id %llu, never defined",
                  path, (unsigned long long)t->packets, (unsigned long long)iid);
        break;
      }
      snprintf(name, sizeof name, "%s", names.name[iid]);
    }
    if (type == 1) {
      GROW(t->slices, t->slice_count);
      struct pft_slice *sl = &t->slices[t->slice_count];
      *sl = scratch;
      sl->track = track;
      sl->start = ts;
      snprintf(sl->name, sizeof sl->name, "%s", name);
      sl->flow_out = flow_out;
      sl->flow_in = flow_in;
      if (open_count == open_cap) {
        open_cap = open_cap ? open_cap * 2 : 64;
        open = realloc(open, open_cap * sizeof *open);
      }
      open[open_count++] = (struct open_slice){track, t->slice_count++};
    } else if (type == 2) {
      size_t i = open_count;
      while (i > 0 && open[i - 1].track != track)
        i--;
      if (i == 0) {
        rc = fail(error, error_size, "%s: an end on track %llu with no begin", path,
                  (unsigned long long)track);
        break;
      }
      t->slices[open[i - 1].slice].end = ts;
      memmove(&open[i - 1], &open[i], (open_count - i) * sizeof *open);
      open_count--;
    } else if (type == 3 || type == 4) {
      struct pft_point **array = type == 3 ? &t->instants : &t->counters;
      size_t *count = type == 3 ? &t->instant_count : &t->counter_count;
      GROW(*array, *count);
      struct pft_point *p = &(*array)[(*count)++];
      p->track = track;
      p->ts = ts;
      p->value = value;
      snprintf(p->name, sizeof p->name, "%s", name);
    }
  }
  if (rc == 0 && bad)
    rc = fail(error, error_size, "%s: malformed protobuf near byte %ld", path,
              (long)(trace.p - data));
  if (rc == 0 && open_count)
    rc = fail(error, error_size, "%s: %zu slices begun and never ended", path, open_count);
  free(open);
  free(names.name);
  free(arg_names.name);
  free(data);
  return rc;
}

const struct pft_track *pftrace_track(const struct pftrace *t, uint64_t uuid) {
  for (size_t i = 0; i < t->track_count; i++)
    if (t->tracks[i].uuid == uuid)
      return &t->tracks[i];
  return NULL;
}

struct mark {
  uint64_t track, ts;
  size_t order; /* position written: begin 2i, end 2i+1 */
  size_t slice;
  bool end;
};

static int by_track_time(const void *a, const void *b) {
  const struct mark *x = a, *y = b;
  if (x->track != y->track)
    return x->track < y->track ? -1 : 1;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

int pftrace_check(const struct pftrace *t, char *error, size_t error_size) {
  size_t n = t->slice_count * 2;
  struct mark *marks = malloc((n ? n : 1) * sizeof *marks);
  size_t *stack = malloc((t->slice_count + 1) * sizeof *stack);
  int rc = 0;
  for (size_t i = 0; i < t->slice_count; i++) {
    const struct pft_slice *s = &t->slices[i];
    if (!pftrace_track(t, s->track)) {
      rc = fail(error, error_size, "slice %s on track %llu, which no descriptor names",
                s->name, (unsigned long long)s->track);
      goto done;
    }
    marks[2 * i] = (struct mark){s->track, s->start, 2 * i, i, false};
    marks[2 * i + 1] = (struct mark){s->track, s->end, 2 * i + 1, i, true};
  }
  qsort(marks, n, sizeof *marks, by_track_time);
  size_t depth = 0;
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && marks[i].track != marks[i - 1].track)
      depth = 0;
    if (!marks[i].end) {
      stack[depth++] = marks[i].slice;
    } else if (depth == 0 || stack[depth - 1] != marks[i].slice) {
      const struct pft_slice *s = &t->slices[marks[i].slice];
      rc = fail(error, error_size,
                "slice %s [%llu, %llu] on track %llu overlaps another without nesting", s->name,
                (unsigned long long)s->start, (unsigned long long)s->end,
                (unsigned long long)s->track);
      goto done;
    } else {
      depth--;
    }
  }
done:
  free(marks);
  free(stack);
  return rc;
}

void pftrace_free(struct pftrace *t) {
  free(t->tracks);
  free(t->slices);
  free(t->counters);
  free(t->instants);
  memset(t, 0, sizeof *t);
}
