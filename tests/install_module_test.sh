#!/bin/sh
# `make install` gives a module that HPC users load: install into a temporary prefix,
# load the module in a clean login shell with Debian's Lmod or with Environment Modules,
# and trace the installed example with plain `tracer`; then unload it.
# Usage: install_module_test.sh lmod|envmodules BUILD_DIR
# Lmod comes from Debian's lmod package (scripts/setup.sh), Environment Modules from
# Debian's environment-modules package unpacked into /opt/environment-modules (the two
# packages conflict). A missing tool makes the test SKIP (77).
set -eu
tool=$1
build=$2
envmod_cmd=$(find /opt/environment-modules/usr/lib -name modulecmd.tcl 2>/dev/null | head -n 1)
case $tool in
lmod)
  [ -r /etc/profile.d/lmod.sh ] || { echo "SKIP: Lmod not installed (scripts/setup.sh)"; exit 77; }
  # Debian's lmod puts `module` into every login shell (/etc/profile.d/lmod.sh).
  shell_setup=':'
  ;;
envmodules)
  [ -n "$envmod_cmd" ] && command -v tclsh8.6 >/dev/null ||
    { echo "SKIP: Environment Modules not unpacked in /opt/environment-modules (scripts/setup.sh)"; exit 77; }
  # What the package's init script defines, without its fixed paths.
  shell_setup="module() { eval \"\$(tclsh8.6 $envmod_cmd sh \"\$@\")\"; }"
  ;;
*) echo "usage: $0 lmod|envmodules BUILD_DIR" >&2; exit 2 ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tracer-module.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "FAIL: $*" >&2; [ -f "$tmp/out" ] && sed 's/^/  | /' "$tmp/out" >&2; exit 1; }
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log" >&2; fail "install failed"; }
for f in share/man/man1/tracer.1 share/man/man1/apigen.1 lib/tracer/examples/vadd; do
  [ -e "$prefix/$f" ] || fail "$f is not installed"
done
ls "$prefix"/share/modulefiles/tracer/*.lua >/dev/null 2>&1 || fail "no Lmod module file installed"
grep -l '^#%Module' "$prefix"/share/modulefiles/tracer/* >/dev/null ||
  fail "no Environment Modules module file installed"
mkdir "$tmp/home"

# A clean environment: what a login shell on a cluster node starts with. The shell's
# output is kept; each line the script prints is checked below.
env -i HOME="$tmp/home" PATH=/usr/bin:/bin TERM=dumb POCL_CACHE_DIR="$tmp/pocl" \
  bash -lc "$shell_setup
set -e
command -v tracer >/dev/null && { echo 'tracer already on PATH before loading'; exit 1; }
module use '$prefix/share/modulefiles'
module load tracer
echo \"tracer=\$(command -v tracer)\"
echo \"root=\$TRACER_ROOT\"
echo \"libdir=\$TRACER_LIBRARY_DIR\"
echo \"man=\$(man -w tracer)\"
echo \"apigen_man=\$(man -w apigen)\"
echo \"system_man=\$(man -w ls)\"
cd \"\$HOME\"
tracer -q -j -o tally.json \"\$TRACER_ROOT/lib/tracer/examples/vadd\" > vadd.out
echo \"trace=\$(readlink ~/tracer-traces/latest)\"
module unload tracer
echo \"after_unload=\$(command -v tracer || echo none)\"
echo \"system_man_after=\$(man -w ls)\"
" >"$tmp/out" 2>&1 || fail "the module could not be loaded, or tracer failed in the clean shell"

value() { sed -n "s/^$1=//p" "$tmp/out" | head -n 1; }
[ "$(value tracer)" = "$prefix/bin/tracer" ] || fail "tracer is not the installed one after module load"
[ "$(value root)" = "$prefix" ] || fail "TRACER_ROOT is not the install prefix"
[ -e "$(value libdir)/libtracer_opencl.so" ] || fail "TRACER_LIBRARY_DIR holds no interposer"
[ "$(value man)" = "$prefix/share/man/man1/tracer.1" ] || fail "man tracer does not find the installed page"
[ "$(value apigen_man)" = "$prefix/share/man/man1/apigen.1" ] || fail "man apigen does not find the installed page"
case $(value system_man) in /usr/share/man/*) ;; *) fail "the module hid the system's man pages" ;; esac
case $(value system_man_after) in /usr/share/man/*) ;; *) fail "unloading broke the system's man pages" ;; esac
calls=$(jq '[.backends[] | select(.name == "opencl") | .host[] | .calls] | add' \
  "$tmp/home/tally.json" 2>/dev/null || true)
[ "${calls:-0}" -gt 0 ] 2>/dev/null || fail "the example traced with plain tracer recorded no OpenCL call"
case $(value trace) in "$tmp/home/tracer-traces/"*) ;; *) fail "the trace is not under ~/tracer-traces" ;; esac
[ "$(value after_unload)" = none ] || fail "tracer is still on PATH after module unload"
grep -q 'correct' "$tmp/home/vadd.out" || fail "the traced example did not compute correctly"
echo "$tool: module loaded in a clean login shell; plain tracer traced $calls OpenCL calls of the installed example"
