#!/usr/bin/env bash
# The ThreadSanitizer pass (issue 18; docs/ci.md): configures a TSan tree (clang-19,
# -DPLAIDML_TSAN=ON), builds only the programs of the tests labelled "concurrency" (the threaded
# runtime and plan-cache cases, the kernel-cache tests with several processes on one folder,
# capi.test_execute, the thread pool, the shared-cache stress test) and runs them under TSan on
# the CPU device. A report fails its test. Exits non-zero when a step or a test fails.
#
#   scripts/tsan.sh [--source DIR] [--build DIR] [configure|build|test|all]   (default: all)
#     --source DIR   the checkout to build (default: the one holding this script); CI passes
#                    its fixed path so that ccache hits across clones (scripts/test.sh)
#     --build DIR    the TSan tree (default: SOURCE/build-tsan)
#
# LLVM, the kernels it compiles and the GPU drivers are not instrumented: the pass hides the
# drivers (as scripts/fuzz-campaign.sh does) so that only the CPU device is listed and run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=$root build="" step=all
while [ $# -gt 0 ]; do
  case $1 in
    --source) src=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    configure|build|test|all) step=$1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "tsan.sh: unknown argument $1 (--help lists them)" >&2; exit 2 ;;
  esac
done
build=${build:-$src/build-tsan}
jobs=$(nproc)
# The CMake arguments every build shares, and ccache's settings (its folder, base_dir), which
# the build step needs as much as the configure step.
# shellcheck source=scripts/cmake-args.sh
source "$root/scripts/cmake-args.sh"
plaidml_cmake_args "$src"

# The programs of the "concurrency" tests. A test given the label in a program missing here
# fails as "Not Run" (its executable was not built), so the list cannot silently fall behind.
targets=(plaidml_jit_runtime_test test_jit_cache plaidml_cache_child capi_test_execute
         plaidml_devices_thread_pool_test plaidml_stress_cache_threads)

configure() {
  # No GPU plugins, no SPIR-V generator, no ONNX importer: the pass runs none of them, and
  # leaving them out saves compiling them under TSan.
  cmake -S "$src" -B "$build" "${PLAIDML_CMAKE_ARGS[@]}" -DPLAIDML_BUILD_TESTS=ON \
    -DCMAKE_UNITY_BUILD=ON -DPLAIDML_TSAN=ON -DCMAKE_C_COMPILER=clang-19 \
    -DCMAKE_CXX_COMPILER=clang++-19 -DPLAIDML_BUILD_ONNX=OFF -DPLAIDML_DEVICE_OPENCL=OFF \
    -DPLAIDML_DEVICE_VULKAN=OFF >"$build.configure.log" 2>&1 ||
    { cat "$build.configure.log"; return 1; }
}

build_targets() {
  cmake --build "$build" -j"$jobs" --target "${targets[@]}"
}

# halt_on_error: the first report ends the process with an error, so the test fails even where
# CTest judges a test by its output (the C API tests' "0 failed").
run_tests() {
  (cd "$build" &&
    TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/tsan.supp" \
    VK_DRIVER_FILES=/nonexistent/no_vulkan_driver.json \
    OCL_ICD_VENDORS=/nonexistent/no_opencl_vendors \
    ctest --output-on-failure -j"$jobs" -L concurrency)
}

case $step in
  configure) configure ;;
  build) build_targets ;;
  test) run_tests ;;
  all) configure && build_targets && run_tests ;;
esac
