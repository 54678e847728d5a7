/* ctf_metadata_file.c: the TSDL text of a metadata file.
 *
 * A metadata file is either plain TSDL text or a sequence of metadata packets, each a
 * 37-byte header (magic 0x75d11d57 in the writer's byte order, uuid, checksum,
 * content_size and packet_size in bits, compression, encryption and checksum schemes,
 * major, minor) followed by text up to content_size. LTTng's consumer writes packets.
 */
#include "ctf_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
  METADATA_MAGIC = 0x75d11d57,
  METADATA_HEADER_SIZE = 37,
  METADATA_MAX_SIZE = 256 * 1024 * 1024,   /* far beyond any real one: a sanity cap */
};

static uint32_t read_u32(const unsigned char *bytes, bool big_endian) {
  if (big_endian)
    return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 |
           bytes[3];
  return (uint32_t)bytes[3] << 24 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[1] << 8 |
         bytes[0];
}

static enum ctf_status read_whole_file(const char *path, unsigned char **bytes,
                                       size_t *size, struct ctf_error *error) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return ctf_fail(error, CTF_ERR_IO, "Cannot open metadata: file=%s: %s", path,
                    strerror(errno));
  enum ctf_status status = CTF_OK;
  unsigned char *buffer = NULL;
  struct stat info;
  if (fstat(fd, &info) != 0) {
    status = ctf_fail(error, CTF_ERR_IO, "Cannot stat metadata: file=%s: %s", path,
                      strerror(errno));
    goto done;
  }
  if (info.st_size > METADATA_MAX_SIZE) {
    status = ctf_fail(error, CTF_ERR_UNSUPPORTED,
                      "Cannot read metadata: file=%s: it is %lld bytes, more than %d",
                      path, (long long)info.st_size, METADATA_MAX_SIZE);
    goto done;
  }
  size_t capacity = (size_t)info.st_size + 1;
  buffer = malloc(capacity);
  if (!buffer) {
    status = ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot read metadata: file=%s: %s",
                      path, strerror(ENOMEM));
    goto done;
  }
  size_t filled = 0;
  /* Read to the end rather than trusting st_size: a live session may still append. */
  for (;;) {
    if (filled == capacity) {
      if (capacity > METADATA_MAX_SIZE) {
        status = ctf_fail(error, CTF_ERR_UNSUPPORTED,
                          "Cannot read metadata: file=%s: larger than %d bytes", path,
                          METADATA_MAX_SIZE);
        goto done;
      }
      unsigned char *bigger = realloc(buffer, capacity * 2);
      if (!bigger) {
        status = ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot read metadata: file=%s: %s",
                          path, strerror(ENOMEM));
        goto done;
      }
      buffer = bigger;
      capacity *= 2;
    }
    ssize_t got = read(fd, buffer + filled, capacity - filled);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      status = ctf_fail(error, CTF_ERR_IO, "Cannot read metadata: file=%s: %s", path,
                        strerror(errno));
      goto done;
    }
    if (got == 0)
      break;
    filled += (size_t)got;
  }
  *bytes = buffer;
  *size = filled;
  buffer = NULL;
done:
  free(buffer);
  close(fd);
  return status;
}

/* Concatenates the text of every packet into `bytes` itself (text never grows). */
static enum ctf_status unpack_packets(const char *path, unsigned char *bytes, size_t size,
                                      size_t *text_length, struct ctf_error *error) {
  bool big_endian = read_u32(bytes, false) != METADATA_MAGIC;
  size_t text_end = 0;
  size_t offset = 0;
  uint64_t index = 0;
  while (offset < size) {
    if (size - offset < METADATA_HEADER_SIZE)
      return ctf_fail(error, CTF_ERR_METADATA,
                      "Cannot read metadata packet: file=%s, packet=%llu, offset=%zu: "
                      "the file ends inside the packet header",
                      path, (unsigned long long)index, offset);
    const unsigned char *header = bytes + offset;
    uint32_t magic = read_u32(header, big_endian);
    uint32_t content_bits = read_u32(header + 24, big_endian);
    uint32_t packet_bits = read_u32(header + 28, big_endian);
    unsigned compression = header[32], encryption = header[33];
    if (magic != METADATA_MAGIC)
      return ctf_fail(error, CTF_ERR_METADATA,
                      "Cannot read metadata packet: file=%s, packet=%llu, offset=%zu: "
                      "bad magic 0x%08x",
                      path, (unsigned long long)index, offset, magic);
    if (compression || encryption)
      return ctf_fail(error, CTF_ERR_UNSUPPORTED,
                      "Cannot read metadata packet: file=%s, packet=%llu, offset=%zu: "
                      "compressed or encrypted metadata (compression=%u, encryption=%u)",
                      path, (unsigned long long)index, offset, compression, encryption);
    if (content_bits % 8 || packet_bits % 8 || content_bits < METADATA_HEADER_SIZE * 8 ||
        content_bits > packet_bits)
      return ctf_fail(error, CTF_ERR_METADATA,
                      "Cannot read metadata packet: file=%s, packet=%llu, offset=%zu: "
                      "bad sizes (content_size=%u bits, packet_size=%u bits)",
                      path, (unsigned long long)index, offset, content_bits, packet_bits);
    size_t content = content_bits / 8, packet = packet_bits / 8;
    if (content > size - offset)
      return ctf_fail(error, CTF_ERR_METADATA,
                      "Cannot read metadata packet: file=%s, packet=%llu, offset=%zu: "
                      "the file ends inside the packet (content_size=%zu bytes, %zu left)",
                      path, (unsigned long long)index, offset, content, size - offset);
    size_t length = content - METADATA_HEADER_SIZE;
    memmove(bytes + text_end, header + METADATA_HEADER_SIZE, length);
    text_end += length;
    /* The last packet's padding may be cut off; its text is complete. */
    offset = packet > size - offset ? size : offset + packet;
    index++;
  }
  *text_length = text_end;
  return CTF_OK;
}

enum ctf_status ctf_metadata_file_read(const char *path, char **text, size_t *length,
                                       struct ctf_error *error) {
  unsigned char *bytes = NULL;
  size_t size = 0;
  enum ctf_status status = read_whole_file(path, &bytes, &size, error);
  if (status != CTF_OK)
    return status;
  size_t text_length = size;
  if (size >= 4 && (read_u32(bytes, false) == METADATA_MAGIC ||
                    read_u32(bytes, true) == METADATA_MAGIC)) {
    status = unpack_packets(path, bytes, size, &text_length, error);
    if (status != CTF_OK) {
      free(bytes);
      return status;
    }
  }
  /* TSDL is text: a NUL inside would silently end parsing, so refuse it. */
  if (memchr(bytes, '\0', text_length)) {
    size_t at = (size_t)((unsigned char *)memchr(bytes, '\0', text_length) - bytes);
    free(bytes);
    return ctf_fail(error, CTF_ERR_METADATA,
                    "Cannot read metadata: file=%s: NUL byte in the text at offset %zu",
                    path, at);
  }
  bytes[text_length] = '\0';
  *text = (char *)bytes;
  *length = text_length;
  return CTF_OK;
}
