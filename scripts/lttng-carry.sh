#!/bin/sh
# Brings the LTTng runtime (and babeltrace2) to a machine without package access, such as
# a GPU node with no registry (docs/cuda.md, "Tracing on an NVIDIA machine").
#
#   On a Debian 12 machine with apt (as root):  scripts/lttng-carry.sh fetch DIR
#     downloads the .deb files into DIR/debs (LTTng, babeltrace2) and DIR/deps (libraries
#     an Ubuntu or a minimal image may lack: libdw, which the tracer names native frames
#     with, libunwind, which the runtime walks them with when it finds it, libotf2 for
#     --otf2 and libjansson for `tracer diff` of JSON results: the tracer loads each of
#     those two for that use only and starts without them), and writes DIR/env.sh.
#     About 15 MiB.
#   On the target machine:                      . DIR/env.sh
#     unpacks them into a private prefix (never into /; $TRACER_LTTNG_PREFIX, default
#     /tmp/tracer-lttng) once, and exports what the LTTng tools, the traced app and the
#     tracer need to find them there, TRACER_UST_FORK_LIBRARY and TRACER_UST_FD_LIBRARY
#     included.
# Then start a session daemon (or let the tracer start one) and run `tracer ./app`.
set -eu
usage() { echo "usage: $0 fetch DIR" >&2; exit 2; }
[ $# -eq 2 ] && [ "$1" = fetch ] || usage
dest=$2
command -v apt-get >/dev/null 2>&1 || { echo "$0: needs apt-get (run it on Debian 12)" >&2; exit 1; }
mkdir -p "$dest/debs" "$dest/deps"
apt-get update >/dev/null
(cd "$dest/debs" && apt-get download lttng-tools liblttng-ctl0 liblttng-ust1 \
  liblttng-ust-common1 liblttng-ust-ctl5 liburcu8 babeltrace2 libbabeltrace2-0)
(cd "$dest/deps" && apt-get download libpopt0 libnuma1 libxml2 libicu72 libglib2.0-0 \
  libdw1 libelf1 libkmod2 libzstd1 liblzma5 libbz2-1.0 libpcre2-8-0 libopen-trace-format2-10 \
  libjansson4 libunwind8)

cat >"$dest/env.sh" <<'ENV'
# Source me on the target machine: . DIR/env.sh   (made by scripts/lttng-carry.sh)
tracer_carry_dir=$(cd "$(dirname "${BASH_SOURCE:-$0}")" 2>/dev/null && pwd)
[ -d "$tracer_carry_dir/debs" ] || tracer_carry_dir=$(pwd)
tracer_lt=${TRACER_LTTNG_PREFIX:-/tmp/tracer-lttng}
tracer_ml=x86_64-linux-gnu
if [ ! -x "$tracer_lt/usr/bin/lttng" ]; then
  for f in "$tracer_carry_dir"/debs/*.deb; do dpkg-deb -x "$f" "$tracer_lt"; done
  for f in "$tracer_carry_dir"/deps/*.deb; do dpkg-deb -x "$f" "$tracer_lt/deps"; done
  # A carried library is used only where the machine has none of that name: the
  # machine's own are newer and match its other libraries.
  mkdir -p "$tracer_lt/fallback"
  tracer_have=$(ldconfig -p | awk '{print $1}' | sort -u)
  for l in "$tracer_lt"/deps/usr/lib/$tracer_ml/*.so.* "$tracer_lt"/deps/lib/$tracer_ml/*.so.*; do
    [ -e "$l" ] || continue
    printf '%s\n' "$tracer_have" | grep -qxF "$(basename "$l")" ||
      ln -sf "$l" "$tracer_lt/fallback/$(basename "$l")"
  done
fi
export PATH="$tracer_lt/usr/bin:$PATH"
export LD_LIBRARY_PATH="$tracer_lt/usr/lib/$tracer_ml:$tracer_lt/lib/$tracer_ml:$tracer_lt/fallback${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LTTNG_HOME="${LTTNG_HOME:-/tmp/lttng-home}"
mkdir -p "$LTTNG_HOME"
export LTTNG_SESSIOND_PATH="$tracer_lt/usr/bin/lttng-sessiond"
export LTTNG_CONSUMERD64_BIN="$tracer_lt/usr/lib/$tracer_ml/lttng/libexec/lttng-consumerd"
export LTTNG_CONSUMERD64_LIBDIR="$tracer_lt/usr/lib/$tracer_ml"
# The session daemon looks for its schema under /usr unless told.
export LTTNG_SESSION_CONFIG_XSD_PATH="$tracer_lt/usr/share/xml/lttng/"
export BABELTRACE_PLUGIN_PATH="$tracer_lt/usr/lib/$tracer_ml/babeltrace2/plugins"
export LIBBABELTRACE2_PLUGIN_PROVIDER_DIR="$tracer_lt/none"
# The tracer preloads liblttng-ust-fork and liblttng-ust-fd by the paths its build found:
# use the carried ones.
export TRACER_UST_FORK_LIBRARY="$tracer_lt/usr/lib/$tracer_ml/liblttng-ust-fork.so.1"
export TRACER_UST_FD_LIBRARY="$tracer_lt/usr/lib/$tracer_ml/liblttng-ust-fd.so.1"
ENV
du -sh "$dest"
echo "Take $dest and the build folder along; on the target: . $dest/env.sh"
