/* MPI hooks, for both ABIs (MPICH's and Open MPI's): what no spec can say about MPI calls.
 * Compiled once per MPI backend, with that backend's header (TRACER_BACKEND_ARGS, set by
 * the build): the same source serves libmpich's integer handles and libmpi's pointers.
 *
 * - The bytes of a message are its count times the size of one element of its datatype
 *   (trace.messages in the spec); only the library knows that size, so the interposer
 *   asks here when the call returns.
 * - The peers of messages as ranks of MPI_COMM_WORLD (trace.world_rank), for the job's
 *   rank-to-rank matrix. A call names its peer by its rank in the call's communicator,
 *   or in the group of its window; the matrix wants the peer's rank in the job. Each
 *   communicator's (and window's) map from its ranks to world ranks is computed once,
 *   when a message call first names a peer in it: its group (for an intercommunicator,
 *   the remote group, where its peers are) translated against MPI_COMM_WORLD's group.
 *   The map is kept as an MPI attribute of the communicator (window) rather than in a
 *   table of handles: the library deletes it whenever the communicator is freed, by
 *   MPI_Comm_free from C or Fortran, MPI_Comm_disconnect or a library's own
 *   PMPI_Comm_free, so a handle the library hands out again never finds the map of the
 *   one freed before. A group equal to the world's keeps no table.
 *
 * - The members of the communicators and windows the app makes (trace.groups), as world
 *   ranks, recorded when the call that makes one returns (runtime/tracer_groups.h): the
 *   exports name the communicator a call passes by them. The same translation, done
 *   locally: no communication. MPI_COMM_SELF, which no call makes, is recorded when
 *   MPI_Init or MPI_Init_thread returns (trace.groups names it).
 *
 * - A receive's sender and bytes as its status says (trace.message_status): a receive from
 *   MPI_ANY_SOURCE names no sender, and one may receive less than its count allows.
 *   The bytes are PMPI_Get_count's in MPI_BYTE, which the library counts in any case.
 *   The statuses of a call that completes requests of an array are read the same way,
 *   one per request, by the runtime (args.h's reader; runtime/tracer_requests.h).
 *
 * Only PMPI_ entry points are called (mpi_calls, the spec's trace.hooks_calls): the
 * interposer wraps MPI_ names only, so none of these calls is traced or counted. Open
 * MPI's predefined handles are looked up when first used (trace.predefined_macro). One
 * lock covers the keyvals and the compute-and-keep of a map (a process of several threads
 * calling MPI at once). The bytes of non-blocking calls, from the call that starts a
 * request to the one that completes it, are the runtime's (runtime/tracer_requests.h).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include TRACER_BACKEND_ARGS

#include "tracer_groups.h"

/* A handle as the records hold it: MPICH's integers sign-extended, Open MPI's pointers
 * as addresses. */
#define HANDLE_VALUE(h) \
  _Generic((h), int: (uint64_t)(int64_t)(h), default: (uint64_t)(uintptr_t)(h))

uint64_t mpi_element_size(MPI_Datatype datatype) {
  int size = 0;
  if (datatype == MPI_DATATYPE_NULL || !mpi_calls_ready())
    return 0;
  return mpi_calls.PMPI_Type_size(datatype, &size) == MPI_SUCCESS && size > 0 ? (uint64_t)size : 0;
}

/* ---- what a receive's status says ---- */

/* Is there a status to read? Not when the call failed or the app passed
 * MPI_STATUS_IGNORE, or MPI_STATUSES_IGNORE as the first of an array's (then the caller
 * keeps what the call named). */
static bool status_filled(int64_t status, const MPI_Status *received) {
  return status == MPI_SUCCESS && received && received != MPI_STATUS_IGNORE &&
         received != MPI_STATUSES_IGNORE && mpi_calls_ready();
}

int64_t mpi_status_source(int64_t status, MPI_Status *received, int64_t named) {
  return status_filled(status, received) ? received->MPI_SOURCE : named;
}

uint64_t mpi_status_bytes(int64_t status, MPI_Status *received, uint64_t named) {
  int count = 0;
  if (!status_filled(status, received) ||
      mpi_calls.PMPI_Get_count(received, MPI_BYTE, &count) != MPI_SUCCESS ||
      count == MPI_UNDEFINED || count < 0)
    return named;
  return (uint64_t)count;
}

/* ---- peers as world ranks ---- */

struct rank_map {
  int size;     /* ranks in the group */
  int identity; /* the group is MPI_COMM_WORLD's, in its order: no table */
  int world[];  /* the world rank of each rank (MPI_UNDEFINED: a process outside the
                   world, one spawned or connected later) */
};

static int comm_map_keyval = MPI_KEYVAL_INVALID, win_map_keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t world_ranks_lock = PTHREAD_MUTEX_INITIALIZER;

/* The maps are the tracer's own: a duplicate communicator gets none (it computes its
 * own when asked), as MPI_COMM_NULL_COPY_FN would say, without its symbol. */
static int comm_map_not_copied(MPI_Comm comm, int keyval, void *extra, void *map, void *copy,
                               int *copied) {
  (void)comm, (void)keyval, (void)extra, (void)map, (void)copy;
  *copied = 0;
  return MPI_SUCCESS;
}

static int win_map_not_copied(MPI_Win win, int keyval, void *extra, void *map, void *copy,
                              int *copied) {
  (void)win, (void)keyval, (void)extra, (void)map, (void)copy;
  *copied = 0;
  return MPI_SUCCESS;
}

static int comm_map_deleted(MPI_Comm comm, int keyval, void *map, void *extra) {
  (void)comm, (void)keyval, (void)extra;
  free(map);
  return MPI_SUCCESS;
}

static int win_map_deleted(MPI_Win win, int keyval, void *map, void *extra) {
  (void)win, (void)keyval, (void)extra;
  free(map);
  return MPI_SUCCESS;
}

/* The map of group's ranks to world ranks (owned by the caller), or NULL. */
static struct rank_map *rank_map_of(MPI_Group group) {
  MPI_Group world;
  int size = 0, same = MPI_UNEQUAL;
  if (mpi_calls.PMPI_Group_size(group, &size) != MPI_SUCCESS || size < 1 ||
      mpi_calls.PMPI_Comm_group(MPI_COMM_WORLD, &world) != MPI_SUCCESS)
    return NULL;
  mpi_calls.PMPI_Group_compare(group, world, &same);
  bool identity = same == MPI_IDENT;
  struct rank_map *map = malloc(sizeof *map + (identity ? 0 : (size_t)size * sizeof(int)));
  int *ranks = identity ? NULL : malloc((size_t)size * sizeof *ranks);
  if (map && !identity) {
    for (int i = 0; ranks && i < size; i++)
      ranks[i] = i;
    if (!ranks || mpi_calls.PMPI_Group_translate_ranks(group, size, ranks, world, map->world) !=
                      MPI_SUCCESS) {
      free(map);
      map = NULL;
    }
  }
  if (map) {
    map->size = size;
    map->identity = identity;
  }
  free(ranks);
  mpi_calls.PMPI_Group_free(&world);
  return map;
}

static int64_t rank_map_world(const struct rank_map *map, int64_t rank) {
  if (!map || rank >= map->size || map->identity)
    return rank;
  return map->world[rank];
}

/* Does this call name a peer that needs translating? Failed calls, and ranks that name
 * no process (MPI_PROC_NULL, MPI_ANY_SOURCE, MPI_ROOT: negative), stay as they are. */
static bool world_rank_wanted(int64_t status, int64_t rank) {
  return status == MPI_SUCCESS && rank >= 0 && mpi_calls_ready();
}

/* rank in the group of win, when win is not MPI_WIN_NULL, else in comm, as a rank of
 * MPI_COMM_WORLD; rank itself when it cannot say. The map is the handle's attribute, else
 * computed and kept there; only the calls differ by the handle's type. */
static int64_t world_rank(MPI_Comm comm, MPI_Win win, int64_t rank) {
  bool on_win = win != MPI_WIN_NULL;
  int *keyval = on_win ? &win_map_keyval : &comm_map_keyval;
  struct rank_map *map = NULL;
  int found = 0, inter = 0;
  MPI_Group group;
  pthread_mutex_lock(&world_ranks_lock);
  if (*keyval == MPI_KEYVAL_INVALID && on_win)
    mpi_calls.PMPI_Win_create_keyval(win_map_not_copied, win_map_deleted, keyval, NULL);
  else if (*keyval == MPI_KEYVAL_INVALID)
    mpi_calls.PMPI_Comm_create_keyval(comm_map_not_copied, comm_map_deleted, keyval, NULL);
  if (*keyval != MPI_KEYVAL_INVALID &&
      (on_win ? mpi_calls.PMPI_Win_get_attr(win, *keyval, &map, &found)
              : mpi_calls.PMPI_Comm_get_attr(comm, *keyval, &map, &found)) == MPI_SUCCESS &&
      !found) {
    /* An intercommunicator's peers are ranks of its remote group. */
    if (!on_win)
      mpi_calls.PMPI_Comm_test_inter(comm, &inter);
    map = NULL;
    if ((on_win  ? mpi_calls.PMPI_Win_get_group(win, &group)
         : inter ? mpi_calls.PMPI_Comm_remote_group(comm, &group)
                 : mpi_calls.PMPI_Comm_group(comm, &group)) == MPI_SUCCESS) {
      map = rank_map_of(group);
      mpi_calls.PMPI_Group_free(&group);
    }
    if (map && (on_win ? mpi_calls.PMPI_Win_set_attr(win, *keyval, map)
                       : mpi_calls.PMPI_Comm_set_attr(comm, *keyval, map)) != MPI_SUCCESS) {
      free(map);
      map = NULL;
    }
  }
  int64_t world = rank_map_world(map, rank);
  pthread_mutex_unlock(&world_ranks_lock);
  return world;
}

int64_t mpi_comm_world_rank(int64_t status, MPI_Comm comm, int64_t rank) {
  if (!world_rank_wanted(status, rank) || comm == MPI_COMM_WORLD || comm == MPI_COMM_NULL)
    return rank;
  return world_rank(comm, MPI_WIN_NULL, rank);
}

/* A target rank in the group of win. */
int64_t mpi_win_world_rank(int64_t status, MPI_Win win, int64_t rank) {
  if (!world_rank_wanted(status, rank) || win == MPI_WIN_NULL)
    return rank;
  return world_rank(MPI_COMM_NULL, win, rank);
}

/* ---- communicators and windows made ---- */

/* Records group as the members of handle, made by the call that started at start, and
 * frees it. */
static void group_made(enum tracer_group_kind kind, uint64_t handle, uint64_t from,
                       uint64_t start, MPI_Group group) {
  struct rank_map *map = rank_map_of(group);
  if (map)
    tracer_group_made(kind, handle, from, start, map->size, map->identity ? NULL : map->world);
  free(map);
  mpi_calls.PMPI_Group_free(&group);
}

void mpi_comm_made(int64_t status, uint64_t start, MPI_Comm from, MPI_Comm *made) {
  int inter = 0;
  MPI_Group group;
  if (status != MPI_SUCCESS || !made || *made == MPI_COMM_NULL || !mpi_calls_ready())
    return;
  /* An intercommunicator's ranks name its remote group: not recorded (docs/otf2.md). */
  if (mpi_calls.PMPI_Comm_test_inter(*made, &inter) != MPI_SUCCESS || inter ||
      mpi_calls.PMPI_Comm_group(*made, &group) != MPI_SUCCESS)
    return;
  /* MPI_COMM_SELF (made when MPI starts: trace.groups) is a group of this rank alone, so
   * that the records of calls on it name no more than the rank (the exports' MPI_COMM_SELF). */
  group_made(*made == MPI_COMM_SELF ? TRACER_GROUP_SELF : TRACER_GROUP_COMMUNICATOR,
             HANDLE_VALUE(*made), HANDLE_VALUE(from), start, group);
}

void mpi_win_made(int64_t status, uint64_t start, MPI_Comm from, MPI_Win *made) {
  MPI_Group group;
  if (status != MPI_SUCCESS || !made || *made == MPI_WIN_NULL || !mpi_calls_ready() ||
      mpi_calls.PMPI_Win_get_group(*made, &group) != MPI_SUCCESS)
    return;
  group_made(TRACER_GROUP_WINDOW, HANDLE_VALUE(*made), HANDLE_VALUE(from), start, group);
}
