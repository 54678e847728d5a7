/* Declarations that depend on NDEBUG, which the build sets (CMake's release flags) and a
 * bare parse would not: the model must be made with the macros the generated code is
 * compiled with. */
#ifndef ND_H
#define ND_H
#ifndef NDEBUG
int nd_check(const char *what);  /* exists only in debug builds of the library */
#define ND_CHECK(x) nd_check(#x)
typedef struct nd_debug_info { int line; } nd_info;
#else
typedef struct nd_release_info { long line; const char *file; } nd_info;
#endif
int nd_run(nd_info *info);
#endif
