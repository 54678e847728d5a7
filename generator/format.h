/* format: generated C laid out by clang-format, as a person's code would be.
 *
 * Templates say what the code is; clang-format decides where its lines break, with the
 * style file of the tree the templates belong to (the repository's .clang-format,
 * installed beside the templates folder). Every file of a backend is formatted at once,
 * one clang-format process each, before anything is written. The program is
 * `clang-format` from PATH, or the one CLANG_FORMAT names; generated/ is committed as
 * clang-format 14 (Debian 12) lays it out.
 */
#ifndef APIGEN_FORMAT_H
#define APIGEN_FORMAT_H

#include <stddef.h>

#include "diag.h"

struct format_file {
  const char *name; /* its file name: the language comes from its extension */
  char *text;       /* owned: the rendered text, replaced by the formatted one */
};

/* The style file that belongs to a templates folder: DIR/../.clang-format. Owned. */
char *format_style_of(const char *template_dir);

/* Formats every file whose name ends in .c or .h with the style file at style_path; other
 * files, and blank ones, are left as they are. Returns 0, or -1 with the cause in d (clang-format
 * missing, failing or killed; the style file missing), leaving every text as it was. */
int format_files(struct format_file *files, size_t count, const char *style_path, struct diag *d);

#endif
