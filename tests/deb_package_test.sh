#!/bin/sh
# The Debian packages (packaging/deb.cmake): build them with CPack, check their contents
# and dependencies with dpkg-deb, then unpack them into a temporary folder (never onto
# the system) and trace the packaged example with the packaged tracer.
# Usage: deb_package_test.sh BUILD_DIR
set -eu
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tracer-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in cpack dpkg-deb dpkg-shlibdeps dpkg clang-format; do
  command -v $tool >/dev/null || { echo "SKIP: $tool not found (scripts/setup.sh)"; exit 77; }
done
# gzip, not the packages' xz: the test checks contents, and xz costs half its time.
(cd "$build" && cpack -G DEB -D CPACK_DEBIAN_COMPRESSION_TYPE=gzip -B "$tmp/packages") >"$tmp/cpack.log" 2>&1 ||
  { cat "$tmp/cpack.log" >&2; fail "cpack failed"; }
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
arch=$(dpkg --print-architecture)
main=$tmp/packages/tracer_${version}_${arch}.deb
dev=$tmp/packages/tracer-dev_${version}_${arch}.deb
[ -f "$main" ] || fail "no tracer_${version}_${arch}.deb"
[ -f "$dev" ] || fail "no tracer-dev_${version}_${arch}.deb"

# Contents: what each package must hold, and nothing outside /usr.
dpkg-deb -c "$main" | awk '{print $6}' | sed 's|^\./|/|' >"$tmp/main.list"
dpkg-deb -c "$dev" | awk '{print $6}' | sed 's|^\./|/|' >"$tmp/dev.list"
has() { grep -qx "$2" "$tmp/$1.list" || fail "$1 package lacks $2"; }
lacks() { ! grep -q "$2" "$tmp/$1.list" || fail "$1 package holds $2"; }
for f in /usr/bin/tracer /usr/lib/tracer/libtracer_runtime.so /usr/lib/tracer/libtracer_clock.so \
         /usr/lib/tracer/examples/vadd /usr/share/man/man1/tracer.1 /usr/share/doc/tracer/README.md \
         "/usr/share/modulefiles/tracer/$version" "/usr/share/modulefiles/tracer/$version.lua"; do
  has main "$f"
done
for lib in "$build"/lib/libtracer_*.so; do # every backend built
  has main "/usr/lib/tracer/${lib##*/}"
done
lacks main /usr/bin/apigen
lacks main /usr/share/tracer/api-specs/
for f in /usr/bin/apigen /usr/share/man/man1/apigen.1 /usr/share/tracer/api-specs/opencl.yaml \
         /usr/share/tracer/templates/interposer.c.tmpl /usr/share/tracer/.clang-format; do
  has dev "$f"
done
lacks dev /usr/bin/tracer
grep -v '^/usr/\|^/$' "$tmp/main.list" "$tmp/dev.list" && fail "files outside /usr"
dpkg-deb --fsys-tarfile "$main" | tar -xO "./usr/share/modulefiles/tracer/$version.lua" |
  grep -q '^local root = "/usr"$' || fail "the packaged Lmod module does not name /usr"

# Dependencies by package name: what the files run (lttng-sessiond), and the package of
# every library they link, as this machine's dpkg knows it.
depends() { dpkg-deb -f "$1" Depends | tr ',' '\n' | sed 's/^ *//; s/ (.*//; s/ |.*//'; }
depends "$main" >"$tmp/main.depends"
depends "$dev" >"$tmp/dev.depends"
grep -qx lttng-tools "$tmp/main.depends" || fail "tracer does not depend on lttng-tools"
grep -qx tracer "$tmp/dev.depends" || fail "tracer-dev does not depend on tracer"
grep -qx libclang-common-19-dev "$tmp/dev.depends" || fail "tracer-dev does not depend on clang's headers"
grep -qx clang-format "$tmp/dev.depends" || fail "tracer-dev does not depend on clang-format (apigen runs it)"
grep -q libclang "$tmp/main.depends" && fail "tracer depends on libclang (apigen's)"
# Libraries the tracer loads when a command needs them, not linked (cli/loaded/): no
# NEEDED entry names them, so the package names them itself (liblttng-ctl0, libdw1).
for so in liblttng-ctl.so.0 libdw.so.1; do
  path=$(ldconfig -p | awk -v so="$so" '$1 == so && /x86-64/ {print $NF; exit}')
  owner=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -n 1 | cut -d: -f1)
  [ -n "$owner" ] || fail "no package owns $so here"
  grep -qx "$owner" "$tmp/main.depends" ||
    fail "tracer does not depend on $owner ($so, loaded when needed)"
done
mkdir "$tmp/root"
dpkg-deb -x "$main" "$tmp/root"
dpkg-deb -x "$dev" "$tmp/root"
# Each ELF file's needed libraries, as "PACKAGE FILE SONAME" lines.
for pkg in main dev; do
  grep -v '/$' "$tmp/$pkg.list" | while read -r f; do
    file -b "$tmp/root$f" | grep -q '^ELF' || continue
    objdump -p "$tmp/root$f" | awk -v pkg="$pkg" -v f="$f" '/NEEDED/ {print pkg, f, $2}'
  done
done >"$tmp/needed"
# The package that owns each library, looked up once per library (dpkg -S reads every
# package's file list).
awk '{print $3}' "$tmp/needed" | sort -u | while read -r so; do
  [ -e "$tmp/root/usr/lib/tracer/$so" ] && continue # the package's own
  path=$(ldconfig -p | awk -v so="$so" '$1 == so && /x86-64/ {print $NF; exit}')
  [ -n "$path" ] || path=$(ls /usr/lib/llvm-19/lib/"$so" 2>/dev/null || true)
  [ -n "$path" ] || { echo "$so -"; continue; }
  owner=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -n 1 | cut -d: -f1 || true)
  [ -n "$owner" ] || owner=$(dpkg -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1)
  echo "$so $owner"
done >"$tmp/owners"
while read -r pkg f so; do
  owner=$(awk -v so="$so" '$1 == so {print $2; exit}' "$tmp/owners")
  [ -n "$owner" ] || continue # the package's own
  [ "$owner" != - ] || fail "$f needs $so, which this machine does not have"
  grep -qx "$owner" "$tmp/$pkg.depends" ||
    fail "$f needs $so from $owner, which the $pkg package does not depend on"
done <"$tmp/needed"

# The unpacked files work where they are: the tracer finds its libraries beside itself.
cd "$tmp"
POCL_CACHE_DIR="$tmp/pocl" "$tmp/root/usr/bin/tracer" -q -j -o "$tmp/tally.json" \
  --trace-output "$tmp/trace" "$tmp/root/usr/lib/tracer/examples/vadd" >"$tmp/vadd.out" ||
  fail "the packaged tracer failed on the packaged example"
calls=$(jq '[.backends[] | select(.name == "opencl") | .host[] | .calls] | add' "$tmp/tally.json")
[ "${calls:-0}" -gt 0 ] || fail "the packaged tracer recorded no OpenCL call"
"$tmp/root/usr/bin/apigen" --spec opencl --stdout --quiet >/dev/null ||
  fail "the packaged apigen cannot read its packaged spec"
# ... and renders its packaged templates for a spec, laid out with its packaged style file.
"$tmp/root/usr/bin/apigen" --spec "$here/corpus/zlib.yaml" \
  --output "$tmp/generated" --quiet ||
  fail "the packaged apigen cannot render its packaged templates"
clang-format --style=file:"$tmp/root/usr/share/tracer/.clang-format" --dry-run -Werror \
  "$tmp/generated"/*.[ch] || fail "the packaged apigen's output is not formatted"
echo "tracer_${version}_${arch}.deb: $(wc -l <"$tmp/main.list") entries, depends on" \
  "$(sort -u "$tmp/main.depends" | tr '\n' ' ')"
echo "tracer-dev_${version}_${arch}.deb: depends on $(tr '\n' ' ' <"$tmp/dev.depends")"
echo "unpacked, the packaged tracer traced $calls OpenCL calls of the packaged example"
