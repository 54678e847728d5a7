/* A function that takes a va_list: on x86-64 an array type (struct __va_list_tag[1])
 * that decays to a pointer, which an args struct must not spell `struct __va_list_tag *`. */
#ifndef VA_H
#define VA_H
#include <stdarg.h>

int va_vlog(int level, const char *format, va_list ap);
int va_log(int level, const char *format, ...);
#endif
