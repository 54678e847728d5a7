/* template: a logic-less template language (a subset of Mustache) rendered over a tree.
 *
 *   {{name}}           the string at name (dotted names descend: {{fn.name}}); an unknown
 *                      name is an error
 *   {{#name}}..{{/name}}  a list renders its body once per item, with the item on top of
 *                      the lookup stack; a map renders once with the map on top; true or a
 *                      non-empty string renders once; false, "", an empty list or an
 *                      absent name render nothing
 *   {{^name}}..{{/name}}  the opposite: renders once when the section would not
 *   {{! comment }}     nothing
 *   {{.}}              the current item
 * Inside a list, {{#_first}}, {{#_last}} and {{_index}} describe the item's position.
 * A line holding only a section, close or comment tag (and spaces) leaves no blank line.
 */
#ifndef APIGEN_TEMPLATE_H
#define APIGEN_TEMPLATE_H

#include "diag.h"
#include "tree.h"
#include "util.h"

struct template;

/* Parses text; path is used in messages. Returns -1 with a located cause in d. */
int template_parse(const char *path, const char *text, struct template **out, struct diag *d);
/* Appends the rendering to out. Returns -1 with a located cause in d. */
int template_render(const struct template *t, const struct tree *root, struct strbuf *out,
                    struct diag *d);
void template_free(struct template *t);

#endif
