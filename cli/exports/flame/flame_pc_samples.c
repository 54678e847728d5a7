/* flame_pc_samples: see flame_pc_samples.h. */
#include "flame_pc_samples.h"

#include <stdbool.h>
#include <stdlib.h>

struct flame_pc_kernel {
  uint32_t process, kernel;
  struct flame_pc_sample *samples; /* owned */
  size_t count, cap;
  bool sorted;
};

static uint64_t kernel_key(uint32_t process, uint32_t kernel) {
  return (uint64_t)process << 32 | kernel; /* both below UINT32_MAX: never the empty key */
}

int flame_pc_samples_add(struct flame_pc_samples *s, uint32_t process, uint32_t kernel,
                         uint64_t pc_offset, uint32_t stall, uint64_t samples) {
  bool added;
  uint64_t *slot = key_map_put(&s->kernels, kernel_key(process, kernel), &added);
  if (!slot)
    return -1;
  if (added) {
    if (s->count == s->cap) {
      size_t cap = s->cap ? 2 * s->cap : 16;
      struct flame_pc_kernel *grown = realloc(s->list, cap * sizeof *grown);
      if (!grown) {
        key_map_remove(&s->kernels, kernel_key(process, kernel));
        return -1;
      }
      s->list = grown, s->cap = cap;
    }
    s->list[s->count] = (struct flame_pc_kernel){process, kernel, NULL, 0, 0, true};
    *slot = ++s->count;
  }
  size_t k = (size_t)*slot - 1;
  struct flame_pc_kernel *entry = &s->list[k];
  uint64_t key = key_mix(key_mix(k, pc_offset), stall);
  uint64_t *at = key_map_put(&s->entries, key, &added);
  if (!at)
    return -1;
  if (!added) {
    entry->samples[*at - 1].samples += samples;
    return 0;
  }
  if (entry->count == entry->cap) {
    size_t cap = entry->cap ? 2 * entry->cap : 8;
    struct flame_pc_sample *grown = realloc(entry->samples, cap * sizeof *grown);
    if (!grown) {
      key_map_remove(&s->entries, key);
      return -1;
    }
    entry->samples = grown, entry->cap = cap;
  }
  entry->samples[entry->count] = (struct flame_pc_sample){pc_offset, stall, samples};
  *at = ++entry->count;
  entry->sorted = false;
  return 0;
}

static int by_pc_then_stall(const void *pa, const void *pb) {
  const struct flame_pc_sample *a = pa, *b = pb;
  if (a->pc_offset != b->pc_offset)
    return a->pc_offset < b->pc_offset ? -1 : 1;
  return a->stall < b->stall ? -1 : a->stall > b->stall;
}

size_t flame_pc_samples_of(struct flame_pc_samples *s, uint32_t process, uint32_t kernel,
                           const struct flame_pc_sample **samples) {
  *samples = NULL;
  uint64_t *slot = key_map_get(&s->kernels, kernel_key(process, kernel));
  if (!slot)
    return 0;
  struct flame_pc_kernel *entry = &s->list[*slot - 1];
  if (!entry->sorted) {
    /* The entries' index map points into the order before: no add comes after this. */
    qsort(entry->samples, entry->count, sizeof *entry->samples, by_pc_then_stall);
    key_map_clear(&s->entries);
    entry->sorted = true;
  }
  *samples = entry->samples;
  return entry->count;
}

void flame_pc_share(uint64_t weight, const struct flame_pc_sample *samples, size_t n,
                    uint64_t *parts) {
  unsigned __int128 all = 0;
  for (size_t i = 0; i < n; i++)
    all += samples[i].samples;
  if (!all) {
    for (size_t i = 0; i < n; i++)
      parts[i] = i == 0 ? weight : 0;
    return;
  }
  uint64_t given = 0;
  for (size_t i = 0; i < n; i++) {
    parts[i] = (uint64_t)((unsigned __int128)weight * samples[i].samples / all);
    given += parts[i];
  }
  /* Fewer than n left: one each to the largest remainders. */
  for (; given < weight; given++) {
    size_t best = n;
    unsigned __int128 best_left = 0;
    for (size_t i = 0; i < n; i++) {
      unsigned __int128 exact = (unsigned __int128)weight * samples[i].samples;
      unsigned __int128 left = exact - (unsigned __int128)parts[i] * all;
      /* A part already given its extra one has left < 0 in effect: skip it. */
      if (left >= all)
        continue;
      if (best == n || left > best_left)
        best = i, best_left = left;
    }
    if (best == n) /* cannot be: the remainders add up to what is left */
      break;
    parts[best]++;
  }
}

void flame_pc_samples_free(struct flame_pc_samples *s) {
  for (size_t i = 0; i < s->count; i++)
    free(s->list[i].samples);
  free(s->list);
  key_map_free(&s->kernels);
  key_map_free(&s->entries);
}
