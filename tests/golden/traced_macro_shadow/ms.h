/* A function that the header also defines as a function-like macro (zlib's gzgetc,
 * libpng's png_get_uint_32): the library exports it, callers get the macro, and the
 * wrapper's definition must not expand it. */
#ifndef MS_H
#define MS_H
struct ms_file { unsigned have; unsigned char *next; };
int ms_getc(struct ms_file *file);
#define ms_getc(f) ((f)->have ? ((f)->have--, *(f)->next++) : (ms_getc)(f))
int ms_open(const char *path);
#endif
