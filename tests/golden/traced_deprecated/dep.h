/* Deprecated functions and types are wrapped too: the generated code must build under
 * -Werror=deprecated-declarations. */
#ifndef DEP_H
#define DEP_H
typedef int dep_count __attribute__((deprecated("use int")));
__attribute__((deprecated("use dep_open2"))) int dep_open(const char *name);
int dep_open2(const char *name, int flags);
__attribute__((deprecated)) dep_count dep_size(dep_count n);
#endif
