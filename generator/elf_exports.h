/* elf_exports: the soname and the exported functions of a shared library (64-bit ELF),
 * read from its dynamic section and dynamic symbol table, for `apigen --init`. */
#ifndef APIGEN_ELF_EXPORTS_H
#define APIGEN_ELF_EXPORTS_H

#include "util.h"

/* Adds the names of the functions path defines and exports (global or weak) to
 * functions, and sets *soname (owned; NULL when it has none). Returns -1 when path is no
 * readable 64-bit ELF shared library. */
int elf_exports_read(const char *path, struct strset *functions, char **soname);

#endif
