/* mpi_pmpi: the PMPI_ entry points the MPI hooks call, looked up in the loaded MPI library
 * the first time a hook needs them. Shared by the MPICH and Open MPI hooks, which define
 * MPI_LIBRARY_OBJECT (their interposer's <backend>_library_object) and include it after
 * their mpi.h; everything here is static.
 *
 * Never by reference: the loader would resolve it when the interposer loads, before an
 * app such as python3 with mpi4py has loaded MPI, and keep it unresolved. Never through
 * the MPI_ names either: a profiling tool preloaded ahead of the tracer (mpiP, a PMPI
 * counter) would count the hooks' calls as the app's.
 */
#ifndef MPI_PMPI_H
#define MPI_PMPI_H

#include <stdbool.h>

static struct {
  __typeof__(PMPI_Type_size) *Type_size;
  __typeof__(PMPI_Comm_create_keyval) *Comm_create_keyval;
  __typeof__(PMPI_Comm_get_attr) *Comm_get_attr;
  __typeof__(PMPI_Comm_set_attr) *Comm_set_attr;
  __typeof__(PMPI_Comm_group) *Comm_group;
  __typeof__(PMPI_Comm_remote_group) *Comm_remote_group;
  __typeof__(PMPI_Comm_test_inter) *Comm_test_inter;
  __typeof__(PMPI_Group_compare) *Group_compare;
  __typeof__(PMPI_Group_free) *Group_free;
  __typeof__(PMPI_Group_size) *Group_size;
  __typeof__(PMPI_Group_translate_ranks) *Group_translate_ranks;
  __typeof__(PMPI_Win_create_keyval) *Win_create_keyval;
  __typeof__(PMPI_Win_get_attr) *Win_get_attr;
  __typeof__(PMPI_Win_set_attr) *Win_set_attr;
  __typeof__(PMPI_Win_get_group) *Win_get_group;
} pmpi;
static int pmpi_found; /* 0: not looked up yet; 1: every entry found; -1: some missing */

static void *pmpi_lookup(const char *name, bool *missing) {
  void *fn = MPI_LIBRARY_OBJECT(name);
  *missing |= !fn;
  return fn;
}

/* True when every entry point is there (the library is loaded: a hook runs inside one of
 * its calls). The lookup is repeated by racing threads at worst: it gives the same. */
static bool pmpi_ready(void) {
  int found = __atomic_load_n(&pmpi_found, __ATOMIC_ACQUIRE);
  if (found)
    return found > 0;
  bool missing = false;
  pmpi.Type_size = pmpi_lookup("PMPI_Type_size", &missing);
  pmpi.Comm_create_keyval = pmpi_lookup("PMPI_Comm_create_keyval", &missing);
  pmpi.Comm_get_attr = pmpi_lookup("PMPI_Comm_get_attr", &missing);
  pmpi.Comm_set_attr = pmpi_lookup("PMPI_Comm_set_attr", &missing);
  pmpi.Comm_group = pmpi_lookup("PMPI_Comm_group", &missing);
  pmpi.Comm_remote_group = pmpi_lookup("PMPI_Comm_remote_group", &missing);
  pmpi.Comm_test_inter = pmpi_lookup("PMPI_Comm_test_inter", &missing);
  pmpi.Group_compare = pmpi_lookup("PMPI_Group_compare", &missing);
  pmpi.Group_free = pmpi_lookup("PMPI_Group_free", &missing);
  pmpi.Group_size = pmpi_lookup("PMPI_Group_size", &missing);
  pmpi.Group_translate_ranks = pmpi_lookup("PMPI_Group_translate_ranks", &missing);
  pmpi.Win_create_keyval = pmpi_lookup("PMPI_Win_create_keyval", &missing);
  pmpi.Win_get_attr = pmpi_lookup("PMPI_Win_get_attr", &missing);
  pmpi.Win_set_attr = pmpi_lookup("PMPI_Win_set_attr", &missing);
  pmpi.Win_get_group = pmpi_lookup("PMPI_Win_get_group", &missing);
  __atomic_store_n(&pmpi_found, missing ? -1 : 1, __ATOMIC_RELEASE);
  return !missing;
}

#endif
