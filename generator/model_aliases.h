/* model_aliases: the names callers write for functions a macro renames.
 *
 * A header may declare a function under a name that a macro makes: pcre2.h writes
 * `pcre2_match` and `#define pcre2_match PCRE2_SUFFIX(pcre2_match_)`, so the library
 * exports pcre2_match_8; cuda.h's `#define cuMemAlloc cuMemAlloc_v2`. Such a function
 * keeps the name it is declared as (the symbol) and gets `written`, the macro's name,
 * which the spec's function patterns also match and which the tracer shows beside it.
 *
 * Candidates are object-like macros of the API folders whose name matches
 * select.functions. A replacement that is one identifier names its function directly;
 * any other is expanded by the compiler: a second parse takes the address of each
 * (`&(NAME)`) and reads which function it refers to.
 */
#ifndef APIGEN_MODEL_ALIASES_H
#define APIGEN_MODEL_ALIASES_H

#include <clang-c/Index.h>

#include "diag.h"
#include "model.h"
#include "translation_unit.h"

/* Sets model_function.written for each candidate macro (CXCursor*, in header order) that
 * expands to a function of the model; the first macro of a function wins. Never fails:
 * a candidate that is no function's name is left out. */
void model_aliases_find(struct model *m, CXIndex index, const struct tu_config *cfg,
                        CXTranslationUnit tu, const struct ptrvec *candidates);

#endif
