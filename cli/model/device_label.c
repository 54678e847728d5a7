/* device_label: see device_label.h. */
#include "device_label.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "backends.h"
#include "tracer_device.h"

void device_label(const char *backend, int ordinal, const char *name, char *out, size_t size) {
  if (ordinal < 0) {
    snprintf(out, size, "%s device", backend);
    return;
  }
  /* CUDA's and HIP's devices are GPUs; OpenCL's and Level Zero's may be anything. */
  const char *kind =
      strcmp(backend, "cuda") == 0 || strcmp(backend, "cudart") == 0 || strcmp(backend, "hip") == 0
          ? "GPU"
          : "device";
  if (name && *name)
    snprintf(out, size, "%s %d: %s", kind, ordinal, name);
  else
    snprintf(out, size, "%s %d", kind, ordinal);
}

void device_queue_label(uint64_t queue, int64_t pid, char *out, size_t size) {
  snprintf(out, size, "queue 0x%" PRIx64 " (pid %" PRId64 ")", queue, pid);
}

void device_command_label(const struct tracer_backend_desc *desc, int kind, const char *name,
                          char *out, size_t size) {
  bool a_function = desc && backends_function_index(desc, name, strlen(name)) >= 0;
  if (kind == TRACER_COMMAND_KERNEL && !a_function)
    snprintf(out, size, "%s", name);
  else
    snprintf(out, size, "%s: %s",
             kind == TRACER_COMMAND_KERNEL     ? "kernel"
             : kind == TRACER_COMMAND_TRANSFER ? "copy"
                                               : "command",
             name);
}

/* The end of "(anonymous namespace)" when s starts with it, else NULL. */
static const char *anonymous_namespace(const char *s) {
  static const char anonymous[] = "(anonymous namespace)";
  return strncmp(s, anonymous, sizeof anonymous - 1) == 0 ? s + sizeof anonymous - 1 : NULL;
}

/* Where the name ends in s: its parameter list's '(' at the top level (neither inside a
 * template's <> nor in another parenthesis), or the end. */
static const char *name_end(const char *s) {
  int angle = 0, paren = 0;
  for (const char *p = s; *p; p++) {
    const char *skip = angle == 0 && paren == 0 ? anonymous_namespace(p) : NULL;
    if (skip) {
      p = skip - 1;
      continue;
    }
    if (*p == '<')
      angle++;
    else if (*p == '>' && angle > 0)
      angle--;
    else if (*p == '(' && angle == 0 && paren == 0)
      return p;
    else if (*p == '(')
      paren++;
    else if (*p == ')' && paren > 0)
      paren--;
  }
  return s + strlen(s);
}

void device_kernel_short_name(const char *name, char *out, size_t size) {
  if (!size)
    return;
  const char *end = name_end(name);
  /* The return type ends at the last top-level space before the name's end. */
  const char *start = name;
  int angle = 0, paren = 0;
  for (const char *p = name; p < end; p++) {
    const char *skip = angle == 0 && paren == 0 ? anonymous_namespace(p) : NULL;
    if (skip) {
      p = skip - 1;
      continue;
    }
    if (*p == '<')
      angle++;
    else if (*p == '>' && angle > 0)
      angle--;
    else if (*p == '(')
      paren++;
    else if (*p == ')' && paren > 0)
      paren--;
    else if (*p == ' ' && angle == 0 && paren == 0)
      start = p + 1;
  }
  /* Namespaces kept but anonymous ones; each template's arguments as <...>. */
  size_t used = 0;
  angle = 0;
  for (const char *p = start; p < end && used + 1 < size; p++) {
    const char *skip = angle == 0 ? anonymous_namespace(p) : NULL;
    if (skip) {
      p = strncmp(skip, "::", 2) == 0 ? skip + 1 : skip - 1;
      continue;
    }
    if (*p == '<' && angle++ == 0) {
      for (const char *t = "<..."; *t && used + 1 < size; t++)
        out[used++] = *t;
      continue;
    }
    if (*p == '>' && angle > 0 && --angle == 0) {
      out[used++] = '>';
      continue;
    }
    if (angle == 0)
      out[used++] = *p;
  }
  out[used] = '\0';
  if (!used) /* nothing a person would call a name: keep it whole */
    snprintf(out, size, "%s", name);
}
