/* spec_messages: the keys of a spec's trace section that say what calls mean as
 * communication (docs/spec-format.md): messages, element_size, world_rank, communicators,
 * groups, group_made and rma_sync. */
#ifndef APIGEN_SPEC_MESSAGES_H
#define APIGEN_SPEC_MESSAGES_H

#include "spec.h"
#include "yamldoc.h"

/* Reads those keys of the trace mapping n into t. */
int spec_read_messages(struct yamldoc *y, yaml_node_t *n, struct spec_trace *t, struct diag *d);
void spec_free_messages(struct spec_trace *t);

/* Reads a factor of a communicator's size n from text: integers, n, + - * and
 * parentheses make a numerator and, after one `/`, a denominator, each linear in n
 * ("2*(n-1)/n", "2(n-1)/n", "(n-1)/n", "n", "1"). A number right before `(` or `n`
 * multiplies it. Returns 0, or -1 when text is not of that form or a coefficient does
 * not fit 16 bits. */
int spec_rank_factor_parse(const char *text, struct spec_rank_factor *out);

#endif
