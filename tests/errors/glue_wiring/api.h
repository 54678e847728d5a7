/* A small API whose spec asks for glue that does not fit it. */
#ifndef GW_H
#define GW_H
enum gw_ids { GW_ID_queue = 1 };
void *gw_name(const char *name);
int gw_queue(unsigned flags);
int gw_proc(const char *name, void **address);
#endif
