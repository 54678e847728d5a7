/* otf2_comms: see otf2_comms.h. */
#include "otf2_comms.h"

#include <stdlib.h>
#include <string.h>

static int reserve(void **items, uint32_t count, uint32_t *cap, size_t size) {
  if (count < *cap)
    return 0;
  uint32_t grown_cap = *cap ? *cap * 2 : 8;
  void *grown = realloc(*items, grown_cap * size);
  if (!grown)
    return -1;
  *items = grown;
  *cap = grown_cap;
  return 0;
}

/* Communicators are few (made by collective calls): looked up along the list. */
uint32_t otf2_comms_comm(struct otf2_comms *c, uint32_t name, uint32_t parent,
                         const uint64_t *members, uint32_t size) {
  for (uint32_t i = 0; i < c->comm_count; i++) {
    const struct otf2_comm *k = &c->comms[i];
    if (k->name == name && k->parent == parent && k->size == size &&
        (!size || memcmp(k->members, members, size * sizeof *members) == 0))
      return i + 1;
  }
  uint64_t *copy = malloc((size + 1) * sizeof *copy);
  if (!copy || reserve((void **)&c->comms, c->comm_count, &c->comm_cap, sizeof *c->comms)) {
    free(copy);
    return UINT32_MAX;
  }
  if (size)
    memcpy(copy, members, size * sizeof *copy);
  c->comms[c->comm_count++] = (struct otf2_comm){name, parent, copy, size};
  return c->comm_count;
}

uint32_t otf2_comms_win(struct otf2_comms *c, uint32_t name, uint32_t comm) {
  for (uint32_t i = 0; i < c->win_count; i++)
    if (c->wins[i].name == name && c->wins[i].comm == comm)
      return i;
  if (reserve((void **)&c->wins, c->win_count, &c->win_cap, sizeof *c->wins))
    return UINT32_MAX;
  c->wins[c->win_count] = (struct otf2_win){name, comm};
  return c->win_count++;
}

OTF2_ErrorCode otf2_comms_write(const struct otf2_comms *c, OTF2_GlobalDefWriter *w) {
  OTF2_ErrorCode rc = OTF2_SUCCESS;
  for (uint32_t i = 0; i < c->comm_count && rc == OTF2_SUCCESS; i++) {
    const struct otf2_comm *k = &c->comms[i];
    rc = OTF2_GlobalDefWriter_WriteGroup(w, i + 2, k->name, OTF2_GROUP_TYPE_COMM_GROUP,
                                         OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, k->size,
                                         k->members);
    if (rc == OTF2_SUCCESS)
      rc = OTF2_GlobalDefWriter_WriteComm(w, i + 1, k->name, i + 2, k->parent,
                                          OTF2_COMM_FLAG_NONE);
  }
  for (uint32_t i = 0; i < c->win_count && rc == OTF2_SUCCESS; i++)
    /* Every window is one the trace saw made: its RmaWinCreate is in the events. */
    rc = OTF2_GlobalDefWriter_WriteRmaWin(w, i, c->wins[i].name, c->wins[i].comm,
                                          OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS);
  return rc;
}

void otf2_comms_free(struct otf2_comms *c) {
  for (uint32_t i = 0; i < c->comm_count; i++)
    free(c->comms[i].members);
  free(c->comms);
  free(c->wins);
  memset(c, 0, sizeof *c);
}
