/* elf_needed: see elf_needed.h. */
#include "elf_needed.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The dynamic section and its string table, through the section headers. */
static char *needed_of(const unsigned char *image, size_t size) {
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)image;
  if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
      eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
      (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
    return NULL;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(image + eh->e_shoff);
  for (size_t i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_DYNAMIC || sh[i].sh_link >= eh->e_shnum)
      continue;
    const Elf64_Shdr *dyn = &sh[i], *str = &sh[dyn->sh_link];
    if (dyn->sh_offset > size || dyn->sh_size > size - dyn->sh_offset ||
        str->sh_offset > size || str->sh_size > size - str->sh_offset)
      return NULL;
    const Elf64_Dyn *d = (const Elf64_Dyn *)(image + dyn->sh_offset);
    size_t n = dyn->sh_size / sizeof *d, len = 0;
    char *list = calloc(1, str->sh_size + n + 1);
    for (size_t k = 0; list && k < n && d[k].d_tag != DT_NULL; k++) {
      if (d[k].d_tag != DT_NEEDED || d[k].d_un.d_val >= str->sh_size)
        continue;
      const char *name = (const char *)image + str->sh_offset + d[k].d_un.d_val;
      size_t room = str->sh_size - d[k].d_un.d_val;
      size_t nlen = strnlen(name, room);
      if (nlen == room) /* not terminated inside the table */
        continue;
      memcpy(list + len, name, nlen);
      len += nlen;
      list[len++] = '\n';
    }
    return list;
  }
  return NULL;
}

char *elf_needed(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  struct stat st;
  char *list = NULL;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    void *image = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (image != MAP_FAILED) {
      list = needed_of(image, (size_t)st.st_size);
      munmap(image, (size_t)st.st_size);
    }
  }
  close(fd);
  return list;
}

bool elf_needed_runtime_only(const char *list) {
  static const char *const runtimes[] = {
      "libc.so.",      "libm.so.",     "libpthread.so.", "libdl.so.",      "librt.so.",
      "ld-linux",      "libgcc_s.so.", "libstdc++.so.",  "libgfortran.so.", "libquadmath.so.",
      "libgomp.so.",   "libatomic.so.", "libutil.so.",   "libresolv.so.",   "libcrypt.so.",
      NULL};
  for (const char *p = list; p && *p;) {
    size_t n = strcspn(p, "\n");
    bool known = false;
    for (size_t i = 0; runtimes[i] && !known; i++)
      known = strncmp(p, runtimes[i], strlen(runtimes[i])) == 0;
    if (!known)
      return false;
    p += n + (p[n] == '\n');
  }
  return list != NULL;
}
