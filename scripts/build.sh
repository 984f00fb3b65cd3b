#!/usr/bin/env bash
# Configures and builds plaidml into a build folder (default: build/).
#   scripts/build.sh [BUILD_DIR] [extra cmake args...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
# shellcheck source=scripts/cmake-args.sh
source "$root/scripts/cmake-args.sh"
plaidml_cmake_args "$root"
cmake -S "$root" -B "$build" "${PLAIDML_CMAKE_ARGS[@]}" "$@" >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
# Two cores and LLVM headers: keep parallelism at the core count.
cmake --build "$build" -j"$(nproc)"
