/* otf2_folder: see otf2_folder.h. */
#include "otf2_folder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

static bool is_archive(const char *path) {
  char anchor[PATH_MAX];
  snprintf(anchor, sizeof anchor, "%s/" OTF2_ARCHIVE_NAME ".otf2", path);
  return exists(anchor);
}

/* 1 when path is a folder with nothing in it, 0 when it holds something, -1 on error. */
static int empty_folder(const char *path) {
  DIR *dir = opendir(path);
  if (!dir)
    return -1;
  struct dirent *e;
  int empty = 1;
  while (empty && (e = readdir(dir)))
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
      empty = 0;
  closedir(dir);
  return empty;
}

int otf2_folder_usable(const char *path, struct diag *d) {
  struct stat st;
  if (lstat(path, &st) != 0)
    return 0;
  if (!S_ISDIR(st.st_mode))
    return diag_error(d, "Cannot write the OTF2 archive: %s exists and is not a folder", path);
  if (is_archive(path) || empty_folder(path) == 1)
    return 0;
  return diag_error(d,
                    "Cannot write the OTF2 archive: %s holds files and no OTF2 archive "
                    "(give a new folder, an empty one or an archive to replace)",
                    path);
}

int otf2_folder_tmp(const char *path, char *tmp, size_t size) {
  return snprintf(tmp, size, "%s.tmp", path) < (int)size ? 0 : -1;
}

/* Removes every file of folder dir, then dir. */
static int remove_files(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return errno == ENOENT ? 0 : -1;
  struct dirent *e;
  int rc = 0;
  char path[PATH_MAX];
  while ((e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path ||
        (unlink(path) != 0 && errno != ENOENT))
      rc = -1;
  }
  closedir(d);
  if (rmdir(dir) != 0 && errno != ENOENT)
    rc = -1;
  return rc;
}

int otf2_folder_remove(const char *path) {
  if (!exists(path))
    return 0;
  char part[PATH_MAX];
  static const char *const files[] = {OTF2_ARCHIVE_NAME ".otf2", OTF2_ARCHIVE_NAME ".def",
                                      OTF2_ARCHIVE_NAME ".thumb"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    snprintf(part, sizeof part, "%s/%s", path, files[i]);
    if (unlink(part) != 0 && errno != ENOENT)
      return -1;
  }
  snprintf(part, sizeof part, "%s/" OTF2_ARCHIVE_NAME, path);
  if (remove_files(part))
    return -1;
  return rmdir(path);
}

int otf2_folder_install(const char *tmp, const char *path, struct diag *d) {
  if (exists(path)) {
    int empty = empty_folder(path);
    int rc = empty == 1 ? rmdir(path) : is_archive(path) ? otf2_folder_remove(path) : -1;
    if (rc)
      return diag_error(d, "Cannot write the OTF2 archive: cannot replace %s: %s", path,
                        empty == 0 && !is_archive(path) ? "it holds other files"
                                                        : strerror(errno));
  }
  if (rename(tmp, path) != 0)
    return diag_error(d, "Cannot write the OTF2 archive: cannot move %s to %s: %s", tmp, path,
                      strerror(errno));
  return 0;
}

int otf2_folder_event_file(const char *dir, unsigned long long id, char *out, size_t size) {
  return snprintf(out, size, "%s/" OTF2_ARCHIVE_NAME "/%llu.evt", dir, id) < (int)size ? 0 : -1;
}

static int copy_file(const char *from, const char *to) {
  int in = open(from, O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return -1;
  int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) {
    close(in);
    return -1;
  }
  char buffer[1 << 16];
  ssize_t n;
  int rc = 0;
  while (rc == 0 && (n = read(in, buffer, sizeof buffer)) != 0) {
    if (n < 0) {
      if (errno != EINTR)
        rc = -1;
      continue;
    }
    for (ssize_t done = 0; rc == 0 && done < n;) {
      ssize_t w = write(out, buffer + done, (size_t)(n - done));
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        rc = -1;
      else
        done += w;
    }
  }
  close(in);
  if (close(out) != 0)
    rc = -1;
  return rc;
}

int otf2_folder_link(const char *from, const char *to) {
  if (link(from, to) == 0)
    return 0;
  if (errno != EXDEV && errno != EPERM && errno != EMLINK)
    return -1;
  return copy_file(from, to);
}
