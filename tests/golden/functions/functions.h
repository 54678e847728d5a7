/* Golden case "functions": callbacks, variadics, arrays, qualifiers, K&R. */
#ifndef FUNCTIONS_H
#define FUNCTIONS_H
#include <stddef.h>
#include <stdarg.h>

/* Callback typedefs: named params, unnamed params, a variadic one, one returning a
 * function pointer, and a pointer to a function typedef (not a pointer typedef). */
typedef int (*fn_compare_t)(const void *left, const void *right);
typedef void (*fn_log_t)(int level, const char *format, ...);
typedef void (*fn_notify_t)(void *, size_t);
typedef fn_compare_t (*fn_factory_t)(int kind);
typedef int fn_handler_fn(int signal);
/* A typedef of a callback typedef, and a callback that takes a callback. */
typedef fn_compare_t fn_compare_alias_t;
typedef int (*fn_visit_t)(fn_compare_alias_t compare, void (*done)(int status), int[4]);

/* Function pointers as params, with and without a typedef. */
void fn_sort(void *base, size_t count, size_t size, fn_compare_t compare);
int fn_register(void (*callback)(int event, void *user), void *user);
int fn_install(fn_handler_fn *handler, fn_handler_fn *previous[2]);

/* Variadic functions. */
int fn_printf(const char *format, ...);
int fn_vprintf(const char *format, va_list args);
void fn_log(fn_log_t logger);
int fn_visit(fn_visit_t visitor, fn_factory_t factory, fn_notify_t notify);

/* Returning function pointers, through a typedef and spelled out. */
fn_compare_t fn_get_compare(int kind);
int (*fn_get_raw(const char *name))(const void *, const void *);
void (*fn_signal(int sig, void (*handler)(int)))(int);

/* Array params (they decay, but the model keeps the written size) and a
 * multi-dimensional one. */
void fn_set_origin(const size_t origin[3], size_t region[3]);
void fn_set_matrix(float matrix[4][4], int rows[]);

/* Qualifiers: const, volatile, restrict, at every level. */
void *fn_copy(void *restrict dst, const void *restrict src, size_t n);
void fn_qualified(const volatile int *status, int *const fixed, char *volatile moving,
                  const char *const *names, const char **out_name);

/* K&R style: no prototype. And an explicit (void). */
int fn_legacy();
int fn_no_args(void);

/* Unnamed params. */
long fn_unnamed(int, char *, const double *);
#endif
