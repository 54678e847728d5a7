/* check_backend_libraries: the real library each built backend traces, from the `library`
 * of its spec (api-specs/<b>.yaml), in a table cli/check/CMakeLists.txt makes at
 * configure time. */
#ifndef TRACER_CHECK_BACKEND_LIBRARIES_H
#define TRACER_CHECK_BACKEND_LIBRARIES_H

struct check_backend_library {
  const char *backend; /* "opencl" */
  const char *library; /* "libOpenCL.so.1"; NULL when the spec names none */
};

/* Ends with an entry whose backend is NULL. */
extern const struct check_backend_library check_backend_libraries[];
/* The library of each backend tracer-sampler reads (--sample), in the same form. */
extern const struct check_backend_library check_sampled_libraries[];

#endif
