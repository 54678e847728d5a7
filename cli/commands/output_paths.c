/* output_paths: before an app runs, whether the files its reports and exports go to can
 * be written (commands.h). A run of hours used to end in `Cannot write the analysis: ...
 * No such file or directory`. The check looks (stat, access) and makes nothing, so a run
 * that then fails leaves no file behind; each cause is the sentence the writer itself
 * would have said. --otf2 also needs libotf2, loaded for it alone (otf2_library.h). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "flame.h"
#include "otf2_folder.h"
#include "otf2_library.h"

/* The folder path goes into, in out (".": none named). */
static void folder_of(const char *path, char *out, size_t size) {
  char copy[PATH_MAX];
  snprintf(copy, sizeof copy, "%s", path);
  snprintf(out, size, "%s", dirname(copy));
}

/* Whether a new entry can be made in folder: 0, or -1 with the reason in why. */
static int folder_takes_files(const char *folder, char *why, size_t size) {
  struct stat st;
  if (stat(folder, &st) != 0) {
    snprintf(why, size, "its folder %s: %s", folder, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) {
    snprintf(why, size, "%s is not a folder", folder);
    return -1;
  }
  if (access(folder, W_OK | X_OK) != 0) {
    snprintf(why, size, "its folder %s: %s", folder, strerror(errno));
    return -1;
  }
  return 0;
}

/* Whether the file path can be written: made, or an existing one overwritten in place
 * (replaced, when through_tmp: written as path.tmp and renamed, which needs its folder
 * even when the file exists). 0, or -1 with the reason in why. */
static int file_writable(const char *path, bool through_tmp, char *why, size_t size) {
  struct stat st;
  char folder[PATH_MAX];
  folder_of(path, folder, sizeof folder);
  if (stat(path, &st) != 0) {
    if (errno != ENOENT) {
      snprintf(why, size, "%s", strerror(errno));
      return -1;
    }
    return folder_takes_files(folder, why, size);
  }
  if (S_ISDIR(st.st_mode)) {
    snprintf(why, size, "it is a folder");
    return -1;
  }
  if (access(path, W_OK) != 0) {
    snprintf(why, size, "%s", strerror(errno));
    return -1;
  }
  return through_tmp && S_ISREG(st.st_mode) ? folder_takes_files(folder, why, size) : 0;
}

static void check_file(const char *path, const char *what, bool through_tmp, struct diag *d) {
  char why[PATH_MAX + 64];
  if (path && file_writable(path, through_tmp, why, sizeof why))
    diag_error(d, "Cannot write %s: file=%s: %s", what, path, why);
}

int output_paths_check(const struct tracer_options *o, struct diag *d) {
  unsigned before = d->count;
  check_file(o->output, "the analysis", false, d);
  check_file(o->csv_path, "the CSV tally", false, d);
  if (o->timeline && o->timeline_path) {
    /* Split parts and the summary go beside it: its folder must take files too. */
    char why[PATH_MAX + 64], folder[PATH_MAX];
    folder_of(o->timeline_path, folder, sizeof folder);
    unsigned said = d->count;
    check_file(o->timeline_path, "the timeline", false, d);
    if (d->count == said && folder_takes_files(folder, why, sizeof why))
      diag_error(d, "Cannot write the timeline: file=%s: %s", o->timeline_path, why);
  }
  if (o->flame_path) {
    char host[PATH_MAX];
    flame_host_path(o->flame_path, host, sizeof host);
    check_file(o->flame_path, "the folded stacks", true, d);
    check_file(host, "the folded stacks", true, d);
  }
  if (o->otf2_path)
    otf2_library_load(d); /* loaded for --otf2 only: say now when it cannot be */
  if (o->otf2_path && otf2_folder_usable(o->otf2_path, d) == 0) {
    /* Written as DIR.tmp beside DIR, then moved into place; libotf2 makes the folders
     * missing on the way, in the nearest that exists. */
    char why[PATH_MAX + 64], folder[PATH_MAX];
    folder_of(o->otf2_path, folder, sizeof folder);
    struct stat st;
    while (stat(folder, &st) != 0 && errno == ENOENT && strcmp(folder, ".") != 0 &&
           strcmp(folder, "/") != 0) {
      char parent[PATH_MAX];
      folder_of(folder, parent, sizeof parent);
      snprintf(folder, sizeof folder, "%s", parent);
    }
    if (folder_takes_files(folder, why, sizeof why))
      diag_error(d, "Cannot write the OTF2 archive: %s: %s", o->otf2_path, why);
  }
  return d->count == before ? 0 : -1;
}
