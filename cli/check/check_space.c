/* check_space: free space and the file system where traces go, with what a trace takes. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "check_report.h"
#include "session.h"
#include "trace_budget.h"

/* Below this not even the trace's metadata and a first sub-buffer per CPU fit; below the
 * second a long run may fill the file system (LTTng then drops packets, and says so). */
#define CHECK_MIN_FREE_BYTES (16ull << 20)
#define CHECK_LOW_FREE_BYTES (1ull << 30)
/* What a traced call takes on disk in the default mode (trace_budget.h). */
#define CHECK_BYTES_PER_CALL ((unsigned long long)TRACE_BYTES_PER_CALL_DEFAULT)

static const char *filesystem_name(long type) {
  switch ((unsigned long)type) {
  case 0xEF53: return "ext4";
  case 0x58465342: return "xfs";
  case 0x9123683E: return "btrfs";
  case 0x01021994: return "tmpfs (memory)";
  case 0x794C7630: return "overlayfs";
  case 0x6969: return "NFS (shared)";
  case 0x0BD00BD0: return "Lustre (shared)";
  case 0x47504653: return "GPFS (shared)";
  case 0x19830326: return "BeeGFS (shared)";
  case 0x65735546: return "FUSE";
  default: return "file system";
  }
}

void check_space(struct check_report *report, const char *trace_dir) {
  /* The folder itself, or the nearest parent that exists: where it would be made. */
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", trace_dir);
  struct statfs fs;
  while (statfs(dir, &fs) != 0) {
    char *slash = strrchr(dir, '/');
    if (errno != ENOENT || !slash || slash == dir) {
      check_say(report, CHECK_FAIL, "trace folder", "%s: %s", trace_dir, strerror(errno));
      return;
    }
    *slash = '\0';
  }
  if (access(dir, W_OK | X_OK) != 0) {
    check_say(report, CHECK_FAIL, "trace folder", "%s cannot be written (%s)", dir,
              strerror(errno));
    return;
  }
  unsigned long long free_bytes = (unsigned long long)fs.f_bavail * (unsigned long long)fs.f_bsize;
  double gib = (double)free_bytes / (double)(1ull << 30);
  enum check_level level = free_bytes < CHECK_MIN_FREE_BYTES   ? CHECK_FAIL
                           : free_bytes < CHECK_LOW_FREE_BYTES ? CHECK_WARN
                                                               : CHECK_OK;
  check_say(report, level, "trace folder",
            "%s: %.1f GiB free on %s, room for about %.0f million calls (~%llu bytes each)%s",
            trace_dir, gib, filesystem_name(fs.f_type),
            (double)free_bytes / (double)CHECK_BYTES_PER_CALL / 1e6, CHECK_BYTES_PER_CALL,
            level == CHECK_FAIL ? " (too little)" : level == CHECK_WARN ? " (little)" : "");
  struct trace_budget_plan plan;
  if (trace_budget_plan(dir, 0, TRACE_BYTES_PER_CALL_DEFAULT, 0, 0, &plan) == 0) {
    char bound[32];
    trace_budget_format_bytes(plan.bound, bound, sizeof bound);
    check_say(report, CHECK_INFO, "trace bound",
              "a run's trace holds at most %s here (the free space less a margin; --max-size "
              "bounds it further); then the calls are only counted",
              bound);
  }
  uint64_t count = session_default_subbuf_count(SESSION_DEFAULT_SUBBUF_SIZE);
  int cpus = get_nprocs_conf();
  check_say(report, CHECK_INFO, "buffers",
            "%llu x %u MiB per CPU, %d CPUs: %llu MiB of memory per job while it traces",
            (unsigned long long)count, SESSION_DEFAULT_SUBBUF_SIZE >> 20, cpus,
            (unsigned long long)(count * (SESSION_DEFAULT_SUBBUF_SIZE >> 20) * (uint64_t)cpus));
}
