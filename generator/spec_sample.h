/* spec_sample: a spec's `sample` section (docs/spec-format.md#sample): the queries of a
 * management library (NVML, Level Zero Sysman) that `tracer --sample` polls per device,
 * rendered by templates/sampler.c.tmpl into <backend>_sampler.c.
 *
 * Every string is owned by its struct; spec_sample_free() releases them all. Values name
 * functions of the model and, for `args`, params of the query.
 */
#ifndef APIGEN_SPEC_SAMPLE_H
#define APIGEN_SPEC_SAMPLE_H

#include "spec.h"
#include "yamldoc.h"

/* PARAM: VALUE, a C expression passed for that param of a call. */
struct spec_sample_arg {
  char *param, *value;
};

/* One counter: `query` called per device (or per domain of the device that `domains`
 * enumerates), its out value zeroed and the members `set` names given first; its value
 * read from the query's out param (the member `value` of it when given), times `scale`; with `rate`, the value is cumulative and what is recorded is its
 * change over the change of the member `rate` (a timestamp of the same out struct). */
struct spec_sample_counter {
  char *name, *query, *value, *unit, *scale, *domains, *rate;
  struct ptrvec args; /* struct spec_sample_arg* */
  /* MEMBER: VALUE (struct spec_sample_arg*, param the member): members of the out value
   * set before the query, after it is zeroed (a versioned struct's `version`). */
  struct ptrvec set;
  struct spec_loc loc;
};

struct spec_sample {
  char *init;                /* called once before anything; may be NULL */
  struct ptrvec init_args;   /* struct spec_sample_arg* */
  char *shutdown;            /* called once at the end; may be NULL */
  struct ptrvec environment; /* struct spec_string*: NAME=VALUE set before the library
                                is loaded (ZES_ENABLE_SYSMAN=1) */
  /* Devices, one of two ways: `count` (its out param is the count) and `get` (index in,
   * handle out), as NVML; or `drivers` and `list`, Level Zero's two-call lists (drivers,
   * then each driver's devices). */
  char *count, *get, *drivers, *list;
  char *name;             /* the device's name: a query filling a string, or a struct whose
                             member `name_member` holds it; may be NULL */
  char *name_member;      /* may be NULL */
  struct ptrvec counters; /* struct spec_sample_counter* */
  struct spec_loc loc;
};

/* Reads the `sample` mapping n (NULL: none) into *out (NULL when absent). */
int spec_sample_read(struct yamldoc *y, yaml_node_t *n, struct spec_sample **out, struct diag *d);
void spec_sample_free(struct spec_sample *s);

#endif
