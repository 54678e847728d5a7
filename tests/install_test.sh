#!/bin/sh
# `make install` gives a tracer that works from any folder without the build tree:
# install into a temporary prefix, hide the build folder, and trace an app.
# Usage: install_test.sh BUILD_DIR APP
set -eu
build=$1
app=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tracer-install.XXXXXX")
hidden=
restore() {
  [ -n "$hidden" ] && mv "$hidden" "$build/lib"
  rm -rf "$tmp"
}
trap restore EXIT
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log" >&2; echo "FAIL: install failed" >&2; exit 1; }
for f in bin/tracer bin/apigen share/tracer/api-specs/opencl.yaml share/tracer/templates/interposer.c.tmpl \
         share/doc/tracer/README.md; do
  [ -e "$tmp/prefix/$f" ] || { echo "FAIL: $f is not installed" >&2; exit 1; }
done
ls "$tmp"/prefix/lib*/tracer/libtracer_opencl.so >/dev/null ||
  { echo "FAIL: the OpenCL interposer is not installed" >&2; exit 1; }
# The build's libraries out of the way: the installed tracer must use its own. Where a
# private mount namespace can be had, an empty folder is mounted over them there only, so
# that tracer jobs running beside this test still find them; elsewhere they are moved.
if [ "$(id -u)" = 0 ] && unshare --mount --propagation private true 2>/dev/null; then
  without_build_lib() {
    unshare --mount --propagation private \
      sh -c 'mount -t tmpfs -o mode=0755 tmpfs "$0" && exec "$@"' "$build/lib" "$@"
  }
else
  mv "$build/lib" "$build/lib.hidden-by-install-test"
  hidden="$build/lib.hidden-by-install-test"
  without_build_lib() { "$@"; }
fi
cp "$app" "$tmp/app"
cd "$tmp"
without_build_lib env POCL_CACHE_DIR="$tmp/pocl" "$tmp/prefix/bin/tracer" -q -j -o "$tmp/tally.json" \
  --trace-output "$tmp/trace" -- ./app >"$tmp/app.out" ||
  { echo "FAIL: the installed tracer failed" >&2; exit 1; }
calls=$(jq '[.backends[] | select(.name == "opencl") | .host[] | .calls] | add' "$tmp/tally.json")
[ "${calls:-0}" -gt 0 ] || { echo "FAIL: the installed tracer recorded no OpenCL call" >&2; exit 1; }
without_build_lib "$tmp/prefix/bin/apigen" --spec opencl --stdout --quiet >/dev/null ||
  { echo "FAIL: the installed apigen cannot find its specs" >&2; exit 1; }
echo "installed tracer traced $calls OpenCL calls from $tmp, without the build tree"
