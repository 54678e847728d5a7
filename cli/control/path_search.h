/* path_search: finds a command the way a POSIX shell does, for the launcher (the traced
 * app) and the session (lttng-sessiond).
 *
 * A name that contains a slash is used as it is; any other name is looked up in each
 * folder of PATH in turn (an empty entry means the current folder, an unset PATH means
 * the system default from confstr(_CS_PATH)). The first file that may be executed wins;
 * PATH entries that cannot be searched, and folders that carry the name, are skipped.
 * When nothing qualifies but a file by that name exists without execute permission, the
 * result says so, and the caller can exit 126 like a shell rather than 127.
 */
#ifndef TRACER_PATH_SEARCH_H
#define TRACER_PATH_SEARCH_H

enum path_search_result {
  PATH_SEARCH_FOUND = 0,
  PATH_SEARCH_NOT_FOUND,      /* no such file anywhere: a shell exits 127 */
  PATH_SEARCH_NOT_EXECUTABLE, /* exists but is a folder or lacks execute permission: 126 */
  PATH_SEARCH_NO_MEMORY,
};

/* Resolves name. On PATH_SEARCH_FOUND, *path_out is a malloc'd path (owned by the
 * caller); otherwise *path_out is NULL, and for PATH_SEARCH_NOT_EXECUTABLE *errno_out
 * holds the reason (EACCES, EISDIR...) of the first candidate that exists. */
enum path_search_result path_search_executable(const char *name, char **path_out,
                                               int *errno_out);

#endif
