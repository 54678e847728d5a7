/* app_libraries_test: which MPI library an app links, cheaply from its own DT_NEEDED when
 * that settles it (cli/control/elf_needed.c), else through ldd (app_libraries.c).
 * Usage: app_libraries_test MPICH_C_APP MPICH_FORTRAN_APP */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_libraries.h"
#include "elf_needed.h"

#include "expect.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: app_libraries_test MPICH_C_APP MPICH_FORTRAN_APP\n");
    return 2;
  }
  const char *wanted[] = {"libmpich.so.12", "libmpi.so.40", NULL};
  /* The C program names libmpich itself; the Fortran one only through libmpichfort. */
  char *direct = elf_needed(argv[1]);
  EXPECT(direct && app_libraries_has(direct, "libmpich.so.12") &&
         app_libraries_has(direct, "libc.so.6") && !elf_needed_runtime_only(direct));
  free(direct);
  direct = elf_needed(argv[2]);
  EXPECT(direct && !app_libraries_has(direct, "libmpich.so.12") &&
         app_libraries_has(direct, "libmpichfort.so.12"));
  free(direct);
  char *found = app_libraries_for(argv[2], wanted); /* through ldd */
  EXPECT(found && app_libraries_has(found, "libmpich.so.12"));
  free(found);
  found = app_libraries_for(argv[1], wanted);
  EXPECT(found && app_libraries_has(found, "libmpich.so.12"));
  free(found);

  EXPECT(elf_needed_runtime_only("libc.so.6\nlibm.so.6\nlibgfortran.so.5\n"));
  EXPECT(!elf_needed_runtime_only("libc.so.6\nlibOpenCL.so.1\n"));
  EXPECT(!elf_needed_runtime_only(NULL));

  /* Not ELF, cut short, missing: no list. */
  char script[] = "/tmp/app_libraries_test.XXXXXX";
  int fd = mkstemp(script);
  EXPECT(fd >= 0);
  EXPECT(write(fd, "#!/bin/sh\n", 10) == 10);
  EXPECT(elf_needed(script) == NULL);
  FILE *in = fopen(argv[1], "rb");
  char head[100];
  size_t n = in ? fread(head, 1, sizeof head, in) : 0;
  if (in)
    fclose(in);
  EXPECT(ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0 &&
         write(fd, head, n) == (ssize_t)n);
  EXPECT(elf_needed(script) == NULL);
  close(fd);
  unlink(script);
  EXPECT(elf_needed("/nonexistent/app") == NULL);
  if (failures)
    return 1;
  puts("PASS: app_libraries");
  return 0;
}
