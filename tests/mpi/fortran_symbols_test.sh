#!/bin/sh
# The Fortran bindings an interposer wraps (trace.fortran, templates/fortran.c.tmpl) are
# complete: every Fortran entry point of the MPI library's Fortran library (gfortran's
# names: mpi_send_) whose C function the interposer traces (MPI_Send) has a wrapper, and
# every wrapper is an entry point of that library. Open MPI's Fortran bindings call PMPI_*
# themselves, so an entry point without a wrapper is a call the trace misses (MPI_Wtime
# was one).
# Usage: fortran_symbols_test.sh INTERPOSER FORTRAN-LIBRARY
set -eu
. "$(dirname "$0")/../e2e/lib.sh"
[ $# -eq 2 ] || { echo "usage: $0 INTERPOSER FORTRAN-LIBRARY" >&2; exit 2; }
interposer=$1
library=$2
command -v nm >/dev/null 2>&1 || skip "no nm (binutils)"
[ -f "$interposer" ] || fail "no interposer $interposer"
path=$(ldconfig -p | awk -v l="$library" '$1 == l { print $NF; exit }')
[ -n "$path" ] || skip "no $library (scripts/setup.sh installs it)"
e2e_setup

nm -D --defined-only "$interposer" | awk '{ print $3 }' >"$tmp/interposer"
# The C functions it traces, as gfortran names their Fortran twins.
grep '^MPI_' "$tmp/interposer" | tr 'A-Z' 'a-z' | sed 's/$/_/' | sort -u >"$tmp/traced"
grep '^mpi_.*[a-z0-9]_$' "$tmp/interposer" | sort -u >"$tmp/wrapped"
nm -D --defined-only "$path" | awk '{ print $3 }' | grep '^mpi_.*[a-z0-9]_$' | sort -u \
  >"$tmp/library"
[ -s "$tmp/wrapped" ] || fail "$interposer wraps no Fortran entry point"
missing=$(comm -12 "$tmp/traced" "$tmp/library" | comm -23 - "$tmp/wrapped")
[ -z "$missing" ] ||
  fail "entry points of $library whose C function is traced, not wrapped: $(echo $missing)"
extra=$(comm -23 "$tmp/wrapped" "$tmp/library")
[ -z "$extra" ] || fail "wrappers of no entry point of $library: $(echo $extra)"
echo "PASS: $e2e_name: $(wc -l <"$tmp/wrapped") Fortran entry points of $library wrapped," \
  "every one whose C function is traced"
