/* ctf_index.c: LTTng's packet index files (FOLDER/index/STREAM.idx), which LTTng's consumer
 * writes beside each stream file it writes: a header (magic 0xC1F1DCC1, major, minor, the
 * length of an entry), then one entry per packet written, every field a big-endian
 * unsigned integer: offset (bytes), packet and content size (bits), the first and last
 * timestamps, the stream's cumulative discarded events, the stream class id; since 1.1
 * the stream instance id and the packet's sequence number. Longer entries (a later
 * minor version) are read for these fields. */
#include "ctf_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  INDEX_MAGIC = 0xC1F1DCC1u,
  INDEX_HEADER_BYTES = 16,
  ENTRY_FIELDS_1_0 = 7, /* offset .. stream_id */
  ENTRY_FIELDS_1_1 = 9, /* .. stream_instance_id, packet_seq_num */
  MAX_ENTRY_BYTES = 4096,
};

static uint64_t be64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v = v << 8 | p[i];
  return v;
}

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void ctf_index_path(const char *stream_path, char *out, size_t size) {
  const char *slash = strrchr(stream_path, '/');
  if (slash)
    snprintf(out, size, "%.*s/index/%s.idx", (int)(slash - stream_path), stream_path, slash + 1);
  else
    snprintf(out, size, "index/%s.idx", stream_path);
}

enum ctf_status ctf_index_read(const char *path, struct ctf_index *index,
                               struct ctf_error *error) {
  memset(index, 0, sizeof *index);
  FILE *file = fopen(path, "rb");
  if (!file)
    return errno == ENOENT ? CTF_END
                           : ctf_fail(error, CTF_ERR_IO, "Cannot read index: file=%s: %s", path,
                                      strerror(errno));
  enum ctf_status status = CTF_OK;
  unsigned char header[INDEX_HEADER_BYTES];
  unsigned char *entry = NULL;
  if (fread(header, 1, sizeof header, file) != sizeof header) {
    status = ctf_fail(error, CTF_ERR_DATA, "Cannot read index: file=%s: shorter than its "
                                           "%d-byte header", path, INDEX_HEADER_BYTES);
    goto done;
  }
  uint32_t magic = be32(header), major = be32(header + 4), minor = be32(header + 8);
  uint32_t entry_bytes = be32(header + 12);
  if (magic != INDEX_MAGIC) {
    status = ctf_fail(error, CTF_ERR_DATA, "Cannot read index: file=%s, offset=0: magic "
                                           "0x%08x, not an LTTng packet index (0x%08x)",
                      path, magic, INDEX_MAGIC);
    goto done;
  }
  if (major != 1 || entry_bytes < 8 * ENTRY_FIELDS_1_0 || entry_bytes > MAX_ENTRY_BYTES ||
      entry_bytes % 8) {
    status = ctf_fail(error, CTF_ERR_UNSUPPORTED, "Cannot read index: file=%s: version %u.%u "
                                                  "with %u-byte entries is not supported",
                      path, major, minor, entry_bytes);
    goto done;
  }
  entry = malloc(entry_bytes);
  if (!entry) {
    status = ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot read index: out of memory");
    goto done;
  }
  size_t capacity = 0;
  /* An entry cut short (the consumer stopped while writing it) is not one. */
  while (fread(entry, 1, entry_bytes, file) == entry_bytes) {
    if (index->count == capacity) {
      capacity = capacity ? 2 * capacity : 64;
      struct ctf_index_entry *grown = realloc(index->entries, capacity * sizeof *grown);
      if (!grown) {
        status = ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot read index: out of memory");
        goto done;
      }
      index->entries = grown;
    }
    struct ctf_index_entry *e = &index->entries[index->count++];
    *e = (struct ctf_index_entry){
        .offset = be64(entry),
        .packet_size = be64(entry + 8),
        .content_size = be64(entry + 16),
        .timestamp_begin = be64(entry + 24),
        .timestamp_end = be64(entry + 32),
        .events_discarded = be64(entry + 40),
        .stream_id = be64(entry + 48),
    };
    if (entry_bytes >= 8 * ENTRY_FIELDS_1_1) {
      e->stream_instance_id = be64(entry + 56);
      e->sequence_number = be64(entry + 64);
      e->has_sequence_number = e->sequence_number != UINT64_MAX; /* -1: not known */
    }
  }
  if (ferror(file))
    status = ctf_fail(error, CTF_ERR_IO, "Cannot read index: file=%s: %s", path,
                      strerror(errno));
done:
  free(entry);
  fclose(file);
  if (status != CTF_OK)
    ctf_index_free(index);
  return status;
}

void ctf_index_free(struct ctf_index *index) {
  free(index->entries);
  index->entries = NULL;
  index->count = 0;
}
