/* spec_init_comment: what a header's comments say of a function's result (for
 * `apigen --init`, spec_init_status.c).
 *
 * A function's doc comment (or, with none that says, that of the inline function the
 * header defines to return a call of it) gives its rule, read in this order:
 * - a phrase saying what an error returns: "negative values on failure" (negative),
 *   "0 on error" (zero), "non-zero on error" (nonzero), "returns NAME on failure" with
 *   NAME an error constant of the header (that value);
 * - else its sentences that say what is returned: under a failure ("If the preset is not
 *   supported, true is returned": nonzero; "without support ... will return 0": zero), or
 *   on success, the other values failing ("On success, false is returned": nonzero). All
 *   such sentences must agree; a function whose name asks a question (`*_is_supported`,
 *   `*_exist`) answers rather than fails, and gets none of these.
 * A negative rule whose comment names no success keeps as answers the negative values it
 * lists under a condition that is no failure ("Returns zero if the architecture exists,
 * -EEXIST if it is not present, and other negative values on failure": success [-17]);
 * `-ENAME` is the header's constant or, else, the C library's errno of that name.
 *
 * An enum constant that names an error is none for a function when the paragraph of its
 * doc comment that names that function says the work goes on normally after it (lzma's
 * LZMA_UNSUPPORTED_CHECK: "Decoders can return this value only from lzma_code() ... The
 * decoding can still be continued normally").
 */
#ifndef APIGEN_SPEC_INIT_COMMENT_H
#define APIGEN_SPEC_INIT_COMMENT_H

#include <clang-c/Index.h>
#include <stdbool.h>

#include "spec_init_status.h"
#include "util.h"

/* A macro or enum constant of the header whose name says it is an error. */
struct init_error_constant {
  char *name;   /* owned */
  char *prefix; /* owned: its lower-case prefix, up to the first `_` */
  long long value;
};

/* Sets f's rule from the comments (see above) and returns true, or returns false and
 * leaves it. constants: struct init_error_constant*; functions: struct init_function*,
 * where the inline wrappers are looked for. */
bool init_comment_rule(const struct ptrvec *constants, const struct ptrvec *functions,
                       struct init_function *f);

/* Whether f's doc comment describes a size (LZ4F_compressBound: "Provides minimum
 * dstCapacity required ...") and says nothing of errors or failures. */
bool init_comment_describes_size(const struct init_function *f);

/* The doc comment of an enum constant (owned, "" for none): libclang's, else the doxygen
 * comment that trails it (of doxygen's `**<` kind, on the lines before `until`, where the
 * next constant or the enum starts: libclang takes one only on the constant's own line). */
char *init_comment_of_constant(CXCursor constant, CXSourceLocation until);

/* The clause of an enum constant's doc comment (raw) that says `function`'s work goes on
 * normally after it (owned, for the rule's comment), NULL when it says no such thing. */
char *init_comment_no_error_for(const char *raw, const char *function);

#endif
