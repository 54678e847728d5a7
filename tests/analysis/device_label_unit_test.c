/* device_label: how devices, queues and commands are named (cli/model/device_label.h),
 * and kernels' short names against names demangled as c++filt gives them: return type,
 * template arguments, parameters and anonymous namespaces left out, named namespaces,
 * classes and the function kept; names that are not C++ left as they are. */
#include <stdio.h>
#include <string.h>

#include "backends.h"
#include "device_label.h"
#include "tracer_device.h"

static int failures;

static void expect(const char *what, const char *got, const char *want) {
  if (strcmp(got, want) != 0) {
    fprintf(stderr, "FAIL: %s: got \"%s\", want \"%s\"\n", what, got, want);
    failures++;
  } else {
    printf("ok: %s: %s\n", what, got);
  }
}

static void short_name(const char *name, const char *want) {
  char out[256];
  device_kernel_short_name(name, out, sizeof out);
  expect(name, out, want);
}

int main(void) {
  char out[256];
  device_label("cuda", 0, "NVIDIA H200", out, sizeof out);
  expect("a CUDA device", out, "GPU 0: NVIDIA H200");
  device_label("opencl", 1, "pthread-cpu", out, sizeof out);
  expect("an OpenCL device", out, "device 1: pthread-cpu");
  device_label("cuda", -1, "", out, sizeof out);
  expect("a device a trace does not name", out, "cuda device");
  device_queue_label(0x7, 958, out, sizeof out);
  expect("a queue", out, "queue 0x7 (pid 958)");
  device_command_label(NULL, TRACER_COMMAND_KERNEL, "vadd", out, sizeof out);
  expect("a kernel's region", out, "vadd");
  device_command_label(NULL, TRACER_COMMAND_TRANSFER, "clEnqueueWriteBuffer", out, sizeof out);
  expect("a copy's region", out, "copy: clEnqueueWriteBuffer");
  device_command_label(NULL, TRACER_COMMAND_OTHER, "zeCommandListAppendBarrier", out, sizeof out);
  expect("another command's region", out, "command: zeCommandListAppendBarrier");
  /* A kernel named after a function of its backend (an OpenMP target region's). */
  for (size_t i = 0; tracer_backends[i]; i++)
    if (tracer_backends[i]->function_count) {
      const char *f = tracer_backends[i]->functions[0].name;
      char want[256];
      snprintf(want, sizeof want, "kernel: %s", f);
      device_command_label(tracer_backends[i], TRACER_COMMAND_KERNEL, f, out, sizeof out);
      expect("a kernel named after its backend's function", out, want);
      device_command_label(tracer_backends[i], TRACER_COMMAND_KERNEL, "vadd", out, sizeof out);
      expect("a kernel of that backend named otherwise", out, "vadd");
      break;
    }

  /* Demangled as c++filt prints them. */
  short_name("void (anonymous namespace)::verifyPrepared<unsigned int, float>(unsigned int*, "
             "float const*, int)",
             "verifyPrepared<...>");
  short_name("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<"
             "float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
             "at::detail::Array<char*, 3>)",
             "at::native::vectorized_elementwise_kernel<...>");
  short_name("void at::native::(anonymous namespace)::indexSelectLargeIndex<float, long, "
             "unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<float, unsigned int>, "
             "long)",
             "at::native::indexSelectLargeIndex<...>");
  short_name("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x3_nn_align4>("
             "cutlass_80_tensorop_s1688gemm_128x128_16x3_nn_align4::Params)",
             "cutlass::Kernel<...>");
  short_name("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
             "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  short_name("void foo<(char)3, (anonymous namespace)::Tag>(int)", "foo<...>");
  short_name("std::pair<int, int> ns::Widget<int>::pack(float) const", "ns::Widget<...>::pack");
  short_name("kernel_a(float*)", "kernel_a");
  /* Not C++: as they are. */
  short_name("vadd_bs128_w4_s2", "vadd_bs128_w4_s2");
  short_name("kernel_on_first", "kernel_on_first");
  short_name("_Z3fooi", "_Z3fooi"); /* mangled (no demangler in the app): left alone */
  /* Cut to the room given, never past it. */
  device_kernel_short_name("void ns::f<int>(int)", out, 8);
  expect("a short buffer", out, "ns::f<.");
  return failures ? 1 : 0;
}
