/* elf_exports: a shared library's soname and exported functions. See elf_exports.h. */
#include "elf_exports.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A string of the table at strtab (size bytes), or NULL when off is outside it. */
static const char *string_at(const char *strtab, size_t size, size_t off) {
  return off < size ? strtab + off : NULL;
}

int elf_exports_read(const char *path, struct strset *functions, char **soname) {
  *soname = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  struct stat st;
  if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
    close(fd);
    return -1;
  }
  size_t size = (size_t)st.st_size;
  const char *base = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (base == MAP_FAILED)
    return -1;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
  int rc = -1;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_shoff == 0 || eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
    goto done;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    if ((sh[i].sh_type != SHT_DYNSYM && sh[i].sh_type != SHT_DYNAMIC) ||
        sh[i].sh_link >= eh->e_shnum)
      continue;
    const Elf64_Shdr *str = &sh[sh[i].sh_link];
    if (sh[i].sh_offset + sh[i].sh_size > size || str->sh_offset + str->sh_size > size)
      continue;
    const char *strtab = base + str->sh_offset;
    if (sh[i].sh_type == SHT_DYNSYM) {
      const Elf64_Sym *sym = (const Elf64_Sym *)(base + sh[i].sh_offset);
      size_t count = sh[i].sh_size / sizeof *sym;
      for (size_t k = 0; k < count; k++) {
        unsigned bind = ELF64_ST_BIND(sym[k].st_info), type = ELF64_ST_TYPE(sym[k].st_info);
        const char *name = string_at(strtab, str->sh_size, sym[k].st_name);
        if (name && *name && sym[k].st_shndx != SHN_UNDEF &&
            (type == STT_FUNC || type == STT_GNU_IFUNC) && (bind == STB_GLOBAL || bind == STB_WEAK))
          strset_add(functions, name);
      }
      rc = 0;
    } else {
      const Elf64_Dyn *dyn = (const Elf64_Dyn *)(base + sh[i].sh_offset);
      size_t count = sh[i].sh_size / sizeof *dyn;
      for (size_t k = 0; k < count && dyn[k].d_tag != DT_NULL; k++) {
        const char *name =
            dyn[k].d_tag == DT_SONAME ? string_at(strtab, str->sh_size, dyn[k].d_un.d_val) : NULL;
        if (name && !*soname)
          *soname = xstrdup(name);
      }
    }
  }
done:
  munmap((void *)base, size);
  return rc;
}
