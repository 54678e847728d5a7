/* view_sample: the part of the view that templates/sampler.c.tmpl renders for a spec with
 * a `sample` section (spec_sample.h): each call the sampler makes, written out as C over
 * the model's prototypes, so that the template only lays them out.
 *
 * Calls are built param by param: a param named in the spec's `args` gets that value;
 * the handle the call is about (the device, or one of its domains) goes to the first
 * handle param; the out value to the first non-const pointer; a two-call list's count
 * and array to the param its array's `length` names and to the array. A param left
 * without a value is an error that names the function and the param.
 */
#ifndef APIGEN_VIEW_SAMPLE_H
#define APIGEN_VIEW_SAMPLE_H

#include "diag.h"
#include "model.h"
#include "spec.h"
#include "tree.h"

/* Adds `sample` (a list of one map, empty without a sample section) to root. Returns -1
 * with causes in d when the section does not fit the model. */
int view_sample(const struct model *m, const struct spec *s, struct tree *root, struct diag *d);

#endif
