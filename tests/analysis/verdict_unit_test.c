/* verdict_unit_test: the verdict's rules (cli/reports/verdict/, docs/analysis-output.md
 * #the-verdict) on the figures of runs the issue describes, each call's role taken from a
 * backend description as the generated ones give it (trace.calls: waits_for, setup):
 *  - nccl-tests on two GPUs: cuInit and module loading 40% of the run, cuCtxSynchronize
 *    waiting 45%, other CUDA calls 5%, each GPU busy with NCCL kernels 50% of the run:
 *    with every CUDA call as host work it read "host-API-bound" (90%); now start-up is set
 *    apart and the bound is the GPUs' communication;
 *  - a host-bound loop: its API calls 60% of the run, the device 10%: host-API-bound;
 *  - a run whose host waits for its device 80% of the time, no device time measured:
 *    device-bound by the waits;
 *  - MPI: MPI_Wait 30% of the run, MPI_Send 10%: communication-bound (waits for peers);
 *  - a run with nothing traced taking a quarter: none of the traced APIs.
 * And the text's "Where the time went" shares add up to the parts given; it says start-up
 * where set-up calls were made, never as "0.0%" (10 us of them in 1 s read "<0.1%"), and
 * not at all without them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer_backend_desc.h"
#include "verdict.h"

static int failures;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      failures++;                                                                                  \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                     \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
    }                                                                                              \
  } while (0)

enum { F_INIT, F_MODULE, F_SYNC, F_LAUNCH, F_COUNT };
static struct tracer_function_desc cuda_functions[] = {
    [F_INIT] = {.name = "cuInit", .role = TRACER_ROLE_SETUP},
    [F_MODULE] = {.name = "cuModuleLoadData", .role = TRACER_ROLE_SETUP},
    [F_SYNC] = {.name = "cuCtxSynchronize", .meaning = TRACER_MEANING_SYNC,
                .role = TRACER_ROLE_WAITS_DEVICE},
    [F_LAUNCH] = {.name = "cuLaunchKernel", .meaning = TRACER_MEANING_KERNEL_LAUNCH}};
static struct tracer_backend_desc cuda = {.name = "cuda", .label = "CUDA",
                                          .functions = cuda_functions,
                                          .function_count = F_COUNT};

enum { M_WAIT, M_SEND, M_COUNT };
static struct tracer_function_desc mpi_functions[] = {
    [M_WAIT] = {.name = "MPI_Wait", .role = TRACER_ROLE_WAITS_PEER,
                .message = {.kind = TRACER_MESSAGE_COMPLETE}},
    [M_SEND] = {.name = "MPI_Send", .message = {.kind = TRACER_MESSAGE_SEND}}};
static struct tracer_backend_desc mpi = {.name = "mpich", .label = "MPI",
                                         .functions = mpi_functions, .function_count = M_COUNT};

static void gpu(struct verdict_inputs *in, const char *name, uint64_t busy, uint64_t kernels,
                uint64_t communication) {
  struct verdict_device *d = &in->devices[in->device_count++];
  snprintf(d->name, sizeof d->name, "%s", name);
  d->busy = busy, d->kernels = kernels, d->communication = communication;
}

int main(void) {
  const uint64_t wall = 1000000000; /* 1 s */
  struct verdict v;

  struct verdict_inputs nccl = {.wall_ns = wall};
  verdict_add_call(&nccl, &cuda, F_INIT, wall * 25 / 100);
  verdict_add_call(&nccl, &cuda, F_MODULE, wall * 15 / 100);
  verdict_add_call(&nccl, &cuda, F_SYNC, wall * 45 / 100);
  verdict_add_call(&nccl, &cuda, F_LAUNCH, wall * 5 / 100);
  gpu(&nccl, "GPU 0", wall / 2, wall / 2, wall * 48 / 100);
  gpu(&nccl, "GPU 1", wall / 2, wall / 2, wall * 47 / 100);
  verdict_weigh(&nccl, &v);
  CHECK(v.startup_ns == wall * 40 / 100, "start-up %llu ns", (unsigned long long)v.startup_ns);
  CHECK(v.wait_device_ns == wall * 45 / 100, "waits %llu ns",
        (unsigned long long)v.wait_device_ns);
  CHECK(v.bound == VERDICT_DEVICE_COMMUNICATION, "nccl-tests: bound %d, share %.3f", v.bound,
        v.share);
  /* The GPU's busy half of the run is 5/6 of the run after start-up; the waits 3/4. */
  CHECK(v.share > 0.83 && v.share < 0.84, "nccl-tests: share %.3f", v.share);

  struct verdict_inputs host = {.wall_ns = wall};
  verdict_add_call(&host, &cuda, F_LAUNCH, wall * 60 / 100);
  gpu(&host, "GPU 0", wall / 10, wall / 10, 0);
  verdict_weigh(&host, &v);
  CHECK(v.bound == VERDICT_HOST_API && v.share > 0.59 && v.share < 0.61,
        "host-bound: bound %d, share %.3f", v.bound, v.share);

  struct verdict_inputs waits = {.wall_ns = wall};
  verdict_add_call(&waits, &cuda, F_SYNC, wall * 80 / 100);
  verdict_add_call(&waits, &cuda, F_LAUNCH, wall * 10 / 100);
  verdict_weigh(&waits, &v);
  CHECK(v.bound == VERDICT_DEVICE_WAITS, "waits: bound %d, share %.3f", v.bound, v.share);

  struct verdict_inputs comm = {.wall_ns = wall};
  verdict_add_call(&comm, &mpi, M_WAIT, wall * 30 / 100);
  verdict_add_call(&comm, &mpi, M_SEND, wall * 10 / 100);
  verdict_weigh(&comm, &v);
  CHECK(v.bound == VERDICT_COMMUNICATION && v.share > 0.39 && v.share < 0.41,
        "MPI: bound %d, share %.3f", v.bound, v.share);

  struct verdict_inputs none = {.wall_ns = wall};
  verdict_add_call(&none, &cuda, F_LAUNCH, wall * 10 / 100);
  verdict_weigh(&none, &v);
  CHECK(v.bound == VERDICT_NONE, "none: bound %d", v.bound);

  /* The text: start-up, host calls and waits, the shares given. */
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  verdict_print_inputs(&nccl, "", out);
  fclose(out);
  CHECK(strstr(text, "start-up 40.0%") && strstr(text, "CUDA host calls 5.0%") &&
            strstr(text, "waiting for devices 45.0%") &&
            strstr(text, "Verdict: communication-bound on the devices"),
        "text: %s", text);
  free(text);

  /* Set-up calls too short to show as a share: "<0.1%", the verdict over the whole run;
   * none: no start-up at all. */
  struct verdict_inputs brief = {.wall_ns = wall};
  verdict_add_call(&brief, &cuda, F_INIT, 10000);
  verdict_add_call(&brief, &cuda, F_LAUNCH, wall * 60 / 100);
  out = open_memstream(&text, &len);
  verdict_print_inputs(&brief, "", out);
  fclose(out);
  CHECK(strstr(text, "start-up <0.1% (set-up calls), CUDA host calls 60.0%") &&
            !strstr(text, "start-up 0.0%") && !strstr(text, "after start-up") &&
            strstr(text, "Verdict: host-API-bound: CUDA calls take 60.0% of the run."),
        "10 us of set-up: %s", text);
  free(text);
  struct verdict_inputs no_setup = {.wall_ns = wall};
  verdict_add_call(&no_setup, &cuda, F_LAUNCH, wall * 60 / 100);
  out = open_memstream(&text, &len);
  verdict_print_inputs(&no_setup, "", out);
  fclose(out);
  CHECK(!strstr(text, "start-up") && strstr(text, "Where the 1.00s went: CUDA host calls 60.0%") &&
            strstr(text, "Verdict: host-API-bound"),
        "no set-up call: %s", text);
  free(text);
  if (failures)
    fprintf(stderr, "verdict_unit_test: %d checks failed\n", failures);
  return failures ? 1 : 0;
}
