/* ctf_trace.c: opening a trace: finding every folder that holds `metadata` below the
 * given path, parsing and compiling each one's metadata, listing its stream files, and
 * the lookups callers make on the result (env, event classes, context keys). */
#include "ctf_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_SEARCH_DEPTH 16
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

struct ctf_trace {
  struct ctf_arena arena;                 /* paths, tables */
  struct ctf_subtrace_private **subtraces;   /* owned (each has its own arena) */
  size_t subtrace_count;
  struct ctf_stream *streams;
  size_t stream_count;
  const struct ctf_event_class **event_classes;
  size_t event_class_count;
  const char **context_keys;
  size_t context_key_count;
};

struct path_list {
  char **paths;     /* malloc'd strings */
  size_t count, capacity;
};

static bool path_list_add(struct path_list *list, const char *path) {
  if (list->count == list->capacity) {
    size_t capacity = list->capacity ? list->capacity * 2 : 16;
    char **paths = realloc(list->paths, capacity * sizeof *paths);
    if (!paths)
      return false;
    list->paths = paths;
    list->capacity = capacity;
  }
  char *copy = strdup(path);
  if (!copy)
    return false;
  list->paths[list->count++] = copy;
  return true;
}

static void path_list_free(struct path_list *list) {
  for (size_t i = 0; i < list->count; i++)
    free(list->paths[i]);
  free(list->paths);
}

/* Orders "channel0_10" after "channel0_9": digit runs compare as numbers. */
static int natural_compare(const char *a, const char *b) {
  while (*a && *b) {
    if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
      while (*a == '0' && a[1] >= '0' && a[1] <= '9')
        a++;
      while (*b == '0' && b[1] >= '0' && b[1] <= '9')
        b++;
      size_t run_a = strspn(a, "0123456789"), run_b = strspn(b, "0123456789");
      if (run_a != run_b)
        return run_a < run_b ? -1 : 1;
      int order = strncmp(a, b, run_a);
      if (order)
        return order;
      a += run_a;
      b += run_b;
      continue;
    }
    if (*a != *b)
      return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
    a++;
    b++;
  }
  return *a ? 1 : *b ? -1 : 0;
}

static int compare_paths(const void *a, const void *b) {
  return natural_compare(*(char *const *)a, *(char *const *)b);
}

static bool is_regular_file(const char *path, off_t *size) {
  struct stat info;
  if (stat(path, &info) != 0 || !S_ISREG(info.st_mode))
    return false;
  if (size)
    *size = info.st_size;
  return true;
}

static char *join_path(const char *folder, const char *name) {
  size_t length = strlen(folder) + strlen(name) + 2;
  char *path = malloc(length);
  if (path)
    snprintf(path, length, "%s%s%s", folder,
             folder[0] && folder[strlen(folder) - 1] == '/' ? "" : "/", name);
  return path;
}

/* The search for metadata folders follows symbolic links (a `latest` link, a folder of
 * links to ranks' traces) but enters each folder once, by its device and inode: a link
 * to a trace beside it does not read it twice, and a link loop (/proc/self/root) ends.
 * It stops at MAX_SEARCH_DEPTH below the path given, and fails past MAX_SEARCH_FOLDERS
 * folders (the whole file system behind a link): what it found could be a part. */
enum { MAX_SEARCH_FOLDERS = 200000 };

struct search {
  struct path_list *found;
  struct ctf_error *error;
  const char *root;
  struct folder_id {
    dev_t dev;
    ino_t ino;
  } *seen;                   /* open addressing; ino 0 marks a free slot */
  size_t seen_count, seen_capacity;
  bool depth_reached;
};

static size_t folder_hash(dev_t dev, ino_t ino, size_t capacity) {
  uint64_t h = (uint64_t)ino * 0x9E3779B97F4A7C15ull ^ (uint64_t)dev * 0xC2B2AE3D27D4EB4Full;
  return (size_t)(h >> 17) & (capacity - 1);
}

/* True when the folder was not seen before (and now is); false when it was, or out of
 * memory (*no_memory). */
static bool search_enter(struct search *s, const struct stat *info, bool *no_memory) {
  if (2 * (s->seen_count + 1) > s->seen_capacity) {
    size_t capacity = s->seen_capacity ? 2 * s->seen_capacity : 256;
    struct folder_id *seen = calloc(capacity, sizeof *seen);
    if (!seen) {
      *no_memory = true;
      return false;
    }
    for (size_t i = 0; i < s->seen_capacity; i++) {
      if (!s->seen[i].ino)
        continue;
      size_t k = folder_hash(s->seen[i].dev, s->seen[i].ino, capacity);
      while (seen[k].ino)
        k = (k + 1) & (capacity - 1);
      seen[k] = s->seen[i];
    }
    free(s->seen);
    s->seen = seen;
    s->seen_capacity = capacity;
  }
  ino_t ino = info->st_ino ? info->st_ino : (ino_t)-1;
  size_t k = folder_hash(info->st_dev, ino, s->seen_capacity);
  for (; s->seen[k].ino; k = (k + 1) & (s->seen_capacity - 1))
    if (s->seen[k].ino == ino && s->seen[k].dev == info->st_dev)
      return false;
  s->seen[k] = (struct folder_id){info->st_dev, ino};
  s->seen_count++;
  return true;
}

/* Every folder at or below `folder` that holds a `metadata` file, by its real path; a
 * metadata folder is not searched further (its index/ holds no traces). */
static enum ctf_status find_metadata_folders(struct search *s, const char *folder, int depth) {
  struct stat info;
  if (stat(folder, &info) != 0)
    return depth == 0 ? ctf_fail(s->error, CTF_ERR_IO, "Cannot open trace: path=%s: %s",
                                 folder, strerror(errno))
                      : CTF_OK;
  bool no_memory = false;
  if (!search_enter(s, &info, &no_memory))
    return no_memory ? ctf_fail(s->error, CTF_ERR_NO_MEMORY, "Cannot search trace: out of memory")
                     : CTF_OK; /* seen through another link */
  if (s->seen_count > MAX_SEARCH_FOLDERS)
    return ctf_fail(s->error, CTF_ERR_USAGE,
                    "Cannot open trace: path=%s: the search for `metadata` files stopped after "
                    "%d folders below it (links lead out of the trace?): give the trace's own "
                    "folder",
                    s->root, MAX_SEARCH_FOLDERS);
  char *metadata = join_path(folder, "metadata");
  if (!metadata)
    return ctf_fail(s->error, CTF_ERR_NO_MEMORY, "Cannot search trace: out of memory");
  bool here = is_regular_file(metadata, NULL);
  free(metadata);
  if (here) {
    char *real = realpath(folder, NULL);
    bool added = path_list_add(s->found, real ? real : folder);
    free(real);
    return added ? CTF_OK
                 : ctf_fail(s->error, CTF_ERR_NO_MEMORY, "Cannot search trace: out of memory");
  }
  if (depth >= MAX_SEARCH_DEPTH) {
    s->depth_reached = true;
    return CTF_OK;
  }
  DIR *dir = opendir(folder);
  if (!dir) {
    if (depth == 0)
      return ctf_fail(s->error, CTF_ERR_IO, "Cannot open trace: path=%s: %s", folder,
                      strerror(errno));
    return CTF_OK;   /* an unreadable sub-folder holds no trace we can read */
  }
  enum ctf_status status = CTF_OK;
  struct dirent *entry;
  while (status == CTF_OK && (entry = readdir(dir))) {
    if (entry->d_name[0] == '.')
      continue;
    if (entry->d_type != DT_DIR && entry->d_type != DT_LNK && entry->d_type != DT_UNKNOWN)
      continue;      /* a file: no need to stat it */
    char *child = join_path(folder, entry->d_name);
    if (!child) {
      status = ctf_fail(s->error, CTF_ERR_NO_MEMORY, "Cannot search trace: out of memory");
      break;
    }
    struct stat child_info;
    if (stat(child, &child_info) == 0 && S_ISDIR(child_info.st_mode))
      status = find_metadata_folders(s, child, depth + 1);
    free(child);
  }
  closedir(dir);
  return status;
}

enum ctf_status ctf_trace_find(const char *path, char ***folders, size_t *count,
                               struct ctf_error *error) {
  *folders = NULL;
  *count = 0;
  struct path_list found = {0};
  struct search search = {.found = &found, .error = error, .root = path};
  enum ctf_status status = find_metadata_folders(&search, path, 0);
  free(search.seen);
  if (status != CTF_OK) {
    path_list_free(&found);
    return status;
  }
  if (found.count > 1)
    qsort(found.paths, found.count, sizeof *found.paths, compare_paths);
  *folders = found.paths;
  *count = found.count;
  return CTF_OK;
}

static enum ctf_status list_stream_files(const char *folder, struct path_list *files,
                                         struct ctf_error *error) {
  DIR *dir = opendir(folder);
  if (!dir)
    return ctf_fail(error, CTF_ERR_IO, "Cannot list streams: folder=%s: %s", folder,
                    strerror(errno));
  enum ctf_status status = CTF_OK;
  struct dirent *entry;
  while (status == CTF_OK && (entry = readdir(dir))) {
    if (entry->d_name[0] == '.' || !strcmp(entry->d_name, "metadata"))
      continue;
    char *path = join_path(folder, entry->d_name);
    if (!path || (is_regular_file(path, NULL) && !path_list_add(files, path)))
      status = ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot list streams: out of memory");
    free(path);
  }
  closedir(dir);
  if (status == CTF_OK && files->count > 1)
    qsort(files->paths, files->count, sizeof *files->paths, compare_paths);
  return status;
}

static void subtrace_free(struct ctf_subtrace_private *sub) {
  if (!sub)
    return;
  ctf_arena_free(&sub->arena);
  free(sub);
}

static enum ctf_status load_subtrace(const char *folder, size_t index,
                                     struct ctf_subtrace_private **out,
                                     struct ctf_error *error) {
  struct ctf_subtrace_private *sub = calloc(1, sizeof *sub);
  char *text = NULL;
  if (!sub)
    return ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot open trace: out of memory");
  enum ctf_status status = CTF_OK;
  char *metadata_path = join_path(folder, "metadata");
  sub->pub.path = metadata_path ? ctf_arena_strdup(&sub->arena, folder) : NULL;
  sub->pub.metadata_path =
      sub->pub.path ? ctf_arena_strdup(&sub->arena, metadata_path) : NULL;
  free(metadata_path);
  if (!sub->pub.metadata_path) {
    status = ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot open trace: out of memory");
    goto done;
  }
  size_t length = 0;
  status = ctf_metadata_file_read(sub->pub.metadata_path, &text, &length, error);
  if (status != CTF_OK)
    goto done;
  struct ctf_metadata *md = &sub->metadata;
  md->arena = &sub->arena;
  md->file = sub->pub.metadata_path;
  status = ctf_parse_metadata(md, text, error);
  if (status == CTF_OK)
    status = ctf_plan_compile_metadata(md, &sub->packet_header_plan,
                                       &sub->packet_header_registers, error);
  if (status != CTF_OK)
    goto done;
  struct ctf_subtrace *pub = &sub->pub;
  pub->major = md->major;
  pub->minor = md->minor;
  pub->has_uuid = md->has_uuid;
  memcpy(pub->uuid, md->uuid, sizeof pub->uuid);
  pub->byte_order = md->byte_order;
  pub->packet_header = md->packet_header;
  pub->env = md->env;
  pub->env_count = md->env_count;
  pub->clocks = md->clocks;
  pub->clock_count = md->clock_count;
  pub->stream_classes = (const struct ctf_stream_class *const *)md->stream_classes;
  pub->stream_class_count = md->stream_class_count;
  pub->event_classes = (const struct ctf_event_class *const *)md->event_classes;
  pub->event_class_count = md->event_class_count;
  pub->index = index;
  sub->register_count = sub->packet_header_registers;
  for (size_t i = 0; i < md->stream_class_count; i++) {
    md->stream_classes[i]->pub.subtrace = pub;
    if (md->stream_classes[i]->register_count > sub->register_count)
      sub->register_count = md->stream_classes[i]->register_count;
  }
done:
  free(text);
  if (status != CTF_OK) {
    subtrace_free(sub);
    sub = NULL;
  }
  *out = sub;
  return status;
}

/* Keys for stream event context fields: one per distinct name over all stream classes,
 * and per stream class the field each key names. */
static enum ctf_status build_context_keys(struct ctf_trace *trace, struct ctf_error *error) {
  size_t capacity = 0;
  for (size_t s = 0; s < trace->subtrace_count; s++) {
    struct ctf_metadata *md = &trace->subtraces[s]->metadata;
    for (size_t c = 0; c < md->stream_class_count; c++) {
      const struct ctf_type *context = md->stream_classes[c]->pub.event_context;
      for (size_t f = 0; context && f < context->u.structure.field_count; f++) {
        const char *name = context->u.structure.fields[f].name;
        bool known = false;
        for (size_t k = 0; k < trace->context_key_count && !known; k++)
          known = !strcmp(trace->context_keys[k], name);
        if (known)
          continue;
        if (trace->context_key_count == capacity) {
          capacity = capacity ? capacity * 2 : 8;
          trace->context_keys = ctf_arena_grow(&trace->arena, trace->context_keys,
                                               trace->context_key_count, capacity,
                                               sizeof *trace->context_keys);
          if (!trace->context_keys)
            return ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot open trace: out of memory");
        }
        trace->context_keys[trace->context_key_count++] = name;
      }
    }
  }
  for (size_t s = 0; s < trace->subtrace_count; s++) {
    struct ctf_subtrace_private *sub = trace->subtraces[s];
    for (size_t c = 0; c < sub->metadata.stream_class_count; c++) {
      struct ctf_stream_class_private *sc = sub->metadata.stream_classes[c];
      int32_t *fields = ctf_arena_alloc(&sub->arena, (trace->context_key_count + 1) *
                                                         sizeof *fields);
      if (!fields)
        return ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot open trace: out of memory");
      const struct ctf_type *context = sc->pub.event_context;
      for (size_t k = 0; k < trace->context_key_count; k++) {
        fields[k] = -1;
        for (size_t f = 0; context && f < context->u.structure.field_count; f++)
          if (!strcmp(context->u.structure.fields[f].name, trace->context_keys[k]))
            fields[k] = (int32_t)f;
      }
      sc->pub.context_key_fields = fields;
      sc->pub.context_key_count = trace->context_key_count;
    }
  }
  return CTF_OK;
}

static enum ctf_status add_streams(struct ctf_trace *trace, struct ctf_error *error) {
  size_t capacity = 0;
  for (size_t s = 0; s < trace->subtrace_count; s++) {
    struct path_list files = {0};
    enum ctf_status status = list_stream_files(trace->subtraces[s]->pub.path, &files, error);
    for (size_t f = 0; status == CTF_OK && f < files.count; f++) {
      if (trace->stream_count == capacity) {
        capacity = capacity ? capacity * 2 : 16;
        trace->streams = ctf_arena_grow(&trace->arena, trace->streams, trace->stream_count,
                                        capacity, sizeof *trace->streams);
        if (!trace->streams) {
          status = ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot open trace: out of memory");
          break;
        }
      }
      off_t size = 0;
      is_regular_file(files.paths[f], &size);
      struct ctf_stream *stream = &trace->streams[trace->stream_count];
      stream->path = ctf_arena_strdup(&trace->arena, files.paths[f]);
      stream->subtrace = &trace->subtraces[s]->pub;
      stream->file_size = (uint64_t)size;
      stream->index = trace->stream_count++;
      if (!stream->path)
        status = ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot open trace: out of memory");
    }
    path_list_free(&files);
    if (status != CTF_OK)
      return status;
  }
  return CTF_OK;
}

enum ctf_status ctf_trace_open(const char *path, struct ctf_trace **out,
                               struct ctf_error *error) {
  *out = NULL;
  if (!path || !*path)
    return ctf_fail(error, CTF_ERR_USAGE, "Cannot open trace: no path given");
  struct ctf_trace *trace = calloc(1, sizeof *trace);
  if (!trace)
    return ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot open trace: out of memory");
  struct path_list folders = {0};
  enum ctf_status status = CTF_OK;
  struct stat info;
  if (stat(path, &info) != 0) {
    status = ctf_fail(error, CTF_ERR_IO, "Cannot open trace: path=%s: %s", path,
                      strerror(errno));
    goto done;
  }
  struct search search = {.found = &folders, .error = error, .root = path};
  if (S_ISREG(info.st_mode)) {
    /* The metadata file itself: its folder is the trace. Any other file is named as
     * given, not as the metadata beside it. */
    const char *slash = strrchr(path, '/');
    if (strcmp(slash ? slash + 1 : path, "metadata") != 0) {
      status = ctf_fail(error, CTF_ERR_USAGE, "Cannot open trace: path=%s: a file, not a "
                                              "folder that holds a trace", path);
      goto done;
    }
    char *folder = strdup(path);
    char *cut = folder ? strrchr(folder, '/') : NULL;
    if (folder && cut)
      *cut = '\0';
    if (!folder || !path_list_add(&folders, cut ? (cut == folder ? "/" : folder) : "."))
      status = ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot open trace: out of memory");
    free(folder);
  } else {
    status = find_metadata_folders(&search, path, 0);
  }
  free(search.seen);
  if (status != CTF_OK)
    goto done;
  if (folders.count == 0) {
    status = ctf_fail(error, CTF_ERR_IO, "Cannot open trace: path=%s: no folder at or below "
                                         "it holds a `metadata` file%s", path,
                      search.depth_reached ? " (searched " STRINGIFY(MAX_SEARCH_DEPTH)
                                             " folders deep)" : "");
    goto done;
  }
  qsort(folders.paths, folders.count, sizeof *folders.paths, compare_paths);
  trace->subtraces = calloc(folders.count, sizeof *trace->subtraces);
  if (!trace->subtraces) {
    status = ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot open trace: out of memory");
    goto done;
  }
  size_t event_class_total = 0;
  for (size_t i = 0; i < folders.count && status == CTF_OK; i++) {
    status = load_subtrace(folders.paths[i], i, &trace->subtraces[i], error);
    if (status == CTF_OK) {
      trace->subtrace_count++;
      event_class_total += trace->subtraces[i]->metadata.event_class_count;
    }
  }
  if (status != CTF_OK)
    goto done;
  trace->event_classes = ctf_arena_alloc(&trace->arena, (event_class_total + 1) *
                                                            sizeof *trace->event_classes);
  if (!trace->event_classes) {
    status = ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot open trace: out of memory");
    goto done;
  }
  for (size_t s = 0; s < trace->subtrace_count; s++) {
    struct ctf_metadata *md = &trace->subtraces[s]->metadata;
    for (size_t e = 0; e < md->event_class_count; e++) {
      md->event_classes[e]->pub.index = trace->event_class_count;
      trace->event_classes[trace->event_class_count++] = &md->event_classes[e]->pub;
    }
  }
  status = build_context_keys(trace, error);
  if (status == CTF_OK)
    status = add_streams(trace, error);
done:
  path_list_free(&folders);
  if (status != CTF_OK) {
    ctf_trace_close(trace);
    return status;
  }
  *out = trace;
  return CTF_OK;
}

void ctf_trace_close(struct ctf_trace *trace) {
  if (!trace)
    return;
  for (size_t i = 0; i < trace->subtrace_count; i++)
    subtrace_free(trace->subtraces[i]);
  free(trace->subtraces);
  ctf_arena_free(&trace->arena);
  free(trace);
}

size_t ctf_trace_subtrace_count(const struct ctf_trace *trace) {
  return trace->subtrace_count;
}

const struct ctf_subtrace *ctf_trace_subtrace(const struct ctf_trace *trace, size_t index) {
  return index < trace->subtrace_count ? &trace->subtraces[index]->pub : NULL;
}

size_t ctf_trace_stream_count(const struct ctf_trace *trace) {
  return trace->stream_count;
}

const struct ctf_stream *ctf_trace_stream(const struct ctf_trace *trace, size_t index) {
  return index < trace->stream_count ? &trace->streams[index] : NULL;
}

size_t ctf_trace_event_class_count(const struct ctf_trace *trace) {
  return trace->event_class_count;
}

const struct ctf_event_class *ctf_trace_event_class(const struct ctf_trace *trace,
                                                    size_t index) {
  return index < trace->event_class_count ? trace->event_classes[index] : NULL;
}

const struct ctf_env_entry *ctf_subtrace_env(const struct ctf_subtrace *subtrace,
                                             const char *key) {
  for (size_t i = 0; i < subtrace->env_count; i++)
    if (!strcmp(subtrace->env[i].key, key))
      return &subtrace->env[i];
  return NULL;
}

const char *ctf_subtrace_env_string(const struct ctf_subtrace *subtrace, const char *key) {
  const struct ctf_env_entry *entry = ctf_subtrace_env(subtrace, key);
  return entry && entry->is_string ? entry->string : NULL;
}

const char *ctf_trace_env_string(const struct ctf_trace *trace, const char *key) {
  for (size_t i = 0; i < trace->subtrace_count; i++) {
    const char *value = ctf_subtrace_env_string(&trace->subtraces[i]->pub, key);
    if (value)
      return value;
  }
  return NULL;
}

int ctf_event_class_field_index(const struct ctf_event_class *event_class, const char *name) {
  for (size_t i = 0; i < event_class->field_count; i++)
    if (!strcmp(event_class->fields[i].name, name))
      return (int)i;
  for (size_t i = 0; i < event_class->field_count; i++)
    if (!strcmp(event_class->fields[i].raw_name, name))
      return (int)i;
  return -1;
}

int ctf_trace_context_key(const struct ctf_trace *trace, const char *name) {
  for (size_t k = 0; k < trace->context_key_count; k++)
    if (!strcmp(trace->context_keys[k], name))
      return (int)k;
  /* A raw name ("_vtid") shows without its leading underscore. */
  if (name[0] == '_')
    for (size_t k = 0; k < trace->context_key_count; k++)
      if (!strcmp(trace->context_keys[k], name + 1))
        return (int)k;
  return -1;
}

const struct ctf_stream_class_private *ctf_subtrace_stream_class(
    const struct ctf_subtrace_private *subtrace, uint64_t id) {
  const struct ctf_metadata *md = &subtrace->metadata;
  if (md->stream_class_count == 1 && !md->stream_classes[0]->has_id)
    return md->stream_classes[0];
  for (size_t i = 0; i < md->stream_class_count; i++)
    if (md->stream_classes[i]->pub.id == id)
      return md->stream_classes[i];
  return NULL;
}

const struct ctf_event_class_private *ctf_stream_class_event(
    const struct ctf_stream_class_private *stream_class, uint64_t id) {
  if (!stream_class->events_sorted)
    return id < stream_class->events_by_id_count ? stream_class->events_by_id[id] : NULL;
  size_t low = 0, high = stream_class->events_by_id_count;
  while (low < high) {
    size_t middle = low + (high - low) / 2;
    uint64_t here = stream_class->events_by_id[middle]->pub.id;
    if (here == id)
      return stream_class->events_by_id[middle];
    if (here < id)
      low = middle + 1;
    else
      high = middle;
  }
  return NULL;
}
