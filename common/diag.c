/* diag: error causes with locations, printed compiler-style with a caret, or as one
 * line. */
#include "diag.h"

#include <stdlib.h>
#include <string.h>

void diag_init(struct diag *d) { memset(d, 0, sizeof *d); }

void diag_clear(struct diag *d) {
  for (unsigned i = 0; i < d->count; i++) {
    free(d->causes[i].file);
    free(d->causes[i].message);
  }
  diag_init(d);
}

static void diag_add(struct diag *d, const char *file, unsigned line, unsigned column,
                     const char *fmt, va_list ap) {
  if (d->count == DIAG_MAX_CAUSES) {
    d->dropped++;
    return;
  }
  struct diag_cause *c = &d->causes[d->count];
  c->file = file ? strdup(file) : NULL;
  c->line = line;
  c->column = column;
  if (vasprintf(&c->message, fmt, ap) < 0 || (file && !c->file)) {
    free(c->file);
    d->dropped++;
    return;
  }
  d->count++;
}

int diag_error(struct diag *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_add(d, NULL, 0, 0, fmt, ap);
  va_end(ap);
  return -1;
}

int diag_verror(struct diag *d, const char *fmt, va_list ap) {
  diag_add(d, NULL, 0, 0, fmt, ap);
  return -1;
}

int diag_error_at(struct diag *d, const char *file, unsigned line, unsigned column,
                  const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_add(d, file, line, column, fmt, ap);
  va_end(ap);
  return -1;
}

/* Reads line `line` (1-based) of `path` into buf; returns 0 on success. */
static int read_source_line(const char *path, unsigned line, char *buf, size_t size) {
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  unsigned n = 1;
  int rc = -1;
  while (fgets(buf, (int)size, f)) {
    size_t len = strlen(buf);
    int complete = len > 0 && buf[len - 1] == '\n';
    if (n == line) {
      if (complete)
        buf[len - 1] = '\0';
      rc = 0;
      break;
    }
    if (complete)
      n++;
  }
  fclose(f);
  return rc;
}

void diag_print(const struct diag *d, FILE *out, const char *program) {
  for (unsigned i = 0; i < d->count; i++) {
    const struct diag_cause *c = &d->causes[i];
    if (!c->file) {
      fprintf(out, "%s: error: %s\n", program, c->message);
      continue;
    }
    if (c->line == 0) {
      fprintf(out, "%s: error: %s\n", c->file, c->message);
      continue;
    }
    fprintf(out, "%s:%u:%u: error: %s\n", c->file, c->line, c->column ? c->column : 1,
            c->message);
    char src[1024];
    if (read_source_line(c->file, c->line, src, sizeof src) == 0) {
      fprintf(out, "%s\n", src);
      /* The caret keeps tabs so it lines up under the same column as the source. */
      unsigned col = c->column ? c->column : 1;
      for (unsigned k = 1; k < col && src[k - 1]; k++)
        fputc(src[k - 1] == '\t' ? '\t' : ' ', out);
      fputs("^\n", out);
    }
  }
  if (d->dropped)
    fprintf(out, "%s: note: %u more errors not shown\n", program, d->dropped);
}

char *diag_join(const struct diag *d, char *buf, size_t size) {
  size_t used = 0;
  if (size)
    buf[0] = '\0';
  for (unsigned i = d->count; i-- > 0 && used + 1 < size;) {
    int n = snprintf(buf + used, size - used, "%s%s", i + 1 < d->count ? ": " : "",
                     d->causes[i].message);
    used += n > 0 ? (size_t)n : 0;
  }
  return buf;
}
