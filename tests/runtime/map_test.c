/* The runtime's map of values by key (runtime/tracer_map.c): puts, gets and takes across
 * growth, keys whose probes collide taken out of the middle of their run, key 0, and the
 * bound on entries. */
#include <inttypes.h>
#include <stdio.h>

#include "tracer_map.h"
#include "expect.h"

int main(void) {
  struct tracer_map map = TRACER_MAP_INIT(uint64_t, 3000);
  uint64_t value = 0;
  for (uint64_t key = 1; key <= 3000; key++)
    expect_u64("put", tracer_map_put(&map, key * 4096, &(uint64_t){key + 7}), 1);
  expect_u64("beyond the bound", tracer_map_put(&map, 1, &value), 0);
  expect_u64("a kept key at the bound", tracer_map_put(&map, 4096, &(uint64_t){1}), 1);
  expect_u64("key 0", tracer_map_put(&map, 0, &value), 0);
  expect_u64("no key 0", tracer_map_get(&map, 0, NULL), 0);
  /* Every other key out, then every key still found or absent as it should be. */
  for (uint64_t key = 2; key <= 3000; key += 2)
    expect_u64("take", tracer_map_take(&map, key * 4096, &value) && value == key + 7, 1);
  uint64_t found = 0;
  for (uint64_t key = 1; key <= 3000; key++)
    found += tracer_map_get(&map, key * 4096, &value) && value == (key == 1 ? 1 : key + 7);
  expect_u64("the odd keys left", found, 1500);
  expect_u64("taken once", tracer_map_take(&map, 2 * 4096, NULL), 0);
  expect_u64("room again", tracer_map_put(&map, 5, &value), 1);
  tracer_map_clear(&map);
  expect_u64("cleared", tracer_map_get(&map, 4096, NULL), 0);
  /* A struct value. */
  struct {
    int32_t tid;
    uint64_t start;
  } call = {-1, 42}, out = {0, 0};
  struct tracer_map calls = TRACER_MAP_INIT(call, 4);
  tracer_map_put(&calls, 9, &call);
  expect_u64("a struct back", tracer_map_take(&calls, 9, &out) && out.tid == -1 && out.start == 42,
             1);
  tracer_map_clear(&calls);
  if (failures) {
    fprintf(stderr, "map_unit: %d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("PASS: map_unit: %d checks\n", checks);
  return 0;
}
