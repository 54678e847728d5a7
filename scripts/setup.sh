#!/bin/sh
# Installs every Debian 12 package the project needs. Idempotent: packages already
# present are left as they are. Run as root (or through sudo).
set -eu

packages="
  build-essential cmake pkg-config clang-format jq time ltrace uftrace
  libclang-19-dev clang-19 libomp-19-dev libclang-rt-19-dev
  clang-tools-19
  libyaml-dev libjansson-dev
  liblttng-ust-dev lttng-tools liblttng-ctl-dev babeltrace2 libbabeltrace2-dev python3-bt2
  protobuf-compiler protobuf-c-compiler libprotobuf-c-dev
  libze-dev
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  mpich libmpich-dev openmpi-bin libopenmpi-dev gfortran
  libamdhip64-dev
  help2man man-db dpkg-dev file lmod tcl8.6
  zlib1g-dev pigz libbz2-dev bzip2 libarchive-dev libarchive-tools libsqlite3-dev sqlite3
  libcurl4-openssl-dev liblapacke-dev libuv1-dev libnetcdf-dev libfftw3-dev libpng-dev
  libxml2-dev libxml2-utils
  libjansson-dev libpcre2-dev pcre2-utils libzstd-dev zstd liblz4-dev liblzma-dev xz-utils
  libseccomp-dev libexpat1-dev expat libgcrypt20-dev libwebp-dev webp
  libopen-trace-format2-dev otf2-tools python3-otf2
  python3-mpi4py lammps lammps-examples hpcc python3-torch quantum-espresso quantum-espresso-data
  libunwind-dev libdw-dev python3-pyopencl
  chromium
"

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    exec sudo -E sh "$0" "$@"
  fi
  echo "setup.sh: error: Cannot install packages: run as root or install sudo" >&2
  exit 1
fi

missing=""
for p in $packages; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

if [ -n "$missing" ]; then
  echo "setup.sh: installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  # shellcheck disable=SC2086
  apt-get install -y --no-install-recommends $missing
else
  echo "setup.sh: all packages already installed"
fi

# Debian's environment-modules conflicts with lmod (both provide `module`), so only lmod
# is installed; environment-modules is unpacked from its Debian package into
# /opt/environment-modules, for the tests that load the tracer's module with both tools
# (its modulecmd.tcl runs with tcl8.6, installed above).
envmod=/opt/environment-modules
if ! find "$envmod/usr/lib" -name modulecmd.tcl 2>/dev/null | grep -q .; then
  echo "setup.sh: unpacking environment-modules into $envmod"
  tmp=$(mktemp -d)
  chmod 755 "$tmp" # apt's download user writes there
  (cd "$tmp" && apt-get -o APT::Sandbox::User=root download environment-modules) || {
    apt-get update && (cd "$tmp" && apt-get -o APT::Sandbox::User=root download environment-modules)
  }
  mkdir -p "$envmod"
  dpkg-deb -x "$tmp"/environment-modules_*.deb "$envmod"
  rm -rf "$tmp"
fi

# The CUDA toolkit does not come from Debian; the CUDA and NVTX models need its headers.
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f "$cuda/include/cuda.h" ]; then
  echo "setup.sh: warning: CUDA toolkit not found at $cuda (no $cuda/include/cuda.h)." >&2
  echo "setup.sh: warning: the cuda, cudart and nvtx models cannot be regenerated here;" >&2
  echo "setup.sh: warning: set CUDA_HOME or install the CUDA 13 toolkit at /usr/local/cuda." >&2
fi

# NVML's header (the nvml backend: `tracer --sample`): Debian 12 ships it in
# libnvidia-ml-dev, in the non-free component, whose dependency libnvidia-ml1 is the
# driver's own library; so the package is downloaded through a private apt state (the
# system's sources with Components: non-free, the system's apt configuration left alone)
# and only its header unpacked, into a folder of its own (api-specs/nvml.yaml).
nvml_dir=/usr/local/lib/tracer-nvml
if [ ! -f "$nvml_dir/include/nvml.h" ]; then
  echo "setup.sh: unpacking nvml.h from Debian's libnvidia-ml-dev into $nvml_dir/include"
  nvml_work=$(mktemp -d)
  chmod 755 "$nvml_work" # apt's download user writes there
  mkdir -p "$nvml_work/apt/parts" "$nvml_work/apt/lists/partial"
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    sed 's/^Components:.*$/Components: non-free/' "$f" >"$nvml_work/apt/parts/$(basename "$f")"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    sed -n 's/^[[:space:]]*\(deb[[:space:]].*[[:space:]]bookworm[-a-z]*\)[[:space:]].*$/\1 non-free/p' \
      "$f" >"$nvml_work/apt/parts/nf-$(basename "$f").list"
  done
  nvml_apt="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$nvml_work/apt/parts
            -o Dir::State::Lists=$nvml_work/apt/lists -o APT::Sandbox::User=root"
  # shellcheck disable=SC2086 # nvml_apt is a list of options
  apt-get $nvml_apt update
  # shellcheck disable=SC2086
  (cd "$nvml_work" && apt-get $nvml_apt download libnvidia-ml-dev)
  dpkg-deb -x "$nvml_work"/libnvidia-ml-dev_*.deb "$nvml_work/root"
  mkdir -p "$nvml_dir/include"
  cp "$nvml_work/root/usr/include/nvml.h" "$nvml_dir/include/"
  rm -rf "$nvml_work"
fi

# Level Zero's upstream null driver, for the ze tests (ZE_ENABLE_NULL_DRIVER=1): Debian
# ships the loader but no driver, so it is built from Debian's level-zero source package,
# through a private apt state that leaves the system's apt configuration alone.
ze_null_dir=/usr/local/lib/tracer-ze-null
if [ ! -e "$ze_null_dir/libze_null.so.1" ]; then
  echo "setup.sh: building Level Zero's null driver into $ze_null_dir"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work/apt/parts" "$work/apt/lists/partial"
  # The system's own sources as source-package sources, in either format: deb822 files
  # (Debian 12's images: sources.list.d/debian.sources) and one-line lists (debootstrap:
  # sources.list).
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    sed 's/^Types:.*$/Types: deb-src/' "$f" >"$work/apt/parts/$(basename "$f")"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >"$work/apt/parts/src-$(basename "$f").list"
  done
  if ! cat "$work"/apt/parts/* 2>/dev/null | grep -q 'deb-src'; then
    echo "setup.sh: error: Cannot find Debian's package sources in /etc/apt (sources.list or sources.list.d)" >&2
    exit 1
  fi
  apt_private="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$work/apt/parts
               -o Dir::State::Lists=$work/apt/lists"
  # shellcheck disable=SC2086 # apt_private is a list of options
  apt-get $apt_private update
  # shellcheck disable=SC2086
  (cd "$work" && apt-get $apt_private source --download-only level-zero)
  tar -xzf "$work"/level-zero_*.orig.tar.gz -C "$work"
  src=$(find "$work" -mindepth 1 -maxdepth 1 -type d ! -name apt | head -n 1)
  cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$work/build" --target ze_null -j "$(nproc)"
  mkdir -p "$ze_null_dir"
  cp -P "$work"/build/lib/libze_null.so* "$ze_null_dir/"
  rm -rf "$work"
  trap - EXIT
fi
