#!/usr/bin/env bash
# Installs, with apt-get, everything plaidml needs to build, test and benchmark on Debian 12.
# Idempotent: packages already present are skipped quickly.
set -euo pipefail
PKGS=(build-essential cmake ninja-build pkg-config llvm-19-dev libzstd-dev
      libspdlog-dev libfmt-dev doctest-dev libisl-dev libgmp-dev
      libonnx-dev libprotobuf-dev  # the ONNX importer (src/frontend/onnx)
      python3-numpy binutils
      ccache lld clang-19 libclang-rt-19-dev  # CI's build speed: docs/ci.md says why each
      ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
      libvulkan-dev spirv-headers spirv-tools mesa-vulkan-drivers vulkan-validationlayers
      libdnnl-dev libopenblas-dev  # the CPU bench's peers (bench/cpu_peers.h)
      libclblast-dev)  # the GPU bench's matmul peer (bench/clblast_gpu.cc), packed for the GPU machine
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
