#!/bin/sh
# Installs every Debian 12 package the project needs. Idempotent: packages already
# present are left as they are. Run as root (or through sudo).
set -eu

packages="
  build-essential cmake pkg-config clang-format jq time ltrace uftrace
  libclang-19-dev clang-19 libomp-19-dev libclang-rt-19-dev
  libyaml-dev
  liblttng-ust-dev lttng-tools liblttng-ctl-dev babeltrace2 libbabeltrace2-dev
  libze-dev
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  mpich libmpich-dev openmpi-bin libopenmpi-dev
  libamdhip64-dev
  zlib1g-dev pigz libbz2-dev bzip2 libarchive-dev libarchive-tools libsqlite3-dev sqlite3
  libcurl4-openssl-dev liblapacke-dev libuv1-dev libnetcdf-dev
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

# The CUDA toolkit does not come from Debian; the CUDA and NVTX models need its headers.
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f "$cuda/include/cuda.h" ]; then
  echo "setup.sh: warning: CUDA toolkit not found at $cuda (no $cuda/include/cuda.h)." >&2
  echo "setup.sh: warning: the cuda, cudart and nvtx models cannot be regenerated here;" >&2
  echo "setup.sh: warning: set CUDA_HOME or install the CUDA 13 toolkit at /usr/local/cuda." >&2
fi
