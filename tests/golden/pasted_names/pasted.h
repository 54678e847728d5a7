/* Declarations whose names a macro pastes together, as fftw3.h declares its whole API
 * once per precision: clang spells those names in its scratch space, not in a header,
 * and they still belong to the header that expands the macro. */
#ifndef PASTED_H
#define PASTED_H
#define PN_CONCAT(prefix, name) prefix##name
#define PN_DOUBLE(name) PN_CONCAT(pn_, name)
#define PN_FLOAT(name) PN_CONCAT(pnf_, name)
#define PN_DEFINE_API(X, R)                  \
  typedef struct X(plan_s) *X(plan);         \
  X(plan) X(plan_create)(int n, R *data);    \
  void X(execute)(const X(plan) p);          \
  void X(destroy)(X(plan) p);
PN_DEFINE_API(PN_DOUBLE, double)
PN_DEFINE_API(PN_FLOAT, float)
#endif
