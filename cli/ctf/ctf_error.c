/* ctf_error.c: the one-sentence error messages the library hands back to callers. */
#include "ctf_internal.h"

#include <stdio.h>
#include <string.h>

const char *ctf_status_name(enum ctf_status status) {
  switch (status) {
  case CTF_OK: return "ok";
  case CTF_END: return "end of stream";
  case CTF_ERR_IO: return "I/O error";
  case CTF_ERR_METADATA: return "metadata error";
  case CTF_ERR_DATA: return "data error";
  case CTF_ERR_UNSUPPORTED: return "unsupported";
  case CTF_ERR_NO_MEMORY: return "out of memory";
  case CTF_ERR_USAGE: return "usage error";
  }
  return "unknown status";
}

enum ctf_status ctf_fail(struct ctf_error *error, enum ctf_status status,
                         const char *format, ...) {
  if (error) {
    va_list args;
    va_start(args, format);
    vsnprintf(error->message, sizeof error->message, format, args);
    va_end(args);
    error->status = status;
  }
  return status;
}

void ctf_error_prefix(struct ctf_error *error, const char *format, ...) {
  if (!error)
    return;
  char prefix[256];
  va_list args;
  va_start(args, format);
  int written = vsnprintf(prefix, sizeof prefix, format, args);
  va_end(args);
  if (written < 0)
    return;
  size_t prefix_length = strlen(prefix);
  size_t message_length = strlen(error->message);
  size_t room = sizeof error->message - 1 - prefix_length - 2;
  if (message_length > room)
    message_length = room;
  memmove(error->message + prefix_length + 2, error->message, message_length);
  memcpy(error->message, prefix, prefix_length);
  error->message[prefix_length] = ':';
  error->message[prefix_length + 1] = ' ';
  error->message[prefix_length + 2 + message_length] = '\0';
}
