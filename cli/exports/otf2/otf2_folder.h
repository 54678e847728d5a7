/* otf2_folder: the folder an OTF2 archive lives in (`--otf2 DIR`): DIR/traces.otf2 (the
 * anchor), DIR/traces.def (global definitions) and DIR/traces/ (per location: N.evt, its
 * events, and N.def, its local definitions). An archive is written into DIR.tmp and
 * moved into place whole; DIR may be missing, an empty folder or an OTF2 archive (which
 * is replaced), never anything else, so that --otf2 never deletes a user's files. */
#ifndef TRACER_OTF2_FOLDER_H
#define TRACER_OTF2_FOLDER_H

#include <stddef.h>

#include "diag.h"

#define OTF2_ARCHIVE_NAME "traces"

/* Whether path can take an archive (above). Returns 0, or -1 with a cause in d. */
int otf2_folder_usable(const char *path, struct diag *d);
/* path's temporary twin (path.tmp). Returns 0, or -1 when too long. */
int otf2_folder_tmp(const char *path, char *tmp, size_t size);
/* Removes the archive in path (its files, then the folder); nothing when path is
 * missing. Returns 0, or -1 with errno. */
int otf2_folder_remove(const char *path);
/* Moves the archive written in tmp to path, replacing what path may hold (above).
 * Returns 0, or -1 with a cause in d. */
int otf2_folder_install(const char *tmp, const char *path, struct diag *d);
/* The event file of location id in archive folder dir. */
int otf2_folder_event_file(const char *dir, unsigned long long id, char *out, size_t size);
/* to as a hard link to from, or a copy when they are on different filesystems. Returns
 * 0, or -1 with errno. */
int otf2_folder_link(const char *from, const char *to);

#endif
