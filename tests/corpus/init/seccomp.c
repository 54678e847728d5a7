/* A libseccomp client: builds a filter (never loaded) with one rule that the library
 * takes and one it refuses (a syscall number that exists nowhere: a negative errno). */
#include <seccomp.h>
#include <stdio.h>

int main(void) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  int read_nr = seccomp_syscall_resolve_name("read");
  int none = seccomp_syscall_resolve_name("no_such_syscall");
  int ok = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(1), read_nr, 0, NULL);
  int refused = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(1), 1 << 30, 0, NULL);
  int arch = seccomp_arch_exist(ctx, SCMP_ARCH_NATIVE);
  printf("read=%d none=%d ok=%d refused=%d arch=%d\n", read_nr, none, ok, refused, arch);
  seccomp_release(ctx);
  return 0;
}
