/* app_libraries: the shared libraries an app will load at start, as the dynamic loader
 * resolves them (ldd), so that the tracer can preload the interposer that matches the
 * library the app really links (backends of one symbol group, docs/spec-format.md).
 * Libraries the app dlopens later are not seen. */
#ifndef TRACER_APP_LIBRARIES_H
#define TRACER_APP_LIBRARIES_H

#include <stdbool.h>

/* The sonames `ldd APP` lists, one per line ("libmpich.so.12\n..."), owned by the
 * caller; NULL when ldd cannot say (a script, a static program, no ldd). app is found
 * through PATH as the launcher would. */
char *app_libraries(const char *app);

/* The same list, found cheaply when that settles which of wanted (sonames, NULL-ended)
 * the app links: its own DT_NEEDED (elf_needed.h) when it names one of them, or names
 * only the language runtimes (then it links none of them); else ldd's list. */
char *app_libraries_for(const char *app, const char *const *wanted);

/* True when the list holds soname as a whole line. */
bool app_libraries_has(const char *list, const char *soname);

#endif
