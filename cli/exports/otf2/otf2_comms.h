/* otf2_comms: MPI communicators other than the world, and RMA windows, as OTF2 3.0
 * definitions: per communicator a group of type COMM_GROUP whose members are world ranks
 * and a Comm of that group with its parent; per window an RmaWin of its communicator.
 *
 * Ids: communicator 0 is MPI_COMM_WORLD (otf2_defs.h writes it with groups 0 and 1);
 * communicator i + 1 is comms[i], written with group i + 2; window i is wins[i].
 *
 * A communicator is the same definition wherever it is added (the ranks of a job, each
 * rank's part, otf2_merge.h) when its name, parent and members are: the writer names it
 * by its parent, members and creation order among the parent's communicators of those
 * members (otf2_mpi.c), which every member sees alike since making one is collective. A
 * window likewise by its name and communicator. Library code: no messages. */
#ifndef TRACER_OTF2_COMMS_H
#define TRACER_OTF2_COMMS_H

#include <stdint.h>

#include "otf2_library.h"

struct otf2_comm {
  uint32_t name;                /* string */
  uint32_t parent;              /* comm id */
  uint64_t *members;            /* world ranks, by rank in it; owned */
  uint32_t size;
};

struct otf2_win {
  uint32_t name;                /* string */
  uint32_t comm;                /* comm id */
};

struct otf2_comms {
  struct otf2_comm *comms;
  struct otf2_win *wins;
  uint32_t comm_count, comm_cap, win_count, win_cap;
};

/* The comm id of a communicator (members copied), unified as above; UINT32_MAX when
 * out of memory. */
uint32_t otf2_comms_comm(struct otf2_comms *c, uint32_t name, uint32_t parent,
                         const uint64_t *members, uint32_t size);
/* The id of a window, unified by name and comm; UINT32_MAX when out of memory. */
uint32_t otf2_comms_win(struct otf2_comms *c, uint32_t name, uint32_t comm);

/* Writes the groups, comms and windows (after the world's). */
OTF2_ErrorCode otf2_comms_write(const struct otf2_comms *c, OTF2_GlobalDefWriter *w);

void otf2_comms_free(struct otf2_comms *c);

#endif
