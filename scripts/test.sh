#!/usr/bin/env bash
# README command 2: install what is missing, build, and run every test:
#   1. the release build (RelWithDebInfo) and its CTest suite (unit, conformance, C99, CLI,
#      packaging: export list, SONAME, install + pkg-config + CMake package consumers);
#   2. the same suite under AddressSanitizer + UndefinedBehaviorSanitizer, built with clang-19
#      (GCC's UBSan instrumentation compiles about 4 times slower; and two compilers check the
#      code's portability);
#   3. the libFuzzer targets of fuzz/ (docs/fuzzing.md), built in the sanitizer tree: each
#      replays its seeds and regression inputs, then fuzzes for 15 s; a finding fails the run;
#   4. ThreadSanitizer (scripts/tsan.sh): a TSan tree of its own with only the programs of the
#      tests labelled "concurrency", and those tests under it on the CPU device.
# Both are unity builds (CMAKE_UNITY_BUILD), through ccache when it is installed. Each phase
# prints its time, and a table of all of them closes the run. docs/ci.md has the budget and
# the measurements behind these choices.
# Set PLAIDML_SKIP_SANITIZE=1 to skip steps 2 and 3, PLAIDML_SKIP_FUZZ=1 step 3,
# PLAIDML_SKIP_TSAN=1 step 4, while iterating.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
run_start=$(date +%s%N)
phase_lines=()

# Seconds from START to END (date +%s%N), with one decimal.
seconds_since() {
  local tenths=$(( (${2:-$(date +%s%N)} - $1) / 100000000 ))
  echo "$((tenths / 10)).$((tenths % 10))"
}

# phase NAME COMMAND...: runs COMMAND and records how long it took.
phase() {
  local name=$1 start end status=0
  shift
  echo "=== $name ==="
  start=$(date +%s%N)
  "$@" || status=$?
  end=$(date +%s%N)
  local line
  line=$(printf 'ci phase: %-20s %7s s' "$name" "$(seconds_since "$start" "$end")")
  echo "$line"
  phase_lines+=("$line")
  return $status
}

report() {
  local status=$?
  echo "=== timings ==="
  if [ ${#phase_lines[@]} -gt 0 ]; then printf '%s\n' "${phase_lines[@]}"; fi
  printf 'ci phase: %-20s %7s s (budget: 1800 s on a fresh clone, docs/ci.md)\n' total \
    "$(seconds_since "$run_start")"
  if command -v ccache >/dev/null 2>&1 && [ -n "${CCACHE_DIR:-}" ]; then
    ccache --show-stats 2>/dev/null | grep -E 'Hits|Misses' | head -3 | sed 's/^/ccache: /' || true
  fi
  return $status
}
trap report EXIT

phase apt bash "$root/scripts/install-deps.sh"

# CI clones main into a new folder each time, and CMake writes absolute paths into the unity
# sources it generates, so a compiler cache only hits across clones if the paths are the same:
# the builds see this clone through one fixed path, a symlink to it. Held under a lock, so a
# second run at the same time builds through its own path instead (it compiles, but correctly).
ci_home=${XDG_CACHE_HOME:-$HOME/.cache}/plaidml-ci
mkdir -p "$ci_home"
src=$root
exec 9>"$ci_home/checkout.lock"
if flock -n 9; then
  ln -sfn "$root" "$ci_home/checkout"
  src=$ci_home/checkout
fi

# shellcheck source=scripts/cmake-args.sh
source "$root/scripts/cmake-args.sh"
plaidml_cmake_args "$src"
# ccache's hit count at the end is this run's.
if [ -n "${CCACHE_DIR:-}" ]; then ccache --zero-stats >/dev/null 2>&1 || true; fi
# PoCL's compiled-kernel cache, shared by both builds and, like ccache, kept outside the clone
# for the next run (tests/CMakeLists.txt says why that is safe). It is a compiler cache: a cold
# measurement empties both (docs/ci.md).
pocl_cache=${PLAIDML_POCL_CACHE_DIR:-$ci_home/pocl}
common=("${PLAIDML_CMAKE_ARGS[@]}" -DPLAIDML_BUILD_TESTS=ON -DCMAKE_UNITY_BUILD=ON
        -DPLAIDML_TEST_POCL_CACHE_DIR="$pocl_cache")

configure() {
  cmake -S "$src" -B "$1" "${common[@]}" "${@:2}" >"$1.configure.log" 2>&1 ||
    { cat "$1.configure.log"; return 1; }
}

phase "release configure" configure "$src/build"
phase "release build" cmake --build "$src/build" -j"$jobs"
phase "release tests" bash -c "cd '$src/build' && ctest --output-on-failure -j$jobs"

if [ "${PLAIDML_SKIP_SANITIZE:-0}" != 1 ]; then
  asan=$src/build-asan
  # The fuzz targets (docs/fuzzing.md) live here, with the libraries' coverage limited to edge
  # counters, which left the sanitizer tests as fast as without. The ONNX importer is built for
  # its target (and its C and CLI tests run under ASan; its Python tests cannot load ASan
  # libraries, tests/onnx).
  phase "sanitizer configure" configure "$asan" -DPLAIDML_SANITIZE=ON \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DPLAIDML_BUILD_ONNX=ON -DPLAIDML_FUZZ=ON -DPLAIDML_FUZZ_COVERAGE=edges
  phase "sanitizer build" cmake --build "$asan" -j"$jobs"
  # LLVM's JIT-ed code is not instrumented; leak checks stay on for our own allocations in both
  # passes. The tests that drive lavapipe (names with vulkan, lavapipe or spirv) run in a second
  # pass, and the first one hides every Vulkan driver (VK_DRIVER_FILES names none), so that
  # listing devices never loads one. tests/lsan.supp suppresses what LeakSanitizer reports of
  # lavapipe's own memory at exit (allocations made inside libvulkan_lvp.so, whose stacks hold
  # no frame of ours); a Vulkan object we forget to destroy is the validation layer's to report
  # (docs/ci.md).
  vulkan_tests='vulkan|lavapipe|spirv'
  lsan_suppressions=suppressions=$root/tests/lsan.supp
  # A failed allocation returns NULL, as without ASan, so that the out-of-memory paths run.
  # No alternate signal stack of ASan's own: PoCL, loaded by a worker thread (the cache stress
  # test lists the devices from one), installs a malloc'd one in its place, and ASan's teardown
  # of that thread then fails to unmap it and aborts ("failed to deallocate ... (error code:
  # 22)", seen on an AMD EPYC machine of this kind with Debian's PoCL 3.1).
  asan_common=allocator_may_return_null=1:use_sigaltstack=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  phase "sanitizer tests" bash -c "cd '$asan' &&
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:$asan_common LSAN_OPTIONS=$lsan_suppressions \
    VK_DRIVER_FILES=/nonexistent/no_vulkan_driver.json \
    ctest --output-on-failure -j$jobs -LE 'no-sanitize|fuzz' -E '$vulkan_tests'"
  phase "sanitizer lavapipe" bash -c "cd '$asan' &&
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:$asan_common LSAN_OPTIONS=$lsan_suppressions \
    ctest --output-on-failure -j$jobs -LE no-sanitize -R '$vulkan_tests'"
  # The fuzz phase replays the seeds and regression inputs itself (hence -LE fuzz above).
  if [ "${PLAIDML_SKIP_FUZZ:-0}" != 1 ]; then
    phase "fuzz" bash "$root/scripts/fuzz-campaign.sh" --build "$asan" --out "$asan/fuzz-ci" \
      --fresh --seconds 15
  fi
fi
if [ "${PLAIDML_SKIP_TSAN:-0}" != 1 ]; then
  # Through the fixed path, like the other trees, so that ccache hits across clones.
  tsan=(bash "$root/scripts/tsan.sh" --source "$src" --build "$src/build-tsan")
  phase "tsan configure" "${tsan[@]}" configure
  phase "tsan build" "${tsan[@]}" build
  phase "tsan tests" "${tsan[@]}" test
fi
echo "all tests passed"
