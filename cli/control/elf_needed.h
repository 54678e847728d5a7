/* elf_needed: the libraries a program names itself (its ELF DT_NEEDED entries), read from
 * the file without running anything: a cheap first look before `ldd` (app_libraries.h),
 * which also resolves what those libraries need in turn. */
#ifndef TRACER_ELF_NEEDED_H
#define TRACER_ELF_NEEDED_H

#include <stdbool.h>

/* The sonames path names in DT_NEEDED, one per line ("libmpich.so.12\nlibc.so.6\n"),
 * owned by the caller; NULL when path is not a 64-bit ELF file of this machine's byte
 * order with a dynamic section, or cannot be read. */
char *elf_needed(const char *path);

/* True when every library of the list is one of the C, C++ and Fortran runtimes
 * (libc, libm, libstdc++, libgfortran, ...), which link no API the tracer wraps. */
bool elf_needed_runtime_only(const char *list);

#endif
