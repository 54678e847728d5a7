/* ctf_arena.c: one allocation pool per sub-trace. Metadata objects (types, names,
 * classes, plans) are created while parsing and all die together when the trace
 * closes, so a pool makes every error path a single free. */
#include "ctf_internal.h"

#include <stdlib.h>
#include <string.h>

struct ctf_arena_block {
  struct ctf_arena_block *next;
  size_t used, capacity;
  _Alignas(16) unsigned char bytes[];
};

enum { CTF_ARENA_BLOCK_SIZE = 64 * 1024 };

void *ctf_arena_alloc(struct ctf_arena *arena, size_t size) {
  size = (size + 15) & ~(size_t)15;
  struct ctf_arena_block *block = arena->head;
  if (!block || block->capacity - block->used < size) {
    size_t capacity = size > CTF_ARENA_BLOCK_SIZE / 2 ? size : CTF_ARENA_BLOCK_SIZE;
    block = malloc(sizeof *block + capacity);
    if (!block)
      return NULL;
    block->used = 0;
    block->capacity = capacity;
    /* A big one-off allocation goes behind the current block so that the rest of the
     * current block stays in use. */
    if (arena->head && capacity != CTF_ARENA_BLOCK_SIZE) {
      block->next = arena->head->next;
      arena->head->next = block;
    } else {
      block->next = arena->head;
      arena->head = block;
    }
  }
  void *memory = block->bytes + block->used;
  block->used += size;
  memset(memory, 0, size);
  return memory;
}

char *ctf_arena_strndup(struct ctf_arena *arena, const char *text, size_t length) {
  char *copy = ctf_arena_alloc(arena, length + 1);
  if (copy)
    memcpy(copy, text, length);
  return copy;
}

char *ctf_arena_strdup(struct ctf_arena *arena, const char *text) {
  return ctf_arena_strndup(arena, text, strlen(text));
}

void *ctf_arena_grow(struct ctf_arena *arena, const void *items, size_t count,
                     size_t capacity, size_t item_size) {
  if (capacity && item_size > SIZE_MAX / capacity)
    return NULL;
  void *copy = ctf_arena_alloc(arena, capacity * item_size);
  if (copy && count)
    memcpy(copy, items, count * item_size);
  return copy;
}

void ctf_arena_free(struct ctf_arena *arena) {
  struct ctf_arena_block *block = arena->head;
  while (block) {
    struct ctf_arena_block *next = block->next;
    free(block);
    block = next;
  }
  arena->head = NULL;
}
