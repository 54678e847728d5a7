/* The runtime's device machinery (runtime/tracer_device*.c, tracer_pending.c) on known
 * values, as the backends' hooks and generated code use it:
 * - device times: Level Zero kernel timestamps (a 19.2 MHz timer, 32 valid bits, a 64-bit
 *   global timestamp), CUDA event times in float milliseconds (values as an H100 reports
 *   them, multiples of about 0.5 us) after a reference event; expected values worked out
 *   by hand in the comments;
 * - kernel names: mangled names demangled as c++filt prints them, names that stay as they
 *   are (Triton's specializations, C names), names by handle per backend;
 * - copy kinds from where the ends live, in CUDA's letters and Level Zero's, and the names
 *   of commands from the spec's direction, a direction param or the ends;
 * - allocations: the memory a pointer inside one lives in;
 * - pending commands: read in order, kept while running, released once read, lost or
 *   forgotten, drained when many are pending; command lists that record commands and run
 *   them at each execution;
 * - devices: a command's device through the backend's registered finder (unknown without
 *   one), names kept per backend and ordinal, handles found and named once, and a pending
 *   command's device.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tracer_device_clock.h"
#include "tracer_pending.h"
#include "tracer_runtime.h"
#include "expect.h"

static void expect_str(const char *what, const char *got, const char *want) {
  checks++;
  if (strcmp(got, want) != 0) {
    fprintf(stderr, "FAIL: %s: got \"%s\", want \"%s\"\n", what, got, want);
    failures++;
  }
}

static void timestamp_tests(void) {
  const struct tracer_device_clock clock = {
      .host_ns = 5000000000000u,     /* host CLOCK_MONOTONIC_RAW at the sync */
      .device_ticks = 0x12FFFFF000u, /* global timestamp: low 32 bits 0xFFFFF000 */
      .ticks_per_second = 19200000u, /* 19.2 MHz: 52.083 ns a tick */
      .valid_bits = 32,
  };
  /* 19200 ticks after the sync, past the 32-bit wrap (0xFFFFF000 + 0x4B00 = 0x1_00003B00):
   * 1 ms later. */
  expect_u64("start after the wrap", tracer_device_ticks_to_host(&clock, 0x3B00u), 5000001000000u);
  /* 192 ticks before the sync: 10 us earlier. */
  expect_u64("time before the sync", tracer_device_ticks_to_host(&clock, 0xFFFFEF40u),
             4999999990000u);
  /* The sync's own tick, given with its high bits: the same time. */
  expect_u64("sync point", tracer_device_ticks_to_host(&clock, 0x12FFFFF000u), 5000000000000u);
  uint64_t start, end;
  tracer_device_span(&clock, 0x3B00u, 0xD100u, &start, &end);
  expect_u64("kernel start", start, 5000001000000u);
  expect_u64("kernel end (38400 ticks = 2 ms)", end, 5000003000000u);
  /* A kernel whose end wrapped: 0xFFFFFF00 to 0x100 is 512 ticks = 26666.67 ns; its start
   * is 3840 ticks = 200 us after the sync. */
  tracer_device_span(&clock, 0xFFFFFF00u, 0x100u, &start, &end);
  expect_u64("wrapped kernel start", start, 5000000200000u);
  expect_u64("wrapped kernel end", end, 5000000200000u + 26666u);
  /* A driver that reports no timer resolution (the null driver): ticks are nanoseconds. */
  const struct tracer_device_clock unknown = {.host_ns = 1000, .device_ticks = 0};
  expect_u64("no resolution", tracer_device_ticks_to_host(&unknown, 250), 1250);
}

static void span_ms_tests(void) {
  const uint64_t ref = 5000000000000u; /* the reference event, 5000 s after boot */
  uint64_t start, end;
  /* A kernel 1.5 ms after the reference, 0.25 ms long: both exact in binary. */
  tracer_device_span_ms(ref, 1.5f, 0.25f, &start, &end);
  expect_u64("start 1.5 ms after the reference", start, ref + 1500000);
  expect_u64("end 0.25 ms later", end, ref + 1750000);
  /* 3.072 us and 2.048 us, as an H100 reports a short copy: the float's error
   * (0.0030719999...) is rounded away. */
  tracer_device_span_ms(ref, 0.003072f, 0.002048f, &start, &end);
  expect_u64("start 3072 ns after", start, ref + 3072);
  expect_u64("end 2048 ns later", end, ref + 3072 + 2048);
  /* A command that started before the reference (recorded before it became one). */
  tracer_device_span_ms(ref, -0.5f, 0.001f, &start, &end);
  expect_u64("start 0.5 ms before", start, ref - 500000);
  expect_u64("1 us long", end, ref - 500000 + 1000);
  /* 2.5 s after the reference: float ms keep 24 bits, 2500.0 is exact. */
  tracer_device_span_ms(ref, 2500.0f, 0.0f, &start, &end);
  expect_u64("start 2.5 s after", start, ref + 2500000000u);
  expect_u64("zero length", end, start);
  /* A negative duration (events out of order) is clamped to zero. */
  tracer_device_span_ms(ref, 1.0f, -0.001f, &start, &end);
  expect_u64("negative duration clamped", end, start);
  /* An offset before the raw clock's origin stops at it. */
  tracer_device_span_ms(1000, -1.0f, 0.0f, &start, &end);
  expect_u64("clamped at the clock's origin", start, 0);
}

static void demangle_tests(void) {
  static const struct {
    const char *device, *shown;
  } names[] = {
      {"vadd_bs128_w4_s2", "vadd_bs128_w4_s2"}, /* Triton, @triton.jit(repr=...) */
      {"add_kernel", "add_kernel"},             /* Triton without repr, or C */
      {"_Z4vaddPfPKfS1_", "vadd(float*, float const*, float const*)"},
      {"_Z5scalePff", "scale(float*, float)"},
      {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_"
       "11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
       "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
       "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)"},
      {"_ZN7cutlass6KernelINS_4gemm6kernel4GemmEEEvNT_6ParamsE",
       "void cutlass::Kernel<cutlass::gemm::kernel::Gemm>(cutlass::gemm::kernel::Gemm::Params)"},
      {"_Znot_a_mangled_name", "_Znot_a_mangled_name"}, /* kept when it does not demangle */
  };
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char shown[512];
    tracer_demangle(names[i].device, shown, sizeof shown);
    expect_str(names[i].device, shown, names[i].shown);
  }
  char cut[16];
  tracer_demangle("_Z4vaddPfPKfS1_", cut, sizeof cut);
  expect_str("a long name is cut to the buffer", cut, "vadd(float*, fl");
}

/* CUDA's letters (api-specs/cuda.yaml) and Level Zero's (api-specs/ze.yaml). */
static const struct tracer_copy_names cuda_names = {'H', 'H', 'D', 'M', true};
static const struct tracer_copy_names ze_names = {'H', 'M', 'D', 'S', false};

static void copy_kind_tests(void) {
  static const struct {
    const struct tracer_copy_names *names;
    enum tracer_memory src, dst;
    const char *kind;
  } cases[] = {
      {&cuda_names, TRACER_MEMORY_PAGEABLE, TRACER_MEMORY_DEVICE, "H2D pageable"},
      {&cuda_names, TRACER_MEMORY_DEVICE, TRACER_MEMORY_HOST, "D2H pinned"},
      {&cuda_names, TRACER_MEMORY_DEVICE, TRACER_MEMORY_DEVICE, "D2D"},
      {&cuda_names, TRACER_MEMORY_SHARED, TRACER_MEMORY_DEVICE, "M2D"},
      {&cuda_names, TRACER_MEMORY_HOST, TRACER_MEMORY_PAGEABLE, "H2H pageable"},
      {&cuda_names, TRACER_MEMORY_UNKNOWN, TRACER_MEMORY_DEVICE, "H2D pageable"},
      {&ze_names, TRACER_MEMORY_HOST, TRACER_MEMORY_DEVICE, "H2D"},
      {&ze_names, TRACER_MEMORY_DEVICE, TRACER_MEMORY_UNKNOWN, "D2M"},
      {&ze_names, TRACER_MEMORY_SHARED, TRACER_MEMORY_PAGEABLE, "S2M"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char kind[32];
    tracer_copy_kind(cases[i].names, cases[i].src, cases[i].dst, kind, sizeof kind);
    expect_str(cases[i].kind, kind, cases[i].kind);
  }
}

/* A backend whose driver knows two buffers, and names kernels whose handle is odd. */
static char device_buffer[64], host_buffer[64];

static enum tracer_memory test_memory_of(const struct tracer_command *c, const void *pointer) {
  (void)c;
  return pointer == device_buffer ? TRACER_MEMORY_DEVICE
         : pointer == host_buffer ? TRACER_MEMORY_HOST
                                  : tracer_allocation_memory("test", pointer);
}

static bool test_kernel_name(const struct tracer_command *c, char *name, size_t size) {
  if (!(c->kernel & 1))
    return false;
  snprintf(name, size, "odd_%u", (unsigned)c->kernel);
  return true;
}

static void command_name_tests(void) {
  const struct tracer_device dev = {"test", test_kernel_name, test_memory_of, ze_names};
  const struct tracer_device by_direction = {"test2", NULL, NULL, {'H', 'H', 'D', 'S', false}};
  char name[160], shared[256];
  struct tracer_command c = {.device = &dev, .kind = TRACER_COMMAND_KERNEL, .name = "launch"};
  c.kernel = 7;
  tracer_command_name(&c, name, sizeof name);
  expect_str("a kernel the hooks name", name, "odd_7");
  c.kernel = 8;
  tracer_command_name(&c, name, sizeof name);
  expect_str("a kernel nobody names", name, "launch");
  tracer_kernel_named("test", 8, "created_as");
  tracer_kernel_named("test2", 8, "other backend");
  tracer_command_name(&c, name, sizeof name);
  expect_str("a kernel named when created", name, "created_as");
  tracer_kernel_names_forget("test");
  tracer_command_name(&c, name, sizeof name);
  expect_str("names forgotten", name, "launch");
  expect_u64("another backend's name kept", tracer_kernel_name_of("test2", 8, name, sizeof name),
             1);

  c = (struct tracer_command){.device = &dev, .kind = TRACER_COMMAND_TRANSFER, .name = "copy"};
  c.src = host_buffer, c.dst = device_buffer, c.named_copy = true;
  tracer_command_name(&c, name, sizeof name);
  expect_str("a copy named by its ends", name, "copy(H2D)");
  tracer_allocation_add("test", shared, sizeof shared, TRACER_MEMORY_SHARED);
  c.src = shared + 100;
  tracer_command_name(&c, name, sizeof name);
  expect_str("an end inside an allocation", name, "copy(S2D)");
  expect_u64("the allocation's end is outside it",
             tracer_allocation_memory("test", shared + sizeof shared), TRACER_MEMORY_UNKNOWN);
  tracer_allocation_remove("test", shared);
  tracer_command_name(&c, name, sizeof name);
  expect_str("an end the driver does not know", name, "copy(M2D)");
  c.direction = TRACER_COPY_D2H, c.dst = host_buffer;
  tracer_command_name(&c, name, sizeof name);
  expect_str("the direction says the device end", name, "copy(D2H)");
  c.named_copy = false;
  tracer_command_name(&c, name, sizeof name);
  expect_str("a copy whose spec names no ends", name, "copy");

  static const struct tracer_direction_value directions[] = {{1, TRACER_COPY_H2D},
                                                             {2, TRACER_COPY_D2H}};
  c = (struct tracer_command){.device = &by_direction,
                              .kind = TRACER_COMMAND_TRANSFER,
                              .name = "memcpy",
                              .named_copy = true};
  c.direction = tracer_copy_direction_of(directions, 2, 2);
  tracer_command_name(&c, name, sizeof name);
  expect_str("a direction param's value", name, "memcpy(D2H)");
  c.direction = tracer_copy_direction_of(directions, 2, 0);
  tracer_command_name(&c, name, sizeof name);
  expect_str("a value no direction has", name, "memcpy");
  c.direction = TRACER_COPY_FILL;
  tracer_command_name(&c, name, sizeof name);
  expect_str("a fill", name, "memcpy");
}

/* A backend whose commands finish when `done` says, with a time of their own. */
struct test_pending {
  struct tracer_pending base;
  int id;
};
static bool done[1000];
static int released[1000], read_order[1000], reads;

static enum tracer_pending_state test_read(struct tracer_pending *pending, bool wait,
                                           unsigned drain, uint64_t *start, uint64_t *end) {
  struct test_pending *p = (struct test_pending *)pending;
  (void)drain;
  if (!wait && !done[p->id])
    return TRACER_PENDING_RUNNING;
  read_order[reads++] = p->id;
  *start = 1000, *end = 2000;
  return p->id % 2 ? TRACER_PENDING_LOST : TRACER_PENDING_READ;
}

static int runs_released[1000];

static void test_release(struct tracer_pending *pending, bool last) {
  (last ? released : runs_released)[((struct test_pending *)pending)->id]++;
}

static void pending_tests(void) {
  static const struct tracer_pending_ops ops = {"pending_test", sizeof(struct test_pending),
                                                test_read, test_release, false};
  for (int i = 0; i < 10; i++) {
    struct test_pending p = {{.queue = (uintptr_t)(i < 5 ? 1 : 2)}, i};
    snprintf(p.base.name, sizeof p.base.name, "command %d", i);
    tracer_pending_add(&ops, &p.base);
  }
  done[3] = done[4] = done[7] = true;
  tracer_pending_drain("pending_test", false);
  expect_u64("reads of finished commands", (uint64_t)reads, 3);
  expect_u64("in order", (uint64_t)(read_order[0] * 100 + read_order[1] * 10 + read_order[2]), 347);
  expect_u64("released once read or lost", (uint64_t)(released[3] + released[4] + released[7]), 3);
  expect_u64("a running one kept", (uint64_t)released[5], 0);
  tracer_list_reset("pending_test", 1, false);
  expect_u64("queue 1's forgotten", (uint64_t)(released[0] + released[1] + released[2]), 3);
  expect_u64("queue 2's kept", (uint64_t)(released[5] + released[6]), 0);
  reads = 0;
  tracer_pending_drain("pending_test", true);
  expect_u64("waited for", (uint64_t)reads, 4); /* queue 2's: 5, 6, 8, 9 */
  reads = 0;
  for (int i = 10; i < 10 + TRACER_PENDING_DRAIN_AT + 1; i++) {
    struct test_pending p = {{.queue = 3}, i};
    done[i] = i < 20;
    tracer_pending_add(&ops, &p.base);
  }
  expect_u64("drained when many are pending", (uint64_t)reads, 10);
  tracer_pending_drain("pending_test", true);
  int all = 0;
  for (int i = 0; i < 10 + TRACER_PENDING_DRAIN_AT + 1; i++)
    all += released[i] == 1;
  expect_u64("every command released once", (uint64_t)all, 10 + TRACER_PENDING_DRAIN_AT + 1);
}

/* A regular list records its commands, pending at each execution; an immediate list's are
 * pending at once; the list's reset gives its commands back for good. */
static void command_list_tests(void) {
  static const struct tracer_pending_ops ops = {"list_test", sizeof(struct test_pending), test_read,
                                                test_release, false};
  memset(done, 0, sizeof done);
  memset(released, 0, sizeof released);
  reads = 0;
  tracer_list_created("list_test", 50, 7, 8, false);
  tracer_list_created("list_test", 51, 7, 8, true);
  uintptr_t context = 0, device = 0;
  expect_u64("a list's context", tracer_list_of("list_test", 50, &context, &device) ? context : 0,
             7);
  expect_u64("no list", tracer_list_of("list_test", 52, &context, &device), 0);
  for (int i = 100; i < 103; i++) {
    struct test_pending p = {{.queue = i < 102 ? 50 : 51}, i};
    tracer_pending_add(&ops, &p.base);
    done[i] = true;
  }
  tracer_pending_drain("list_test", false);
  expect_u64("only the immediate list's command runs", (uint64_t)reads, 1);
  const uintptr_t executed[] = {50, 50};
  tracer_lists_executed("list_test", executed, sizeof *executed, 2);
  tracer_pending_drain("list_test", false);
  expect_u64("each execution runs the list's commands", (uint64_t)reads, 5);
  expect_u64("runs leave the commands on their list",
             (uint64_t)(runs_released[100] + runs_released[101]), 4);
  expect_u64("none released for good yet", (uint64_t)(released[100] + released[101]), 0);
  tracer_list_reset("list_test", 50, true);
  expect_u64("the reset releases them", (uint64_t)(released[100] + released[101]), 2);
  expect_u64("a destroyed list is none", tracer_list_of("list_test", 50, &context, &device), 0);
}

/* The device finder of backend "devices_test": the command's queue says its device. */
static int32_t device_of_queue(const struct tracer_command *command) {
  return command->queue == 0 ? TRACER_DEVICE_UNKNOWN : (int32_t)command->queue - 1;
}

/* The handle finder of backend "devices_test": handle 0x40 is device 3; counts its calls. */
static unsigned handle_finds;
static int32_t find_handle(uintptr_t handle, char *name, size_t size) {
  handle_finds++;
  snprintf(name, size, "%s", handle == 0x40 ? "Null GPU 3" : "");
  return handle == 0x40 ? 3 : TRACER_DEVICE_UNKNOWN;
}

static void device_tests(void) {
  static const struct tracer_device backend = {.backend = "devices_test"};
  static const struct tracer_device other = {.backend = "devices_other"};
  struct tracer_command on_second = {.device = &backend, .name = "launch", .queue = 2};
  struct tracer_command on_none = {.device = &backend, .name = "launch", .queue = 0};
  struct tracer_command elsewhere = {.device = &other, .name = "launch", .queue = 2};
  expect_u64("no finder: unknown", (uint64_t)(int64_t)tracer_command_device(&on_second),
             (uint64_t)(int64_t)TRACER_DEVICE_UNKNOWN);
  tracer_device_of_register("devices_test", device_of_queue, find_handle);
  expect_u64("the finder's device", (uint64_t)tracer_command_device(&on_second), 1);
  expect_u64("the finder's unknown", (uint64_t)(int64_t)tracer_command_device(&on_none),
             (uint64_t)(int64_t)TRACER_DEVICE_UNKNOWN);
  expect_u64("another backend has no finder", (uint64_t)(int64_t)tracer_command_device(&elsewhere),
             (uint64_t)(int64_t)TRACER_DEVICE_UNKNOWN);
  char name[TRACER_DEVICE_NAME] = "";
  expect_u64("no name kept yet", tracer_device_name_of("devices_test", 1, name, sizeof name), 0);
  tracer_device_named("devices_test", 1, "Null GPU 1");
  tracer_device_named("devices_test", -1, "never");
  expect_u64("a name kept", tracer_device_name_of("devices_test", 1, name, sizeof name), 1);
  expect_str("its name", name, "Null GPU 1");
  expect_u64("per ordinal", tracer_device_name_of("devices_test", 0, name, sizeof name), 0);
  expect_u64("per backend", tracer_device_name_of("devices_other", 1, name, sizeof name), 0);
  expect_u64("a handle found", (uint64_t)tracer_device_ordinal("devices_test", 0x40), 3);
  expect_u64("and named", tracer_device_name_of("devices_test", 3, name, sizeof name), 1);
  expect_str("by its finder", name, "Null GPU 3");
  expect_u64("found once", (uint64_t)tracer_device_ordinal("devices_test", 0x40) + handle_finds,
             3 + 1);
  expect_u64("a handle not found", (uint64_t)(int64_t)tracer_device_ordinal("devices_test", 0x50),
             (uint64_t)(int64_t)TRACER_DEVICE_UNKNOWN);
  expect_u64("is asked again", (tracer_device_ordinal("devices_test", 0x50), handle_finds), 3);
  expect_u64("no finder", (uint64_t)(int64_t)tracer_device_ordinal("devices_other", 0x40),
             (uint64_t)(int64_t)TRACER_DEVICE_UNKNOWN);
  /* A pending command keeps the device it was submitted to. */
  struct tracer_pending p;
  tracer_pending_init(&p, &on_second);
  expect_u64("a pending command's device", (uint64_t)p.device, 1);
}

int main(void) {
  timestamp_tests();
  span_ms_tests();
  demangle_tests();
  copy_kind_tests();
  command_name_tests();
  pending_tests();
  command_list_tests();
  device_tests();
  if (failures) {
    fprintf(stderr, "device_unit: %d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("PASS: device_unit: %d checks of device clocks, names, copy kinds, allocations, "
         "pending commands and devices\n",
         checks);
  return 0;
}
