/* A libseccomp client: builds a filter (never loaded) with one rule that the library takes
 * and one it refuses (the default's own action: a negative errno), and resolves a syscall
 * name that exists, one that exists nowhere (__NR_SCMP_ERROR) and one that x86-64 lacks,
 * which resolves to a negative pseudo syscall number: a success, as seccomp.h says. */
#include <seccomp.h>
#include <stdio.h>

int main(void) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  int read_nr = seccomp_syscall_resolve_name("read");
  int none = seccomp_syscall_resolve_name("no_such_syscall");
  int pseudo = seccomp_syscall_resolve_name("socketcall");
  int ok = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(1), read_nr, 0, NULL);
  int refused = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, read_nr, 0, NULL);
  int arch = seccomp_arch_exist(ctx, SCMP_ARCH_NATIVE);
  printf("read=%d none=%d pseudo=%d ok=%d refused=%d arch=%d\n", read_nr, none, pseudo, ok,
         refused, arch);
  seccomp_release(ctx);
  return 0;
}
