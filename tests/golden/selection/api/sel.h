/* Golden case "selection": the main API header. */
#ifndef SEL_H
#define SEL_H
#include <stdio.h>
#include "sel_base.h"

/* Selected by the types pattern. */
typedef struct sel_public_config {
  int verbose;
} sel_public_config_t;

/* Matches the types pattern by tag and typedef name, both excluded; nothing selected
 * uses it. */
typedef struct sel_public_hidden { int x; } sel_public_hidden_t;

/* Not matched by the types pattern: modelled only because sel_open uses it, and it
 * pulls in the enum its field uses. */
typedef enum sel_mode { SEL_MODE_READ = 1, SEL_MODE_WRITE = 2 } sel_mode_t;
typedef struct sel_options {
  sel_mode_t mode;
  sel_base_id_t base_id; /* outside the API folder: spelled, but no entry */
} sel_options_t;

/* Never used and not matched: not modelled. */
typedef struct sel_unused { int y; } sel_unused_t;

int sel_open(const char *path, const sel_options_t *options);
/* FILE comes from <stdio.h>: the param is modelled, FILE is not. */
int sel_dump(FILE *stream);
/* Excluded by the functions exclude pattern. */
int sel_open_internal(int flags);

#define SEL_MAX_PATH 4096
#define SEL_PRIVATE_FLAG 0x10 /* excluded by the spec */
#if SEL_LEVEL > 2
#define SEL_HIGH_LEVEL 1
#else
#define SEL_LOW_LEVEL 1
#endif
#endif
