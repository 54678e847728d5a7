/* model_constants: the integer and string values of the API's object-like macros.
 *
 * The compiler, not apigen, evaluates each macro: a second parse of the headers declares
 * one variable per candidate (`static const __auto_type c = (NAME);`), and libclang
 * evaluates the initialisers. Macros that are not constant integer or string
 * expressions (types, attributes, empty guards, addresses) drop out by themselves.
 */
#ifndef APIGEN_MODEL_CONSTANTS_H
#define APIGEN_MODEL_CONSTANTS_H

#include <clang-c/Index.h>

#include "diag.h"
#include "model.h"
#include "translation_unit.h"

/* macros: CXCursor* of candidate macro definitions from `tu`, in header order. */
int model_constants_build(struct model *m, CXIndex index, const struct tu_config *cfg,
                          CXTranslationUnit tu, const struct ptrvec *macros, struct diag *d);

#endif
