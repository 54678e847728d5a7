/* trace_budget: see trace_budget.h. */
#include "trace_budget.h"

#include "session.h"
#include "tracer_limit.h"

#include "lttng_ctl_library.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

/* The default bound leaves this share of the free space to others (1/8), at least 1 MiB
 * and at most 1 GiB. */
#define MARGIN_SHARE 8u
#define MARGIN_MIN (1ull << 20)
#define MARGIN_MAX (1ull << 30)
/* The buffers may take at most this share of the bound (1/4): what they hold when the
 * processes are told to count is written after. */
#define BUFFER_SHARE 4u
#define SMALL_SUBBUF_COUNT 4u
#define MIN_SUBBUF_SIZE 4096u
/* Room kept below the bound for what is written after the switch (counted events,
 * unfinished calls, metadata growth): 1/32 of the bound, 128 KiB to 64 MiB. */
#define RESERVE_SHARE 32u
#define RESERVE_MIN (128ull << 10)
#define RESERVE_MAX (64ull << 20)
/* Far from the bound (more room than this beyond what may come, and a second of the
 * current growth), the watch looks every LONG_POLL_MS only. */
#define FAR_BYTES (256ull << 20)
#define LONG_POLL_MS 100

struct trace_budget {
  struct trace_budget_plan plan;
  char *trace_dir;
  char *limit_file;
  char session_name[LTTNG_NAME_MAX];
  int limit_fd;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  bool done;
  struct timespec start;
  struct trace_budget_result result; /* written by the thread until done */
};

static uint64_t clamp(uint64_t value, uint64_t low, uint64_t high) {
  return value < low ? low : value > high ? high : value;
}

/* Free bytes for the user at dir or its nearest existing parent; -1 when none answers. */
static int free_space(const char *dir, uint64_t *bytes) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s", dir);
  struct statvfs fs;
  while (statvfs(path, &fs) != 0) {
    char *slash = strrchr(path, '/');
    if (errno != ENOENT || !slash)
      return -1;
    if (slash == path)
      slash[1] = '\0';
    else
      *slash = '\0';
  }
  *bytes = (uint64_t)fs.f_bavail * (uint64_t)fs.f_frsize;
  return 0;
}

int trace_budget_plan(const char *trace_dir, uint64_t max_size, unsigned bytes_per_call,
                      uint64_t subbuf_size, uint64_t subbuf_count, struct trace_budget_plan *plan) {
  memset(plan, 0, sizeof *plan);
  if (free_space(trace_dir, &plan->free_bytes) != 0)
    return -1;
  plan->bytes_per_call = bytes_per_call;
  plan->short_run_bytes = (uint64_t)bytes_per_call * TRACE_SHORT_RUN_CALLS;
  /* The free space less the margin (half of it when not even the margin is free) bounds
   * every run; --max-size may bound it further. */
  uint64_t margin = clamp(plan->free_bytes / MARGIN_SHARE, MARGIN_MIN, MARGIN_MAX);
  uint64_t room = plan->free_bytes > margin ? plan->free_bytes - margin : plan->free_bytes / 2;
  plan->bound_given = max_size != 0 && max_size <= room;
  plan->bound = plan->bound_given ? max_size : room;
  int cpus = get_nprocs_conf();
  uint64_t cpu_count = cpus > 0 ? (uint64_t)cpus : 1;
  uint64_t size = subbuf_size ? subbuf_size : SESSION_DEFAULT_SUBBUF_SIZE;
  uint64_t count = subbuf_count ? subbuf_count : session_default_subbuf_count(size);
  /* Buffers the user did not size are made smaller when they would take more than their
   * share of the bound: 4 sub-buffers per CPU, halved down to a page. */
  if (!subbuf_size && !subbuf_count && size * count * cpu_count > plan->bound / BUFFER_SHARE) {
    count = SMALL_SUBBUF_COUNT;
    while (size > MIN_SUBBUF_SIZE && size * count * cpu_count > plan->bound / BUFFER_SHARE)
      size /= 2;
    plan->subbuf_size = size;
    plan->subbuf_count = count;
  }
  plan->buffer_bytes =
      (size * count + SESSION_COUNTS_SUBBUF_SIZE * SESSION_COUNTS_SUBBUF_COUNT) * cpu_count;
  return 0;
}

/* nftw has no context argument: a walk adds to walk_sum, one walk at a time. */
static pthread_mutex_t walk_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t walk_sum;

static uint64_t walk(const char *dir, int (*visit)(const char *, const struct stat *, int,
                                                   struct FTW *)) {
  pthread_mutex_lock(&walk_lock);
  walk_sum = 0;
  nftw(dir, visit, 16, FTW_PHYS);
  uint64_t sum = walk_sum;
  pthread_mutex_unlock(&walk_lock);
  return sum;
}

static int add_file(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)path;
  (void)ftw;
  if (type == FTW_F) {
    uint64_t allocated = (uint64_t)st->st_blocks * 512u;
    walk_sum += allocated > (uint64_t)st->st_size ? allocated : (uint64_t)st->st_size;
  }
  return 0;
}

static int add_metadata(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  if (type == FTW_F && strcmp(path + ftw->base, "metadata") == 0)
    walk_sum += (uint64_t)st->st_size;
  return 0;
}

uint64_t trace_budget_folder_bytes(const char *dir) {
  return walk(dir, add_file);
}

/* LTTng-UST's packet header (lttng-ust's ring buffer client, packed): the magic number at
 * byte 0, the packet's size in bits at byte 56. */
#define PACKET_MAGIC 0xC1FC1FC1u
#define PACKET_SIZE_OFFSET 56
#define PACKET_HEADER_MIN 64

/* LTTng's packet index of a stream (index/NAME.idx): a 16-byte header (magic, version,
 * the length of an entry at byte 12), then one entry per packet written, big-endian,
 * starting with its offset in bytes and its size in bits. */
#define INDEX_MAGIC 0xC1F1DCC1u
#define INDEX_HEADER 16

static uint64_t be64_at(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v = v << 8 | p[i];
  return v;
}

/* Leaves in a stream's index only the packets its file holds whole (size: the file's),
 * so that the index says what the trace keeps: a packet the consumer could not write
 * whole is lost in the recording, not from the file. An index that cannot be read so
 * is removed (readers then go by the packets' sequence numbers). */
static void trim_index(const char *index, uint64_t size) {
  int fd = open(index, O_RDWR | O_CLOEXEC);
  if (fd < 0)
    return;
  unsigned char header[INDEX_HEADER], entry[16];
  bool ok = pread(fd, header, sizeof header, 0) == (ssize_t)sizeof header;
  uint32_t magic = (uint32_t)header[0] << 24 | (uint32_t)header[1] << 16 |
                   (uint32_t)header[2] << 8 | header[3];
  uint32_t length = (uint32_t)header[12] << 24 | (uint32_t)header[13] << 16 |
                    (uint32_t)header[14] << 8 | header[15];
  ok = ok && magic == INDEX_MAGIC && length >= sizeof entry;
  uint64_t keep = INDEX_HEADER;
  while (ok && pread(fd, entry, sizeof entry, (off_t)keep) == (ssize_t)sizeof entry &&
         be64_at(entry) + be64_at(entry + 8) / 8 <= size)
    keep += length;
  struct stat st;
  if (!ok)
    unlink(index);
  else if (fstat(fd, &st) == 0 && (uint64_t)st.st_size > keep && ftruncate(fd, (off_t)keep))
    unlink(index);
  close(fd);
}

/* Cuts an event stream (a file under ust/ whose first packet is whole) after its last
 * whole packet, and its index to the packets left; any other file is left as it is. */
static int trim_stream(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  const char *name = path + ftw->base;
  if (type != FTW_F || !strstr(path, "/ust/") || strcmp(name, "metadata") == 0 ||
      strstr(path, "/index/"))
    return 0;
  uint64_t offset = 0, size = (uint64_t)st->st_size;
  int fd = size >= PACKET_HEADER_MIN ? open(path, O_RDWR | O_CLOEXEC) : -1;
  for (; fd >= 0;) {
    uint32_t magic = 0;
    uint64_t bits = 0;
    if (offset + PACKET_HEADER_MIN > size ||
        pread(fd, &magic, sizeof magic, (off_t)offset) != (ssize_t)sizeof magic ||
        pread(fd, &bits, sizeof bits, (off_t)(offset + PACKET_SIZE_OFFSET)) !=
            (ssize_t)sizeof bits ||
        magic != PACKET_MAGIC || bits == 0 || bits % 8 || offset + bits / 8 > size)
      break;
    offset += bits / 8;
  }
  if (fd >= 0 && offset > 0 && offset < size && ftruncate(fd, (off_t)offset) == 0) {
    walk_sum++;
    size = offset;
  }
  if (fd >= 0)
    close(fd);
  char index[PATH_MAX];
  snprintf(index, sizeof index, "%.*sindex/%s.idx", (int)ftw->base, path, name);
  trim_index(index, size);
  return 0;
}

unsigned trace_budget_trim_packets(const char *trace_dir) {
  return (unsigned)walk(trace_dir, trim_stream);
}

void trace_budget_format_bytes(uint64_t bytes, char *text, unsigned long size) {
  if (bytes >= (1ull << 30))
    snprintf(text, size, "%.1f GiB", (double)bytes / (double)(1ull << 30));
  else if (bytes >= (1ull << 20))
    snprintf(text, size, "%.1f MiB", (double)bytes / (double)(1ull << 20));
  else if (bytes >= (1ull << 10))
    snprintf(text, size, "%.0f KiB", (double)bytes / (double)(1ull << 10));
  else
    snprintf(text, size, "%llu B", (unsigned long long)bytes);
}

static uint64_t elapsed_ns(const struct timespec *start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)(now.tv_sec - start->tv_sec) * 1000000000u + (uint64_t)now.tv_nsec -
         (uint64_t)start->tv_nsec;
}

/* Tells every traced process to count from now on (runtime/tracer_limit.h). */
static void tell_count_only(struct trace_budget *b) {
  int32_t by_watch = TRACER_LIMITED_BY_WATCH;
  b->result.counting = pwrite(b->limit_fd, &by_watch, sizeof by_watch, 0) ==
                       (ssize_t)sizeof by_watch;
}

static uint64_t reserve_of(const struct trace_budget_plan *plan) {
  return clamp(plan->bound / RESERVE_SHARE, RESERVE_MIN, RESERVE_MAX);
}

/* The recorded calls the processes may make before they count on their own: what the
 * bound leaves once the buffers, the metadata's sub-buffer and the reserve are kept
 * aside, at the mode's bytes per call. 0 (no budget) without a bytes-per-call figure. */
static uint64_t call_budget_of(const struct trace_budget_plan *plan) {
  if (!plan->bytes_per_call)
    return 0;
  uint64_t aside = plan->buffer_bytes + SESSION_METADATA_SUBBUF_SIZE + reserve_of(plan);
  uint64_t room = plan->bound > aside ? plan->bound - aside : 0;
  uint64_t calls = room / plan->bytes_per_call;
  return calls ? calls : 1;
}

/* Whether a process spent the call budget: then the bound is reached, at the time the
 * process wrote. */
static bool spent_by_processes(struct trace_budget *b, uint64_t *at_ns) {
  struct tracer_limit_file page;
  if (pread(b->limit_fd, &page, sizeof page, 0) != (ssize_t)sizeof page ||
      page.limited != TRACER_LIMITED_BY_CALLS)
    return false;
  uint64_t start = (uint64_t)b->start.tv_sec * 1000000000u + (uint64_t)b->start.tv_nsec;
  *at_ns = page.limited_at_ns > start ? page.limited_at_ns - start : 0;
  return true;
}

/* One look: the folder's size and the file system's free space against what may still
 * come (the buffers' content, twice the last interval's growth scaled to a short
 * interval, the reserve). Returns the milliseconds until the next look: the short
 * interval near the bound, the long one far from it (a folder on a shared file system is
 * not to be walked 100 times a second for nothing). */
static long look(struct trace_budget *b, uint64_t *last_bytes, long interval_ms) {
  uint64_t bytes = trace_budget_folder_bytes(b->trace_dir);
  uint64_t free_bytes = UINT64_MAX;
  if (free_space(b->trace_dir, &free_bytes) == 0 && free_bytes == 0)
    b->result.disk_full = true;
  uint64_t growth = bytes > *last_bytes ? bytes - *last_bytes : 0;
  *last_bytes = bytes;
  uint64_t per_poll = growth * TRACE_BUDGET_POLL_MS / (uint64_t)interval_ms;
  uint64_t reserve = reserve_of(&b->plan);
  /* The metadata (every preloaded backend's events, some 400 KiB) stays in its channel's
   * sub-buffer until the switch timer or the end: until it is on disk, a sub-buffer of
   * it is still to come. */
  uint64_t metadata = walk(b->trace_dir, add_metadata) ? 0 : SESSION_METADATA_SUBBUF_SIZE;
  uint64_t coming = b->plan.buffer_bytes + metadata + 2 * per_poll + reserve;
  uint64_t room = b->plan.bound < free_bytes ? b->plan.bound : free_bytes;
  uint64_t second = per_poll * (1000 / TRACE_BUDGET_POLL_MS);
  bool far = room > bytes && room - bytes > coming + FAR_BYTES + second;
  long next = far ? LONG_POLL_MS : TRACE_BUDGET_POLL_MS;
  if (b->result.reason == TRACE_BUDGET_NOT_REACHED) {
    uint64_t spent_at = 0;
    bool spent = spent_by_processes(b, &spent_at);
    bool over_bound = spent || bytes + coming >= b->plan.bound;
    bool over_free = free_bytes <= coming;
    if (!over_bound && !over_free)
      return next;
    b->result.reason = over_bound && b->plan.bound_given ? TRACE_BUDGET_MAX_SIZE
                                                         : TRACE_BUDGET_DISK_FULL;
    b->result.at_ns = spent ? spent_at : elapsed_ns(&b->start);
    b->result.bytes_at = bytes;
    if (spent)
      b->result.counting = true;
    else
      tell_count_only(b);
    return TRACE_BUDGET_POLL_MS;
  }
  /* Told already: the trace should grow by what the buffers held, and then by little.
   * A process that never mapped the limit file records on: stop the session. */
  /* liblttng-ctl is not thread-safe: this request may only race a fork listener's
   * tracking request (the app forking just then), which is rare on this last resort. The
   * main thread makes none until the watch is finished. */
  if (!b->result.session_stopped && bytes + reserve / 2 >= b->plan.bound) {
    lttng_stop_tracing_no_wait(b->session_name);
    b->result.session_stopped = true;
  }
  return TRACE_BUDGET_POLL_MS;
}

static void *watch(void *arg) {
  struct trace_budget *b = arg;
  uint64_t last_bytes = 0;
  long interval_ms = TRACE_BUDGET_POLL_MS;
  pthread_mutex_lock(&b->lock);
  while (!b->done) {
    pthread_mutex_unlock(&b->lock);
    interval_ms = look(b, &last_bytes, interval_ms);
    pthread_mutex_lock(&b->lock);
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += interval_ms * 1000000L;
    while (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    while (!b->done && pthread_cond_timedwait(&b->wake, &b->lock, &until) == 0) {
    }
  }
  pthread_mutex_unlock(&b->lock);
  return NULL;
}

struct trace_budget *trace_budget_start(const struct trace_budget_plan *plan,
                                        const char *trace_dir, const char *session_name) {
  struct trace_budget *b = calloc(1, sizeof *b);
  if (!b)
    return NULL;
  b->plan = *plan;
  b->limit_fd = -1;
  snprintf(b->session_name, sizeof b->session_name, "%s", session_name);
  if (!(b->trace_dir = strdup(trace_dir)) ||
      asprintf(&b->limit_file, "%s/%s", trace_dir, TRACE_LIMIT_FILE) < 0) {
    b->limit_file = NULL;
    goto fail;
  }
  /* Mapped by the app's processes (the same user): not limited, with the call budget. */
  b->limit_fd = open(b->limit_file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  struct tracer_limit_file page = {.call_budget = call_budget_of(plan)};
  if (b->limit_fd < 0 || pwrite(b->limit_fd, &page, sizeof page, 0) != (ssize_t)sizeof page)
    goto fail;
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&b->wake, &attr);
  pthread_condattr_destroy(&attr);
  pthread_mutex_init(&b->lock, NULL);
  clock_gettime(CLOCK_MONOTONIC, &b->start);
  int rc = pthread_create(&b->thread, NULL, watch, b);
  if (rc == 0)
    return b;
  errno = rc;
  pthread_cond_destroy(&b->wake);
  pthread_mutex_destroy(&b->lock);
fail:;
  int saved = errno;
  if (b->limit_fd >= 0) {
    close(b->limit_fd);
    unlink(b->limit_file);
  }
  free(b->limit_file);
  free(b->trace_dir);
  free(b);
  errno = saved;
  return NULL;
}

void trace_budget_measure_end(const char *trace_dir, struct trace_budget_result *result) {
  result->kept_bytes = trace_budget_folder_bytes(trace_dir);
  uint64_t free_bytes;
  result->full_at_end = free_space(trace_dir, &free_bytes) == 0 && free_bytes == 0;
  result->disk_full |= result->full_at_end;
}

const char *trace_budget_limit_file(const struct trace_budget *budget) {
  return budget->limit_file;
}

void trace_budget_finish(struct trace_budget *b, struct trace_budget_result *result) {
  memset(result, 0, sizeof *result);
  if (!b)
    return;
  pthread_mutex_lock(&b->lock);
  b->done = true;
  pthread_cond_signal(&b->wake);
  pthread_mutex_unlock(&b->lock);
  pthread_join(b->thread, NULL);
  struct tracer_limit_file page;
  if (pread(b->limit_fd, &page, sizeof page, 0) == (ssize_t)sizeof page)
    b->result.clock_read_least = page.clock_read_least;
  close(b->limit_fd);
  unlink(b->limit_file);
  *result = b->result;
  pthread_cond_destroy(&b->wake);
  pthread_mutex_destroy(&b->lock);
  free(b->limit_file);
  free(b->trace_dir);
  free(b);
}
