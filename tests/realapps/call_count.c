/* call_count: a count of the calls an app makes to MPI (Open MPI's ABI) and FFTW that the
 * tracer does not make, for the real-application tests. Like a PMPI profiling library it
 * defines the API's functions and counts each call; unlike one, it forwards each call to
 * the next definition of the same name (RTLD_NEXT) rather than to PMPI_, so that the
 * tracer's interposer, preloaded after it, still sees the call and the run traces as
 * usual. At exit each process writes "NAME COUNT" lines to $CALL_COUNT_DIR/PID.
 *
 * The test preloads it ahead of the tracer's libraries (an app started through `sh -c`
 * under the tracer, with this library put first in LD_PRELOAD).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fftw3.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Every function this library counts, in one list: X(RESULT, NAME, (PARAMS), (ARGS)). */
#define COUNTED_FUNCTIONS                                                                          \
  X(int, MPI_Init, (int *a, char ***b), (a, b))                                                    \
  X(int, MPI_Init_thread, (int *a, char ***b, int c, int *d), (a, b, c, d))                        \
  X(int, MPI_Finalize, (void), ())                                                                 \
  X(int, MPI_Initialized, (int *a), (a))                                                           \
  X(int, MPI_Finalized, (int *a), (a))                                                             \
  X(int, MPI_Query_thread, (int *a), (a))                                                          \
  X(int, MPI_Abort, (MPI_Comm a, int b), (a, b))                                                   \
  X(int, MPI_Send, (const void *a, int b, MPI_Datatype c, int d, int e, MPI_Comm f),               \
    (a, b, c, d, e, f))                                                                            \
  X(int, MPI_Recv, (void *a, int b, MPI_Datatype c, int d, int e, MPI_Comm f, MPI_Status *g),      \
    (a, b, c, d, e, f, g))                                                                         \
  X(int, MPI_Isend,                                                                                \
    (const void *a, int b, MPI_Datatype c, int d, int e, MPI_Comm f, MPI_Request *g),              \
    (a, b, c, d, e, f, g))                                                                         \
  X(int, MPI_Irecv, (void *a, int b, MPI_Datatype c, int d, int e, MPI_Comm f, MPI_Request *g),    \
    (a, b, c, d, e, f, g))                                                                         \
  X(int, MPI_Sendrecv,                                                                             \
    (const void *a, int b, MPI_Datatype c, int d, int e, void *f, int g, MPI_Datatype h, int i,    \
     int j, MPI_Comm k, MPI_Status *l),                                                            \
    (a, b, c, d, e, f, g, h, i, j, k, l))                                                          \
  X(int, MPI_Wait, (MPI_Request * a, MPI_Status * b), (a, b))                                      \
  X(int, MPI_Waitall, (int a, MPI_Request *b, MPI_Status *c), (a, b, c))                           \
  X(int, MPI_Waitany, (int a, MPI_Request *b, int *c, MPI_Status *d), (a, b, c, d))                \
  X(int, MPI_Test, (MPI_Request * a, int *b, MPI_Status *c), (a, b, c))                            \
  X(int, MPI_Testany, (int a, MPI_Request *b, int *c, int *d, MPI_Status *e), (a, b, c, d, e))     \
  X(int, MPI_Iprobe, (int a, int b, MPI_Comm c, int *d, MPI_Status *e), (a, b, c, d, e))           \
  X(int, MPI_Cancel, (MPI_Request * a), (a))                                                       \
  X(int, MPI_Get_count, (const MPI_Status *a, MPI_Datatype b, int *c), (a, b, c))                  \
  X(int, MPI_Barrier, (MPI_Comm a), (a))                                                           \
  X(int, MPI_Bcast, (void *a, int b, MPI_Datatype c, int d, MPI_Comm e), (a, b, c, d, e))          \
  X(int, MPI_Reduce, (const void *a, void *b, int c, MPI_Datatype d, MPI_Op e, int f, MPI_Comm g), \
    (a, b, c, d, e, f, g))                                                                         \
  X(int, MPI_Allreduce, (const void *a, void *b, int c, MPI_Datatype d, MPI_Op e, MPI_Comm f),     \
    (a, b, c, d, e, f))                                                                            \
  X(int, MPI_Gather,                                                                               \
    (const void *a, int b, MPI_Datatype c, void *d, int e, MPI_Datatype f, int g, MPI_Comm h),     \
    (a, b, c, d, e, f, g, h))                                                                      \
  X(int, MPI_Allgather,                                                                            \
    (const void *a, int b, MPI_Datatype c, void *d, int e, MPI_Datatype f, MPI_Comm g),            \
    (a, b, c, d, e, f, g))                                                                         \
  X(int, MPI_Alltoall,                                                                             \
    (const void *a, int b, MPI_Datatype c, void *d, int e, MPI_Datatype f, MPI_Comm g),            \
    (a, b, c, d, e, f, g))                                                                         \
  X(int, MPI_Alltoallv,                                                                            \
    (const void *a, const int *b, const int *c, MPI_Datatype d, void *e, const int *f,             \
     const int *g, MPI_Datatype h, MPI_Comm i),                                                    \
    (a, b, c, d, e, f, g, h, i))                                                                   \
  X(int, MPI_Comm_rank, (MPI_Comm a, int *b), (a, b))                                              \
  X(int, MPI_Comm_size, (MPI_Comm a, int *b), (a, b))                                              \
  X(int, MPI_Comm_dup, (MPI_Comm a, MPI_Comm * b), (a, b))                                         \
  X(int, MPI_Comm_free, (MPI_Comm * a), (a))                                                       \
  X(int, MPI_Comm_split, (MPI_Comm a, int b, int c, MPI_Comm *d), (a, b, c, d))                    \
  X(int, MPI_Comm_test_inter, (MPI_Comm a, int *b), (a, b))                                        \
  X(int, MPI_Comm_set_errhandler, (MPI_Comm a, MPI_Errhandler b), (a, b))                          \
  X(int, MPI_Cart_create, (MPI_Comm a, int b, const int *c, const int *d, int e, MPI_Comm *f),     \
    (a, b, c, d, e, f))                                                                            \
  X(int, MPI_Cart_shift, (MPI_Comm a, int b, int c, int *d, int *e), (a, b, c, d, e))              \
  X(int, MPI_Cart_rank, (MPI_Comm a, const int *b, int *c), (a, b, c))                             \
  X(int, MPI_Cart_get, (MPI_Comm a, int b, int *c, int *d, int *e), (a, b, c, d, e))               \
  X(int, MPI_Type_size, (MPI_Datatype a, int *b), (a, b))                                          \
  X(int, MPI_Type_get_extent, (MPI_Datatype a, MPI_Aint * b, MPI_Aint * c), (a, b, c))             \
  X(int, MPI_Type_create_struct,                                                                   \
    (int a, const int *b, const MPI_Aint *c, const MPI_Datatype *d, MPI_Datatype *e),              \
    (a, b, c, d, e))                                                                               \
  X(int, MPI_Type_contiguous, (int a, MPI_Datatype b, MPI_Datatype *c), (a, b, c))                 \
  X(int, MPI_Type_commit, (MPI_Datatype * a), (a))                                                 \
  X(int, MPI_Type_free, (MPI_Datatype * a), (a))                                                   \
  X(int, MPI_Op_create, (MPI_User_function * a, int b, MPI_Op *c), (a, b, c))                      \
  X(int, MPI_Op_free, (MPI_Op * a), (a))                                                           \
  X(int, MPI_Get_address, (const void *a, MPI_Aint *b), (a, b))                                    \
  X(int, MPI_Get_processor_name, (char *a, int *b), (a, b))                                        \
  X(double, MPI_Wtime, (void), ())                                                                 \
  X(double, MPI_Wtick, (void), ())                                                                 \
  X(int, fftw_init_threads, (void), ())                                                            \
  X(void, fftw_plan_with_nthreads, (int a), (a))                                                   \
  X(void, fftw_cleanup_threads, (void), ())                                                        \
  X(void, fftw_cleanup, (void), ())                                                                \
  X(fftw_plan, fftw_plan_many_dft,                                                                 \
    (int a, const int *b, int c, fftw_complex *d, const int *e, int f, int g, fftw_complex *h,     \
     const int *i, int j, int k, int l, unsigned m),                                               \
    (a, b, c, d, e, f, g, h, i, j, k, l, m))                                                       \
  X(void, fftw_execute_dft, (const fftw_plan a, fftw_complex *b, fftw_complex *c), (a, b, c))      \
  X(void, fftw_destroy_plan, (fftw_plan a), (a))

enum {
#define X(result, name, params, args) COUNT_##name,
  COUNTED_FUNCTIONS
#undef X
      COUNTED
};
static const char *const names[] = {
#define X(result, name, params, args) #name,
    COUNTED_FUNCTIONS
#undef X
};
static unsigned long counts[COUNTED];

/* The next definition after this library: the tracer's wrapper, else the library's. */
static void *next_of(const char *name) {
  void *next = dlsym(RTLD_NEXT, name);
  if (!next) {
    fprintf(stderr, "call_count: no next definition of %s\n", name);
    abort();
  }
  return next;
}

#define X(result, name, params, args)                                                              \
  result name params {                                                                             \
    static __typeof__(name) *next;                                                                 \
    if (!next)                                                                                     \
      next = (__typeof__(name) *)next_of(#name);                                                   \
    __atomic_add_fetch(&counts[COUNT_##name], 1, __ATOMIC_RELAXED);                                \
    return next args;                                                                              \
  }
COUNTED_FUNCTIONS
#undef X

__attribute__((destructor)) static void write_counts(void) {
  const char *dir = getenv("CALL_COUNT_DIR");
  char path[4096];
  if (!dir)
    return;
  snprintf(path, sizeof path, "%s/%ld", dir, (long)getpid());
  FILE *f = fopen(path, "w");
  for (int i = 0; f && i < COUNTED; i++)
    if (counts[i])
      fprintf(f, "%s %lu\n", names[i], counts[i]);
  if (f)
    fclose(f);
}
