/* Golden case "selection": a second header, whose content depends on the spec's
 * defines. */
#ifndef SEL_EXT_H
#define SEL_EXT_H
#include "sel.h"
#if SEL_WITH_EXT
int selExtQuery(sel_public_config_t *config);
#define SEL_EXT_NAME "sel" "_ext"
#else
int selExtMissing(void);
#endif
#endif
