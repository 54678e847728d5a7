/* Unit tests of the CUDA hooks (runtime/hooks/cuda_hooks.c) on recorded values:
 * - device times from CUDA events: cuEventElapsedTime's float milliseconds (values as an
 *   H100 reports them, multiples of about 0.5 us) placed after a reference event whose
 *   CLOCK_MONOTONIC_RAW time is known; expected values worked out by hand;
 * - kernel names: mangled names as cuFuncGetName returns them (a CUDA C++ kernel, a
 *   PyTorch and a CUTLASS template kernel), demangled as c++filt prints them, and names
 *   that stay as they are (Triton's specializations, C names);
 * - copy kinds from the memory kinds of both sides.
 */
#include "cuda_hooks.c"

#include <inttypes.h>

/* The interposer's nesting depth, which the hooks raise around their own calls. */
__thread unsigned cuda_depth;

static int failures;

static void expect_u64(const char *what, uint64_t got, uint64_t want) {
  if (got != want) {
    fprintf(stderr, "FAIL: %s: got %" PRIu64 ", want %" PRIu64 "\n", what, got, want);
    failures++;
  }
}

static void expect_str(const char *what, const char *got, const char *want) {
  if (strcmp(got, want) != 0) {
    fprintf(stderr, "FAIL: %s: got \"%s\", want \"%s\"\n", what, got, want);
    failures++;
  }
}

static void span_tests(void) {
  const uint64_t ref = 5000000000000u; /* the reference event, 5000 s after boot */
  /* A kernel 1.5 ms after the reference, 0.25 ms long: both exact in binary. */
  struct cuda_span s = cuda_event_span(ref, 1.5f, 0.25f);
  expect_u64("start 1.5 ms after the reference", s.start_raw_ns, ref + 1500000);
  expect_u64("end 0.25 ms later", s.end_raw_ns, ref + 1750000);
  /* 3.072 us and 2.048 us, as an H100 reports a short copy: the float's error
   * (0.0030719999...) is rounded away. */
  s = cuda_event_span(ref, 0.003072f, 0.002048f);
  expect_u64("start 3072 ns after", s.start_raw_ns, ref + 3072);
  expect_u64("end 2048 ns later", s.end_raw_ns, ref + 3072 + 2048);
  /* A command that started before the reference (recorded before it became one). */
  s = cuda_event_span(ref, -0.5f, 0.001f);
  expect_u64("start 0.5 ms before", s.start_raw_ns, ref - 500000);
  expect_u64("1 us long", s.end_raw_ns, ref - 500000 + 1000);
  /* 2.5 s after the reference: float ms keep 24 bits, 2500.0 is exact. */
  s = cuda_event_span(ref, 2500.0f, 0.0f);
  expect_u64("start 2.5 s after", s.start_raw_ns, ref + 2500000000u);
  expect_u64("zero length", s.end_raw_ns, s.start_raw_ns);
  /* A negative duration (events out of order) is clamped to zero. */
  s = cuda_event_span(ref, 1.0f, -0.001f);
  expect_u64("negative duration clamped", s.end_raw_ns, s.start_raw_ns);
  /* An offset before the raw clock's origin stops at it. */
  s = cuda_event_span(1000, -1.0f, 0.0f);
  expect_u64("clamped at the clock's origin", s.start_raw_ns, 0);
}

static void name_tests(void) {
  static const struct {
    const char *device, *shown;
  } names[] = {
      {"vadd_bs128_w4_s2", "vadd_bs128_w4_s2"}, /* Triton, @triton.jit(repr=...) */
      {"add_kernel", "add_kernel"},             /* Triton without repr, or C */
      {"_Z4vaddPfPKfS1_", "vadd(float*, float const*, float const*)"},
      {"_Z5scalePff", "scale(float*, float)"},
      {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
       "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
       "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)"},
      {"_ZN7cutlass6KernelINS_4gemm6kernel4GemmEEEvNT_6ParamsE",
       "void cutlass::Kernel<cutlass::gemm::kernel::Gemm>(cutlass::gemm::kernel::Gemm::Params)"},
      {"_Znot_a_mangled_name", "_Znot_a_mangled_name"}, /* kept when it does not demangle */
  };
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char shown[512];
    demangle(names[i].device, shown, sizeof shown);
    expect_str(names[i].device, shown, names[i].shown);
  }
  char cut[16];
  demangle("_Z4vaddPfPKfS1_", cut, sizeof cut);
  expect_str("a long name is cut to the buffer", cut, "vadd(float*, fl");
}

static void copy_kind_tests(void) {
  char kind[32];
  cuda_copy_kind(MEMORY_PAGEABLE, MEMORY_DEVICE, kind, sizeof kind);
  expect_str("pageable to device", kind, "H2D pageable");
  cuda_copy_kind(MEMORY_DEVICE, MEMORY_PINNED, kind, sizeof kind);
  expect_str("device to pinned", kind, "D2H pinned");
  cuda_copy_kind(MEMORY_DEVICE, MEMORY_DEVICE, kind, sizeof kind);
  expect_str("device to device", kind, "D2D");
  cuda_copy_kind(MEMORY_MANAGED, MEMORY_DEVICE, kind, sizeof kind);
  expect_str("managed to device", kind, "M2D");
  cuda_copy_kind(MEMORY_PINNED, MEMORY_PAGEABLE, kind, sizeof kind);
  expect_str("pinned to pageable", kind, "H2H pageable");
}

int main(void) {
  span_tests();
  name_tests();
  copy_kind_tests();
  if (failures)
    return 1;
  printf("cuda_hooks: event spans, kernel names and copy kinds as expected\n");
  return 0;
}
