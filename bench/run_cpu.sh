#!/usr/bin/env bash
# The CPU benchmark of bench/RESULTS.md, start to end:
#   bash bench/run_cpu.sh [BUILD_DIR] [-- extra plaidml_cpu_bench flags]
# BUILD_DIR (default build-bench/) is configured (Release, benches on, no tests, CPU only) and
# plaidml_cpu_bench built there when missing. Then three processes, one after the other:
#   1. --compile-only on an empty cache folder: every case's program compiled cold;
#   2. --compile-only again on the same folder: the cached (second process) start;
#   3. the full bench (plaidml, oneDNN, OpenBLAS at 1 and 2 threads) on a fresh cache folder, so
#      its compile times stay cold.
# Output in BUILD_DIR/cpu-results/: the JSON lines of each, the bench's stderr table, and
# cpu_table.md (bench/compare_cpu.py), whose tables go into bench/RESULTS.md. About 10 minutes
# on 2 cores while plaidml's CPU kernels are naive.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-bench
if [ $# -gt 0 ] && [ "$1" != "--" ]; then build=$(realpath -m "$1"); shift; fi
[ "${1:-}" = "--" ] && shift
extra=("$@")  # passed to every plaidml_cpu_bench process
out=$build/cpu-results
bench=$build/bench/plaidml_cpu_bench

if [ ! -x "$bench" ]; then
  echo "== building plaidml_cpu_bench in $build"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPLAIDML_BUILD_BENCH=ON \
    -DPLAIDML_BUILD_TESTS=OFF -DPLAIDML_DEVICE_OPENCL=OFF -DPLAIDML_DEVICE_VULKAN=OFF >/dev/null
  cmake --build "$build" -j"$(nproc)" --target plaidml_cpu_bench
fi

# OPENBLAS_CORETYPE: the bench sets it to the best core for this CPU itself (bench/bench_env.h).
mkdir -p "$out"
cache=$(mktemp -d "${TMPDIR:-/tmp}/plaidml-bench-cache.XXXXXX")
trap 'rm -rf "$cache"' EXIT

# One --compile-only process; its wall time (library load and all) is appended as a JSON line.
start_process() {
  local file=$1 t0 t1
  t0=$(date +%s%N)
  "$bench" --compile-only --cache-dir "$cache/start" "${extra[@]}" >"$file"
  t1=$(date +%s%N)
  echo "{\"kind\": \"process\", \"wall_ms\": $(((t1 - t0) / 1000000))}" >>"$file"
}

commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null | head -c1)
echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit${dirty:+ (with local changes)}," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== 1/3: cold start (compile only, empty cache folder)"
start_process "$out/start_cold.json"
echo "== 2/3: cached start (compile only, second process on the same cache folder)"
start_process "$out/start_cached.json"
echo "== 3/3: the bench (stderr table in $out/cpu_bench.log)"
status=0
"$bench" --cache-dir "$cache/run" "${extra[@]}" >"$out/cpu_bench.json" 2> >(tee "$out/cpu_bench.log" >&2) ||
  status=$?
python3 "$root/bench/compare_cpu.py" "$out/cpu_bench.json" --cold "$out/start_cold.json" \
  --warm "$out/start_cached.json" >"$out/cpu_table.md"
{
  echo "Measured $(date -u '+%Y-%m-%d') at commit $commit${dirty:+ (with local changes)} with"
  echo "\`bash bench/run_cpu.sh${extra[*]:+ -- ${extra[*]}}\`."
  echo
  cat "$out/cpu_table.md"
} >"$out/cpu_table.md.tmp" && mv "$out/cpu_table.md.tmp" "$out/cpu_table.md"
echo "== tables: $out/cpu_table.md (bench exit status $status)"
exit "$status"
