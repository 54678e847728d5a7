/* A deep native stack for bench/stacks.sh, shaped like PyTorch's from its Python binding
 * down to cudaLaunchKernel: DEEP_LEVELS distinct functions in each of four shared objects
 * (libstacks_deep0.so calls into 1, 1 into 2, 2 into 3: calls through the PLT between
 * objects), built -O2 without frame pointers (unwind tables only, as Debian's and
 * PyTorch's libraries are), the innermost calling the launch function it was given (HIP's
 * hipLaunchKernel, the tracer's wrapper under the tracer). One source, built once per
 * part with DEEP_PART set to 0, 1, 2 or 3.
 *
 * Part 0 exports what the bench calls: deep_launch() (one launch at the bottom of the
 * chain, called from Python through ctypes) and deep_thread_loop() (launches from a
 * thread of its own that never ran Python, timed in that thread's CPU time).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#ifndef DEEP_PART
#error "DEEP_PART (0 to 3) must be defined"
#endif

struct deep_dim3 {
  uint32_t x, y, z;
};

typedef int launch_fn(const void *kernel, struct deep_dim3 grid, struct deep_dim3 block,
                      void **args, size_t shared, void *stream);

/* What the chain carries down to its launch (the bench's ctypes Structure). */
struct deep_call {
  launch_fn *launch;
  const void *kernel;
  int seed[4];
};

int deep_part_0(const struct deep_call *c, int depth);
int deep_part_1(const struct deep_call *c, int depth);
int deep_part_2(const struct deep_call *c, int depth);
int deep_part_3(const struct deep_call *c, int depth);

/* The bottom of this part: the next part's top, or the launch in the last part. */
static int __attribute__((noinline, noipa)) bottom(const struct deep_call *c, int depth) {
#if DEEP_PART == 0
  return deep_part_1(c, depth + 1) + depth;
#elif DEEP_PART == 1
  return deep_part_2(c, depth + 1) + depth;
#elif DEEP_PART == 2
  return deep_part_3(c, depth + 1) + depth;
#else
  struct deep_dim3 one = {1, 1, 1};
  return c->launch(c->kernel, one, one, NULL, 0, NULL) + depth;
#endif
}

/* One level: values live across the call (callee-saved registers pushed, as real code
 * does) and, every other level, a local array (a frame of its own size), so the frames'
 * unwind rules differ from level to level. Each a function of its own: the return
 * addresses differ, as PyTorch's do. */
#define DEEP_LEVEL(name, next, pad)                                                          \
  static int __attribute__((noinline, noipa)) name(const struct deep_call *c, int depth) {   \
    volatile int local[pad];                                                                 \
    int a = c->seed[0] * depth, b = c->seed[1] + depth, d = c->seed[2] ^ depth;              \
    local[0] = a;                                                                            \
    int r = next(c, depth + 1);                                                              \
    return r + a * b - d + local[0];                                                         \
  }

DEEP_LEVEL(level8, bottom, 1)
DEEP_LEVEL(level7, level8, 24)
DEEP_LEVEL(level6, level7, 1)
DEEP_LEVEL(level5, level6, 40)
DEEP_LEVEL(level4, level5, 1)
DEEP_LEVEL(level3, level4, 8)
DEEP_LEVEL(level2, level3, 1)
DEEP_LEVEL(level1, level2, 64)

#if DEEP_PART == 0
int deep_part_0(const struct deep_call *c, int depth) { return level1(c, depth + 1) + 1; }
#elif DEEP_PART == 1
int deep_part_1(const struct deep_call *c, int depth) { return level1(c, depth + 1) + 1; }
#elif DEEP_PART == 2
int deep_part_2(const struct deep_call *c, int depth) { return level1(c, depth + 1) + 1; }
#else
int deep_part_3(const struct deep_call *c, int depth) { return level1(c, depth + 1) + 1; }
#endif

#if DEEP_PART == 0
/* One launch at the bottom of the four parts: 4 x 10 native frames. */
int deep_launch(const struct deep_call *c) { return deep_part_0(c, 0); }

struct deep_loop {
  const struct deep_call *call;
  long calls;
  int rounds;
  double *per_call_ns; /* rounds of them */
};

static double thread_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void *loop_main(void *arg) {
  struct deep_loop *loop = arg;
  for (int r = 0; r < loop->rounds; r++) {
    double t0 = thread_ns();
    for (long i = 0; i < loop->calls; i++)
      deep_launch(loop->call);
    loop->per_call_ns[r] = (thread_ns() - t0) / (double)loop->calls;
  }
  return NULL;
}

/* `rounds` loops of `calls` launches from a thread of its own (no Python on it): each
 * loop's ns per launch into per_call_ns. 0 when done, else pthread_create's error. */
int deep_thread_loop(const struct deep_call *c, long calls, int rounds, double *per_call_ns) {
  struct deep_loop loop = {c, calls, rounds, per_call_ns};
  pthread_t thread;
  int error = pthread_create(&thread, NULL, loop_main, &loop);
  if (error)
    return error;
  return pthread_join(thread, NULL);
}
#endif
