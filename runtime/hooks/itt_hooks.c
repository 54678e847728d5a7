/* itt hooks: what an ITT collector must give back itself. Domains and string handles are
 * interned (one object per name, never freed: the app keeps pointers to them for its
 * whole life), and a domain is created enabled, since the app's ITT macros skip every
 * call on a domain whose flags are 0; counters get a handle of their own. Everything
 * else is generated (generated/itt/itt_collector.c).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "itt_args.h"

/* Present for the ITT static part: a collector that exports it gets every function looked
 * up by name (one without it only gets the legacy ones). */
const char *__itt_api_version(void) { return "tracer ITT collector 1"; }

static pthread_mutex_t itt_lock = PTHREAD_MUTEX_INITIALIZER;
static __itt_domain *itt_domains;
static __itt_string_handle *itt_strings;

void itt_hook___itt_domain_create_after(struct itt___itt_domain_create_args *args) {
  if (!args->name)
    return;
  pthread_mutex_lock(&itt_lock);
  __itt_domain *d = itt_domains;
  while (d && strcmp(d->nameA, args->name) != 0)
    d = d->next;
  if (!d && (d = calloc(1, sizeof *d)) && (d->nameA = strdup(args->name))) {
    d->flags = 1;
    d->next = itt_domains;
    itt_domains = d;
  }
  pthread_mutex_unlock(&itt_lock);
  args->tracer_result = d && d->nameA ? d : NULL;
}

void itt_hook___itt_string_handle_create_after(struct itt___itt_string_handle_create_args *args) {
  if (!args->name)
    return;
  pthread_mutex_lock(&itt_lock);
  __itt_string_handle *s = itt_strings;
  while (s && strcmp(s->strA, args->name) != 0)
    s = s->next;
  if (!s && (s = calloc(1, sizeof *s)) && (s->strA = strdup(args->name))) {
    s->next = itt_strings;
    itt_strings = s;
  }
  pthread_mutex_unlock(&itt_lock);
  args->tracer_result = s && s->strA ? s : NULL;
}

/* Counters: a distinct handle per counter created, which the app passes back to the
 * counter calls (recorded with it). Only its address matters. */
static __itt_counter itt_new_counter(void) {
  return (__itt_counter)calloc(1, 1);
}

void itt_hook___itt_counter_create_after(struct itt___itt_counter_create_args *args) {
  args->tracer_result = itt_new_counter();
}

void itt_hook___itt_counter_create_typed_after(struct itt___itt_counter_create_typed_args *args) {
  args->tracer_result = itt_new_counter();
}

void itt_hook___itt_counter_create_v3_after(struct itt___itt_counter_create_v3_args *args) {
  args->tracer_result = itt_new_counter();
}

void itt_hook___itt_get_timestamp_after(struct itt___itt_get_timestamp_args *args) {
  args->tracer_result = tracer_now();
}
